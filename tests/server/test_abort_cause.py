"""Why a game was aborted, on the wire: `game_ended` says whether a player called it off or the
side to move made no first move in time, and which side; a later `watch` of the finished game
says the same, and a `watch` during a first move's window says how long is left of it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.clock import FIRST_MOVE_MS, now_ms
from server.games import GameStore, open_redis
from tests.server.endpoint import serving
from tests.server.test_wire import _game, _moves
from tests.server.wire import Frame, Wire


@pytest_asyncio.fixture
async def url(redis: Redis, redis_url: str) -> AsyncIterator[str]:
    async with serving(redis_url) as found:
        yield found


def _why(frame: Frame) -> tuple[object, ...]:
    return (
        frame["t"],
        frame.get("termination"),
        frame.get("winner"),
        frame.get("abort_cause"),
        frame.get("abort_side"),
    )


@pytest.mark.asyncio
async def test_a_game_a_player_called_off_says_who_on_its_end_and_to_a_later_watch(
    url: str,
) -> None:
    white, black, started = await _game(url)
    game_id = started["game_id"]
    await white.call("move", game_id=game_id, ply=0, move=_moves("6x6", 1)[0])
    reply = await black.call("abort", game_id=game_id)
    expected = ("game_ended", "aborted", None, "called_off", "black")
    assert _why(reply) == expected
    told = await white.wait_for(lambda f: f["t"] == "game_ended")
    assert _why(told) == expected

    spectator = await Wire.guest(url)
    state = await spectator.call("watch", game_id=game_id)
    assert (state["status"], *_why(state)[1:]) == ("ended", *expected[1:])
    assert "first_move_left" not in state
    for wire in (white, black, spectator):
        await wire.close()


@pytest.mark.asyncio
async def test_a_first_move_not_made_says_whose_on_its_end_and_to_a_later_watch(
    url: str, redis_url: str
) -> None:
    white, black, started = await _game(url)
    game_id = started["game_id"]

    early = await Wire.guest(url)
    state = await early.call("watch", game_id=game_id)
    assert 0 < state["first_move_left"] <= FIRST_MOVE_MS
    assert "abort_cause" not in state

    # The time-out a server process's sweep finds once White's window has passed (a process
    # of its own: the server's would take a reading 30 s ahead for an outage).
    sweeper = GameStore(open_redis(redis_url))
    ended = await sweeper.expire(game_id, now_ms() + FIRST_MOVE_MS)
    await sweeper.redis.aclose()
    assert ended is not None
    expected = ("game_ended", "aborted", None, "no_first_move", "white")
    for wire in (white, black, early):
        assert _why(await wire.wait_for(lambda f: f["t"] == "game_ended")) == expected

    spectator = await Wire.guest(url)
    state = await spectator.call("watch", game_id=game_id)
    assert (state["status"], *_why(state)[1:]) == ("ended", *expected[1:])
    assert "first_move_left" not in state
    for wire in (white, black, early, spectator):
        await wire.close()


@pytest.mark.asyncio
async def test_a_watch_in_the_second_first_move_window_and_after_it(
    url: str,
) -> None:
    white, black, started = await _game(url)
    game_id = started["game_id"]
    moves = _moves("6x6", 2)
    spectator = await Wire.guest(url)
    await white.call("move", game_id=game_id, ply=0, move=moves[0])
    state = await spectator.call("watch", game_id=game_id)
    assert (state["to_move"], len(state["moves"])) == ("black", 1)
    assert 0 < state["first_move_left"] <= FIRST_MOVE_MS
    await black.call("move", game_id=game_id, ply=1, move=moves[1])
    state = await spectator.call("watch", game_id=game_id)
    assert "first_move_left" not in state  # both have moved: the clocks run
    for wire in (white, black, spectator):
        await wire.close()
