"""The game store on its own, with the server time given: time-outs, aborts and races between
processes acting on one game."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import AsyncIterator, Callable

import msgpack
import pytest
import pytest_asyncio
from redis.asyncio import Redis

from engine.amazons import SETUPS
from server.clock import FIRST_MOVE_MS
from server.game_index import HOUSE_STREAMS, bucket_of, house_stream
from server.games import ATTENDANCE_MS, GameStore, StoredGame, open_redis
from server.protocol import (
    Colour,
    ErrorCode,
    GameEnded,
    GameStatus,
    MovePlayed,
    Player,
    PlayerKind,
    Presence,
    ProtocolError,
    Termination,
    TimeControl,
    decode_event,
)
from server.referee import start_clock
from server.storage import COMMIT, CommitArgs, CommitKeys, game_key

ANN = Player("ann", PlayerKind.HUMAN)
BOB = Player("bob", PlayerKind.HUMAN)


StoreFactory = Callable[..., GameStore]


@pytest_asyncio.fixture
async def new_store(redis: Redis, redis_url: str) -> AsyncIterator[StoreFactory]:
    """GameStore(**options) on a client of its own, as a server process has."""
    made: list[GameStore] = []

    def make(**options: int) -> GameStore:
        made.append(GameStore(open_redis(redis_url), **options))
        return made[-1]

    yield make
    for store in made:
        await store.redis.aclose()


async def _game(store: GameStore, base: int = 60, now: int = 0) -> str:
    started = await store.create(
        ANN, BOB, time=TimeControl(base, 0), rated=False, now=now, setup="6x6"
    )
    return started.game_id


@pytest.mark.asyncio
async def test_a_first_move_not_made_in_time_aborts_the_game(
    redis: Redis, new_store: StoreFactory
) -> None:
    store = new_store()
    game_id = await _game(store)
    assert await store.due(FIRST_MOVE_MS - 1) == []
    assert await store.expire(game_id, FIRST_MOVE_MS - 1) is None
    assert await store.due(FIRST_MOVE_MS) == [game_id]
    ended = await store.expire(game_id, FIRST_MOVE_MS)
    assert ended is not None
    assert (ended.termination, ended.winner) == (Termination.ABORTED, None)
    assert await store.due(10 * FIRST_MOVE_MS) == []


@pytest.mark.asyncio
async def test_the_clock_runs_from_the_second_move_on_and_flags(
    redis: Redis, new_store: StoreFactory
) -> None:
    store = new_store()
    game_id = await _game(store, base=10)
    await store.play(game_id, "ann", 0, "b1-b4/d4", now=5_000)
    await store.play(game_id, "bob", 1, "e6-e2/f3", now=9_000)
    # White's 10 s run from 9 s; the first moves cost nothing.
    game = await store.load(game_id)
    assert game.clocks(9_000).white == 10_000
    assert game.clocks(12_000).white == 7_000
    assert await store.expire(game_id, 18_999) is None
    late = 30_000
    with pytest.raises(ProtocolError) as refused:
        await store.play(game_id, "ann", 2, "a2-a3/a4", now=late)
    assert refused.value.code is ErrorCode.GAME_OVER
    game = await store.load(game_id)
    assert (game.termination, game.winner) == (Termination.TIME_FORFEIT, Colour.BLACK)
    assert game.final_clocks().white == 0


@pytest.mark.asyncio
async def test_two_processes_playing_the_same_move_play_it_once(
    redis: Redis, new_store: StoreFactory
) -> None:
    first, second = new_store(), new_store()
    game_id = await _game(first)
    results = await asyncio.gather(
        first.play(game_id, "ann", 0, "b1-b4/d4", now=1_000),
        second.play(game_id, "ann", 0, "b1-b4/d4", now=1_000),
    )
    played = [r[0] for r in results]
    assert all(isinstance(e, MovePlayed) for e in played)
    assert played[0].version == played[1].version == 2
    game = await first.load(game_id)
    assert game.moves == ("b1-b4/d4",)
    assert len(await first.events_since(game_id, 0)) == 2


@pytest.mark.asyncio
async def test_two_sweepers_end_a_game_once(redis: Redis, new_store: StoreFactory) -> None:
    stores = [new_store() for _ in range(4)]
    game_id = await _game(stores[0])
    ended = await asyncio.gather(*(s.expire(game_id, FIRST_MOVE_MS) for s in stores))
    assert sum(isinstance(e, GameEnded) for e in ended) == 1
    assert len(await stores[0].events_since(game_id, 0)) == 2


@pytest.mark.asyncio
async def test_a_house_bot_to_move_gets_one_request_per_move(
    redis: Redis, new_store: StoreFactory
) -> None:
    store = new_store()
    house = Player("greedy", PlayerKind.HOUSE)
    started = await store.create(
        ANN,
        house,
        time=TimeControl(60, 0),
        rated=False,
        now=0,
        setup="6x6",
        house=(None, "greedy@5"),
    )
    assert sum([await redis.xlen(s) for s in HOUSE_STREAMS]) == 0  # White (a person) first
    await store.play(started.game_id, "ann", 0, "b1-b4/d4", now=100)
    entries = await redis.xrange(house_stream(bucket_of(started.game_id)))
    assert [(e[1][b"game_id"].decode(), e[1][b"ply"]) for e in entries] == [(started.game_id, b"1")]


@pytest.mark.asyncio
async def test_a_player_whose_server_died_is_away_once_the_attendance_lapses(
    redis: Redis,
    new_store: StoreFactory,
) -> None:
    store = new_store(claim_grace_ms=1_000)
    game_id = await _game(store)
    await store.attend(game_id, Colour.WHITE, "c1", present=True, now=0)
    await store.attend(game_id, Colour.BLACK, "c2", present=True, now=0)
    # Black's process keeps renewing; White's died and renews nothing.
    await store.keep_attending([(game_id, Colour.BLACK, "c2")], now=ATTENDANCE_MS - 1)
    await store.lapse_attendance(ATTENDANCE_MS - 1)
    assert len(await store.events_since(game_id, 0)) == 1  # nobody is away yet
    await store.lapse_attendance(ATTENDANCE_MS)
    frames = await store.events_since(game_id, 1)
    away = decode_event(frames[0])
    assert isinstance(away, Presence)
    assert (away.side, away.online) == (Colour.WHITE, False)
    with pytest.raises(ProtocolError) as early:
        await store.claim(game_id, "bob", ATTENDANCE_MS + 500)
    assert early.value.code is ErrorCode.CONFLICT
    assert early.value.retry_after == 1
    ended = await store.claim(game_id, "bob", ATTENDANCE_MS + 1_000)
    assert isinstance(ended[0], GameEnded)
    assert (ended[0].winner, ended[0].termination) == (Colour.BLACK, Termination.ABANDONED)


@pytest.mark.asyncio
async def test_a_game_stored_with_its_position_as_text_plays_on(
    redis: Redis, new_store: StoreFactory
) -> None:
    # Earlier versions stored the position after the moves as position text, not bytes.
    store = new_store()
    game_id = await _game(store)
    await store.play(game_id, "ann", 0, "b1-b4/d4", now=1_000)
    stored = await store.load(game_id)
    old = msgpack.unpackb(stored.to_bytes())
    old["current"] = stored.state().text()
    await redis.hset(game_key(game_id), "doc", msgpack.packb(old))
    other = new_store()  # nothing cached: the game is read from Redis
    assert (await other.load(game_id)).state() == stored.state()
    await other.play(game_id, "bob", 1, "b6-b5/c5", now=2_000)
    assert (await other.load(game_id)).moves == ("b1-b4/d4", "b6-b5/c5")


def test_a_move_changes_only_the_moves_clock_position_and_version() -> None:
    # Every field set away from its default, so that one with_move forgot would show.
    clock = start_clock(TimeControl(60, 2), ANN, BOB, Colour.WHITE, now=0)
    game = StoredGame(
        "g1",
        ANN,
        BOB,
        SETUPS["6x6"],
        "6x6",
        TimeControl(60, 2),
        True,
        clock,
        created=5,
        moves=("b1-b4/d4",),
        move_ms=(700,),
        clocks_after=((60_000, 60_000),),
        status=GameStatus.ENDED,
        winner=Colour.BLACK,
        termination=Termination.RESIGNATION,
        ended=9,
        version=4,
        house=("greedy", None),
        current=b"before",
        extra={"away": {"white": 3}},
        game="takeaway",
    )
    later, _ = clock.charge(1_000, 0)
    played = game.with_move("b6-b5/c5", 300, (59_000, 60_000), later, b"after")
    changed = {
        "moves": ("b1-b4/d4", "b6-b5/c5"),
        "move_ms": (700, 300),
        "clocks_after": ((60_000, 60_000), (59_000, 60_000)),
        "clock": later,
        "version": 5,
        "current": b"after",
    }
    for field in dataclasses.fields(StoredGame):
        expected = changed.get(field.name, getattr(game, field.name))
        assert getattr(played, field.name) == expected, field.name


@pytest.mark.asyncio
async def test_a_game_stored_before_games_had_names_loads_as_amazons(
    redis: Redis, new_store: StoreFactory
) -> None:
    store = new_store()
    game_id = await _game(store)
    old = msgpack.unpackb((await store.load(game_id)).to_bytes())
    del old["game"]
    await redis.hset(game_key(game_id), "doc", msgpack.packb(old))
    loaded = await new_store().load(game_id)
    assert loaded.game == "amazons"
    assert loaded.snapshot(0).game == "amazons"
    await new_store().play(game_id, "ann", 0, "b1-b4/d4", now=1_000)


@pytest.mark.asyncio
async def test_any_registered_game_is_played_through_the_store(
    redis: Redis, new_store: StoreFactory
) -> None:
    store = new_store()
    started = await store.create(
        ANN, BOB, time=TimeControl(60, 0), rated=False, now=0, game="takeaway", setup="10"
    )
    assert (started.game, started.start, started.to_move) == ("takeaway", "10 w", Colour.WHITE)
    [summary] = await store.live_games(0)
    assert (summary.game, summary.setup) == ("takeaway", "10")
    game_id = started.game_id
    for ply, (name, take) in enumerate([("ann", "3"), ("bob", "3"), ("ann", "2"), ("bob", "1")]):
        [played] = await store.play(game_id, name, ply, take, now=1_000 * (ply + 1))
        assert isinstance(played, MovePlayed)
        assert played.to_move is (Colour.BLACK if ply % 2 == 0 else Colour.WHITE)
    # A second process, with nothing cached, reads the state from its stored bytes.
    assert (await new_store().load(game_id)).state().text() == "1 w"
    with pytest.raises(ProtocolError, match="cannot take 2: take 1 to 1 counters"):
        await store.play(game_id, "ann", 4, "2", now=5_000)
    played, ended = await new_store().play(game_id, "ann", 4, "1", now=5_000)
    assert isinstance(ended, GameEnded)
    assert (ended.termination, ended.winner) == (Termination.NO_LEGAL_MOVE, Colour.WHITE)
    game = await store.load(game_id)
    snapshot = game.snapshot(6_000)
    assert (snapshot.game, snapshot.moves, snapshot.status) == (
        "takeaway",
        ("3", "3", "2", "1", "1"),
        GameStatus.ENDED,
    )
    record = game.record()
    assert (record.game, record.winner, record.moves) == ("takeaway", "white", list(game.moves))
    assert await store.live_games(6_000) == []


def test_the_commit_script_reads_its_keys_and_arguments_by_name() -> None:
    tables, _, body = COMMIT.partition("local first_event")
    assert re.findall(r"(?:KEYS|ARGV)\[\d+\]", body) == []
    assert "args.expected_version" in body
    for field in (*CommitKeys._fields, *CommitArgs._fields):
        assert re.search(rf"\b{field} = (KEYS|ARGV)\[\d+\]", tables), field
