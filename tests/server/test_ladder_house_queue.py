"""A house bot's move request that waited in the workers' queue costs the house bot nothing: the
worker that takes it gives its clock back what it waited (with a `clock` event), once a turn,
and a copy of the request asked again by that commit plays nothing."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from server.clock import now_ms
from server.games import GameStore, StoredGame
from server.house_queue import TAKEN, WAIT_MS, take_turn
from server.protocol import (
    ClockUpdate,
    Colour,
    GameStatus,
    Player,
    PlayerKind,
    TimeControl,
    decode_event,
)
from tests.server.endpoint import house_worker, until

PERSON, HOUSE = Player("Cid", PlayerKind.HUMAN), Player("random", PlayerKind.HOUSE)


async def _house_to_move(store: GameStore, time: TimeControl) -> StoredGame:
    """A game of Cid (White) against the house bot random, played on to the house bot's second
    move, its clock running: both first moves are off the clock."""
    started = await store.create(
        PERSON, HOUSE, time=time, rated=False, now=now_ms(), setup="6x6", house=(None, "random@10")
    )
    game = await store.load(started.game_id)
    while game.ply < 3:
        state = game.state()
        move = state.format_move(next(iter(state.legal_moves)))
        await store.play(game.game_id, game.player(game.to_move).name, game.ply, move, now_ms())
        game = await store.load(game.game_id)
    assert game.to_move is Colour.BLACK
    assert game.clock.running
    return game


@pytest.mark.asyncio
async def test_the_time_a_request_waited_goes_back_on_the_house_bots_clock(redis: Redis) -> None:
    store = GameStore(redis)
    game = await _house_to_move(store, TimeControl(60, 0))
    start = game.clock.turn_start
    left = game.clock.remaining(Colour.BLACK, start)
    request = f"{start}-0"  # asked as the turn began
    taken = await take_turn(store, game, request, start + 5_000)
    assert taken is not None
    # Taken 5 s late: the house bot's clock reads as it did when the turn began.
    assert taken.clock.remaining(Colour.BLACK, start + 5_000) == left
    stored = await store.load(game.game_id)
    assert stored.clock == taken.clock
    assert stored.extra[TAKEN] == [3, request]
    (frame,) = await store.events_since(game.game_id, game.version)
    event = decode_event(frame)
    assert isinstance(event, ClockUpdate)
    assert event.clocks.black == left
    # The copy of the request that commit asked again for plays nothing; the request itself,
    # retried, goes on with the clock as given back, and is given nothing more.
    assert await take_turn(store, stored, f"{start + 5_000}-0", start + 9_000) is None
    again = await take_turn(store, stored, request, start + 9_000)
    assert again is not None
    assert again.version == stored.version


@pytest.mark.asyncio
async def test_a_request_taken_at_once_changes_nothing(redis: Redis) -> None:
    store = GameStore(redis)
    game = await _house_to_move(store, TimeControl(60, 0))
    start = game.clock.turn_start
    taken = await take_turn(store, game, f"{start}-0", start + WAIT_MS - 1)
    assert taken == game
    assert (await store.load(game.game_id)).version == game.version


@pytest.mark.asyncio
async def test_a_house_bot_whose_request_waited_past_its_clock_still_moves_in_time(
    redis: Redis,
) -> None:
    """No worker is there for 1.5 s while the house bot has 1 s: the worker that comes takes
    the request, gives the wait back and plays the move in time (before, it lost on time)."""
    store = GameStore(redis)
    game = await _house_to_move(store, TimeControl(1, 0))
    await asyncio.sleep(1.5)
    async with house_worker(redis, "late"):

        async def moved_or_ended() -> bool:
            now = await store.load(game.game_id)
            return now.ply > game.ply or now.status is GameStatus.ENDED

        await until(moved_or_ended, "the house bot's move", seconds=120)
    after = await store.load(game.game_id)
    assert after.ply == game.ply + 1, after.termination  # its move, played in time
