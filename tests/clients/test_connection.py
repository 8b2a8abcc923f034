"""`ArenaClient`, the client core's asyncio transport, against an in-process server on real Redis:
typed replies, a game's changes through a subscription, a listener that falls behind, and a
connection that closes under its listeners."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from clients import (
    ArenaClient,
    ArenaError,
    GameFollowed,
    GameOver,
    MoveAdded,
    PresenceChanged,
    SeekClosed,
    SeekOpened,
)
from server.protocol import (
    AcceptSeek,
    ErrorCode,
    GameStarted,
    GameStatus,
    ListSeeks,
    PlayMove,
    Resign,
    Seek,
    SeekAdded,
    SeekList,
    Termination,
    TimeControl,
    Watch,
)
from tests.server.endpoint import guest, random_game, serving

TIMEOUT = 30


@pytest_asyncio.fixture
async def url(redis: Redis, redis_url: str) -> AsyncIterator[str]:
    async with serving(redis_url) as url:
        yield url


async def _game(url: str) -> tuple[ArenaClient, ArenaClient, str]:
    """Two guests in a 6x6 game: (white, black, game id)."""
    a, b = await guest(url), await guest(url)
    added = await a.request(Seek(TimeControl(300, 0), setup="6x6"), SeekAdded)
    started = await b.request(AcceptSeek(added.seek.seek_id), GameStarted)
    await a.wait_for(lambda c: started.game_id in c.games)
    assert a.user is not None
    white = a if started.white.name == a.user.name else b
    return white, (b if white is a else a), started.game_id


@pytest.mark.asyncio
async def test_a_subscriber_sees_a_games_moves_and_its_end(url: str) -> None:
    async with asyncio.timeout(TIMEOUT):
        white, black, game_id = await _game(url)
        spectator = await guest(url)
        with spectator.subscribe(game_id) as changes:
            await spectator.request(Watch(game_id))
            moves = random_game("6x6", seed=3)[:4]
            for ply, move in enumerate(moves):
                await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))
            await white.request(Resign(game_id))
            seen = [await anext(changes) for _ in range(len(moves) + 2)]
        assert isinstance(seen[0], GameFollowed)
        assert [(c.ply, c.move) for c in seen[1:-1] if isinstance(c, MoveAdded)] == list(
            enumerate(moves)
        )
        over = seen[-1]
        assert isinstance(over, GameOver)
        assert over.view.termination is Termination.RESIGNATION
        assert over.view.moves == tuple(moves)
        assert over.view.position().text() == spectator.games[game_id].position().text()
        for client in (white, black, spectator):
            await client.close()


@pytest.mark.asyncio
async def test_a_listener_that_falls_behind_loses_the_oldest_changes_not_the_game(
    url: str,
) -> None:
    async with asyncio.timeout(TIMEOUT):
        white, black, game_id = await _game(url)
        behind = black.subscribe(game_id, limit=2)
        moves = random_game("6x6", seed=5)[:6]
        for ply, move in enumerate(moves):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))
        await black.wait_for(lambda c: c.games[game_id].ply == len(moves))
        held = behind.drain()
        assert behind.dropped == len(moves) - 2
        assert [c.move for c in held if isinstance(c, MoveAdded)] == moves[-2:]
        assert black.games[game_id].moves == tuple(moves)  # the view has every move
        behind.close()
        await white.close()
        await black.close()


@pytest.mark.asyncio
async def test_requests_return_their_typed_replies_and_refusals_raise(url: str) -> None:
    async with asyncio.timeout(TIMEOUT):
        ann, bob = await guest(url), await guest(url)
        lobby = bob.subscribe()
        listed = await bob.request(ListSeeks(), SeekList)
        assert listed.seeks == ()
        added = await ann.request(Seek(TimeControl(60, 0), setup="6x6"), SeekAdded)
        await bob.wait_for(lambda c: added.seek.seek_id in c.core.seeks)
        with pytest.raises(ArenaError) as refused:
            await ann.request(AcceptSeek(added.seek.seek_id))  # one's own seek
        assert refused.value.code is ErrorCode.FORBIDDEN
        await bob.request(AcceptSeek(added.seek.seek_id), GameStarted)
        await bob.wait_for(lambda c: not c.core.seeks)
        kinds = [type(change) for change in lobby.drain()]
        assert kinds.index(SeekOpened) < kinds.index(SeekClosed)
        lobby.close()
        await ann.close()
        await bob.close()


@pytest.mark.asyncio
async def test_listeners_and_waiting_requests_end_when_the_connection_closes(url: str) -> None:
    async with asyncio.timeout(TIMEOUT):
        white, black, game_id = await _game(url)
        listening = white.subscribe(game_id)
        await black.close()
        await white.socket.close()
        # The iteration ends (it does not wait for changes that cannot come any more).
        seen = [change async for change in listening]
        assert all(isinstance(change, PresenceChanged) for change in seen)
        assert white.closed
        with pytest.raises(ConnectionError):
            await white.request(PlayMove(game_id, 0, random_game("6x6", seed=1)[0]))
        assert white.games[game_id].status is GameStatus.PLAYING
        await white.close()
