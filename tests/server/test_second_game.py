"""A game other than Amazons through every layer: the test suite's take-away game
(tests/games/takeaway.py, registered in tests/conftest.py) is offered, challenged, played
against a house bot through a worker, watched, listed, archived and refused analysis, with the
client following it through its core alone, as a state of the registered game."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from clients import ArenaClient, ArenaError, GameOver, MoveAdded
from server.games import GameStore
from server.protocol import (
    AcceptSeek,
    Analyze,
    Challenge,
    Colour,
    ColourPreference,
    ErrorCode,
    GameStarted,
    GameStatus,
    ListGames,
    ListOffers,
    MovePlayed,
    OfferList,
    PlayMove,
    Seek,
    SeekAdded,
    Termination,
    TimeControl,
    Watch,
)
from tests.games.takeaway import MAX_TAKE, TakeAwayState
from tests.server.endpoint import guest, house_worker, serving

PILE = 10


@pytest_asyncio.fixture
async def arena_url(redis: Redis, redis_url: str) -> AsyncIterator[str]:
    async with house_worker(redis, "takeaway-worker"), serving(redis_url) as url:
        yield url


def _winning_take(state: TakeAwayState) -> int:
    """Leave the opponent a multiple of four counters (the first player's win from 10)."""
    return state.pile % (MAX_TAKE + 1) or 1


@pytest.mark.asyncio
async def test_take_away_is_played_against_a_house_bot_and_watched(
    arena_url: str, redis: Redis
) -> None:
    player, spectator = await guest(arena_url), await guest(arena_url)
    offers = await player.request(ListOffers(), OfferList)
    takeaway = next(g for g in offers.offers.games or () if g.game == "takeaway")
    assert "random" in takeaway.house_bots
    assert "invader" not in takeaway.house_bots

    with pytest.raises(ArenaError) as refused:
        await player.request(
            Challenge("invader", TimeControl(60, 1), setup=str(PILE), game="takeaway")
        )
    assert refused.value.code is ErrorCode.BAD_FIELD

    started = await player.request(
        Challenge(
            "random",
            TimeControl(60, 1),
            setup=str(PILE),
            colour=ColourPreference.WHITE,
            game="takeaway",
        ),
        GameStarted,
    )
    game_id = started.game_id
    assert (started.game, started.start, started.black.kind) == ("takeaway", "10 w", "house")
    listed = await spectator.request(ListGames())
    assert [(g.game_id, g.game) for g in listed.games] == [(game_id, "takeaway")]
    await spectator.request(Watch(game_id))

    async with asyncio.timeout(60):  # a house bot that cannot play would leave us waiting
        with player.subscribe(game_id) as changes:
            while player.games[game_id].status is GameStatus.PLAYING:
                view = player.games[game_id]
                if view.to_move is Colour.WHITE:
                    state = view.position()
                    assert isinstance(state, TakeAwayState)
                    await player.request(
                        PlayMove(game_id, view.ply, str(_winning_take(state))), MovePlayed
                    )
                    continue
                async for change in changes:
                    if isinstance(change, MoveAdded | GameOver):
                        break

    view = player.games[game_id]
    assert (view.game, view.status, view.winner) == ("takeaway", GameStatus.ENDED, Colour.WHITE)
    assert view.termination is Termination.NO_LEGAL_MOVE
    assert sum(int(move) for move in view.moves) == PILE
    assert view.position().is_terminal()

    await asyncio.wait_for(
        spectator.wait_for(lambda c: c.games[game_id].status is GameStatus.ENDED), 10
    )
    assert spectator.games[game_id].moves == view.moves

    with pytest.raises(ArenaError) as analysis:
        await spectator.request(Analyze(game_id=game_id))
    assert analysis.value.reply.code is ErrorCode.UNAVAILABLE
    assert (
        analysis.value.reply.message
        == "analysis covers amazons and bao; there is none for takeaway"
    )

    record = (await GameStore(redis).load(game_id)).record()
    assert (record.game, record.moves, record.winner) == ("takeaway", list(view.moves), "white")
    for client in (player, spectator):
        await client.close()


@pytest.mark.asyncio
async def test_a_take_away_seek_is_accepted_only_as_take_away(arena_url: str) -> None:
    """Two people pair through the lobby in the game the seek names."""
    white: ArenaClient = await guest(arena_url)
    black: ArenaClient = await guest(arena_url)
    seek = await white.request(
        Seek(TimeControl(60, 0), setup="21", colour=ColourPreference.WHITE, game="takeaway"),
        SeekAdded,
    )
    assert seek.seek.game == "takeaway"
    started = await black.request(AcceptSeek(seek.seek.seek_id), GameStarted)
    assert (started.game, started.start, started.to_move) == ("takeaway", "21 w", Colour.WHITE)
    await white.request(PlayMove(started.game_id, 0, "3"))
    await asyncio.wait_for(black.wait_for(lambda c: c.games[started.game_id].ply == 1), 10)
    assert black.games[started.game_id].position().text() == "18 b"
    for client in (white, black):
        await client.close()
