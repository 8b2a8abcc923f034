"""Outages of the servers: while no server process is up (or none reaches Redis), nobody can move,
so the clocks stand still. The store with the server time given, then real servers over
websockets whose clock is moved on while they are all stopped."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from redis.asyncio import Redis

import server.clock
from clients import ArenaClient
from server.clock import FIRST_MOVE_MS, Clock
from server.games import GameStore, open_redis
from server.outage import HEARTBEAT_MS, OUTAGE_MS, Heartbeat, Outage
from server.protocol import (
    ClockUpdate,
    Colour,
    ErrorCode,
    Event,
    GameStatus,
    MovePlayed,
    Player,
    PlayerKind,
    PlayMove,
    ProtocolError,
    TimeControl,
    decode_event,
)
from tests.server.endpoint import random_game, serving, start_game

ANN = Player("ann", PlayerKind.HUMAN)
BOB = Player("bob", PlayerKind.HUMAN)
T0 = 1_000_000  # server ms when the tests' games start
OUTAGE = 25_000  # the outage of the issue: 4:42 became 4:15
MOVES = random_game("6x6", seed=3)

StoreFactory = Callable[[], GameStore]


@pytest_asyncio.fixture
async def new_store(redis: Redis, redis_url: str) -> AsyncIterator[StoreFactory]:
    """A server process's store, with its heartbeat, on a client of its own."""
    made: list[GameStore] = []

    def make() -> GameStore:
        client = open_redis(redis_url)
        made.append(GameStore(client, claim_grace_ms=30_000, heartbeat=Heartbeat(client)))
        return made[-1]

    yield make
    for store in made:
        await store.redis.aclose()


async def _game(store: GameStore, now: int, base: int = 10) -> str:
    started = await store.create(
        ANN, BOB, time=TimeControl(base, 0), rated=False, now=now, setup="6x6"
    )
    return started.game_id


async def _events(store: GameStore, game_id: str) -> list[Event]:
    return [decode_event(frame) for frame in await store.events_since(game_id, 0)]


async def _running_game(store: GameStore) -> str:
    """A game whose first moves are made by T0 + 200: White's clock runs from then, 10 s."""
    game_id = await _game(store, T0)
    await store.play(game_id, "ann", 0, MOVES[0], T0 + 100)
    await store.play(game_id, "bob", 1, MOVES[1], T0 + 200)
    return game_id


def test_an_outage_gives_back_what_a_clock_ran_of_it() -> None:
    outage = Outage(start=1000, end=26_000)
    assert outage.held(0) == 25_000  # a turn that started before the outage
    assert outage.held(6000) == 20_000  # one started after the last heartbeat
    assert outage.held(26_000) == 0
    clock = Clock.start(10, 0, now=0)
    assert clock.delayed(0) is clock
    assert clock.delayed(500).deadline() == clock.deadline() + 500
    with pytest.raises(ValueError, match="negative"):
        clock.delayed(-1)


@pytest.mark.asyncio
async def test_a_restarted_server_ends_no_game_by_time_its_outage_took(
    new_store: StoreFactory,
) -> None:
    before = new_store()
    await before.keep_alive(T0)
    running = await _running_game(before)
    waiting = await _game(before, T0 + 200)  # its first move is not made yet
    # The last beat; then no server is up for 40 s, longer than the first-move window.
    await before.keep_alive(T0 + 1000)
    back = T0 + 1000 + 40_000
    after = new_store()  # a new process; its sweeper runs before it has beaten
    assert sorted(await after.due(back)) == sorted([running, waiting])
    for game_id in (running, waiting):
        assert await after.expire(game_id, back) is None
    game, first = await after.load(running), await after.load(waiting)
    assert (game.status, first.status) == (GameStatus.PLAYING, GameStatus.PLAYING)
    # White had 9.2 s at the last beat and has 9.2 s now; the first move's window starts again.
    assert game.clock_readings(back) == (9200, 10_000)
    assert first.clock.deadline() == back + FIRST_MOVE_MS
    assert await after.due(back + 9199) == []
    clock_event = (await _events(after, running))[-1]
    assert isinstance(clock_event, ClockUpdate)
    assert (clock_event.clocks.white, clock_event.clocks.black) == (9200, 10_000)
    # White moves 2 s after the servers are back: charged those and the 0.8 s before the outage.
    played = await after.play(running, "ann", 2, MOVES[2], back + 2000)
    assert isinstance(played[0], MovePlayed)
    assert played[0].clocks.white == 10_000 - 800 - 2000


@pytest.mark.asyncio
async def test_processes_starting_together_give_a_game_its_time_back_once(
    new_store: StoreFactory,
) -> None:
    before = new_store()
    await before.keep_alive(T0)
    game_id = await _running_game(before)
    await before.keep_alive(T0 + 1000)
    back = T0 + 1000 + OUTAGE
    first, second = new_store(), new_store()
    # Both beat at the same time: which of their beats reaches Redis first is up to the load,
    # and the outage ends at whichever does.
    await asyncio.gather(first.keep_alive(back), second.keep_alive(back))
    await first.keep_alive(back + HEARTBEAT_MS)
    events = await _events(first, game_id)
    assert [type(e) for e in events].count(ClockUpdate) == 1
    assert (await first.load(game_id)).clock_readings(back) == (9200, 10_000)


@pytest.mark.asyncio
async def test_a_server_that_lost_redis_charges_no_move_for_the_time_it_was_gone(
    new_store: StoreFactory,
) -> None:
    store = new_store()
    await store.keep_alive(T0)
    game_id = await _running_game(store)
    await store.keep_alive(T0 + 1000)
    # Redis is unreachable for 25 s: no beat, no move. The first move after it comes before
    # the process's next beat, and is checked on the game this process committed last: it is
    # charged the 0.8 s White had used before the outage.
    played = await store.play(game_id, "ann", 2, MOVES[2], T0 + 1000 + OUTAGE)
    assert isinstance(played[0], MovePlayed)
    assert played[0].clocks.white == 10_000 - 800
    assert isinstance((await _events(store, game_id))[-2], ClockUpdate)


@pytest.mark.asyncio
async def test_a_player_away_before_an_outage_cannot_be_claimed_against_for_it(
    new_store: StoreFactory,
) -> None:
    store = new_store()
    await store.keep_alive(T0)
    game_id = await _running_game(store)
    await store.attend(game_id, Colour.BLACK, "c1", present=True, now=T0 + 300)
    await store.attend(game_id, Colour.BLACK, "c1", present=False, now=T0 + 500)
    await store.keep_alive(T0 + 1000)
    back = T0 + 1000 + OUTAGE
    after = new_store()
    for beat in range(back, back + 4500, HEARTBEAT_MS):
        await after.keep_alive(beat)
    # Black has been away 0.5 s before the outage and 4.5 s after it: 25 s short of a claim.
    with pytest.raises(ProtocolError) as early:
        await after.claim(game_id, "ann", back + 4500)
    assert early.value.code is ErrorCode.CONFLICT
    assert "in 25 s" in str(early.value)


@pytest.mark.asyncio
async def test_beats_late_by_less_than_the_outage_time_give_nothing_back(
    new_store: StoreFactory,
) -> None:
    store = new_store()
    await store.keep_alive(T0)
    game_id = await _running_game(store)
    await store.keep_alive(T0 + OUTAGE_MS)  # a busy machine's late beat, not an outage
    assert store.heartbeat is not None
    assert store.heartbeat.outages == ()
    assert [type(e) for e in await _events(store, game_id)].count(ClockUpdate) == 0


class _ServerTime:
    """The servers' wall clock (server.clock.now_ms reads it), which a test moves on."""

    def __init__(self) -> None:
        self.ahead_s = 0.0

    def time(self) -> float:
        return time.time() + self.ahead_s


@pytest.mark.asyncio
async def test_no_player_loses_time_or_the_game_while_every_server_is_down(
    redis: Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server_time = _ServerTime()
    monkeypatch.setattr(server.clock, "time", server_time)
    async with serving(redis_url) as url, serving(redis_url) as other:
        white, black, game_id = await start_game(url, base=20)
        first_black, black = black, await ArenaClient.reconnect(other, black)
        await first_black.close()  # the players are on two servers
        await white.request(PlayMove(game_id, 0, MOVES[0]))
        await black.request(PlayMove(game_id, 1, MOVES[1]))
        white_turn = time.monotonic()  # White's clock runs from here, with 20 s
        await white.wait_for(lambda c: c.games[game_id].ply == 2)
    up = time.monotonic() - white_turn
    # Both servers are down: 25 s pass on the servers' clock, none in the test.
    server_time.ahead_s += OUTAGE / 1000
    async with serving(redis_url) as url:
        back = time.monotonic()
        white = await ArenaClient.reconnect(url, white)
        black = await ArenaClient.reconnect(url, black)
        played = await white.request(PlayMove(game_id, 2, MOVES[2]), MovePlayed)
        up += time.monotonic() - back
        await black.wait_for(lambda c: c.games[game_id].ply == 3)
        view = black.games[game_id]
        assert view.status is GameStatus.PLAYING
        # White is charged the time a server was up, up to a beat's more: not the outage.
        assert 20_000 - played.clocks.white <= up * 1000 + HEARTBEAT_MS
        for client in (white, black):
            await client.close()


@pytest.mark.asyncio
async def test_a_failover_s_stall_gives_the_time_back_once_whoever_records_it(
    new_store: StoreFactory,
) -> None:
    first, second = new_store(), new_store()
    await first.keep_alive(T0)
    game_id = await _running_game(first)
    await first.keep_alive(T0 + 1000)
    assert first.heartbeat is not None
    assert second.heartbeat is not None
    # A stall no longer than an outage is charged, as a late beat is.
    await first.heartbeat.stalled(T0 + 1500, T0 + 1500 + OUTAGE_MS)
    # Two processes' commands waited through one failover, each from and to its own times.
    await first.heartbeat.stalled(T0 + 2000, T0 + 10_000)
    await second.heartbeat.stalled(T0 + 2500, T0 + 10_500)
    assert first.heartbeat.outages == second.heartbeat.outages == (Outage(T0 + 2000, T0 + 10_000),)
    # White's clock ran from T0 + 200: 11.8 s, of which the failover's 8 s are given back.
    played = await first.play(game_id, "ann", 2, MOVES[2], T0 + 12_000)
    assert isinstance(played[0], MovePlayed)
    assert played[0].clocks.white == 10_000 - 3800
