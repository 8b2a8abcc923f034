"""`arena archive` over real games: players on real websockets and a real Redis play rated and
casual games, then the archive exports them as game records, once each however often it runs;
with `--ladder` only the games that ladder started."""

from __future__ import annotations

import asyncio
import datetime
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from clients import ArenaClient
from engine.records import read_records
from server.cli import main
from server.db import Database
from server.games import GameStore
from server.identity import create_account
from server.ladder.pairing import Pairing
from server.ladder.store import LadderStore
from server.protocol import (
    AcceptSeek,
    ColourPreference,
    GameStarted,
    Player,
    PlayerKind,
    PlayMove,
    Resign,
    Seek,
    TimeControl,
)
from tests.server.endpoint import guest, serving


@pytest_asyncio.fixture
async def arena_url(redis: Redis, redis_url: str, database: Database) -> AsyncIterator[str]:
    async with serving(redis_url) as url:
        yield url


async def _login(url: str, name: str) -> tuple[ArenaClient, int | None]:
    """A connection logged in as `name`, and the rating the server greeted it with."""
    client = await ArenaClient.connect(url)
    welcome = await client.login(name, f"{name}-password")
    return client, welcome.user.rating


async def _resigned_game(white: ArenaClient, black: ArenaClient, rated: bool) -> GameStarted:
    """White seeks, Black accepts; White makes a move and Black resigns."""
    seek = Seek(TimeControl(300, 0), setup="6x6", rated=rated, colour=ColourPreference.WHITE)
    added = await white.request(seek)
    started: GameStarted = await black.request(AcceptSeek(added.seek.seek_id), GameStarted)
    await white.wait_for(lambda c: started.game_id in c.games)
    await white.request(PlayMove(started.game_id, 0, "b1-b2/b3"))
    await black.request(Resign(started.game_id))
    return started


async def _archive(
    redis_url: str, out: Path, capsys: pytest.CaptureFixture[str], *options: str
) -> list[str]:
    """`arena archive --out` (in a thread: it runs an event loop of its own) with `options`;
    what it printed, among the server's log lines."""
    capsys.readouterr()
    command = ["archive", "--redis-url", redis_url, "--out", str(out), *options]
    await asyncio.to_thread(main, command)
    return capsys.readouterr().out.splitlines()


@pytest.mark.asyncio
async def test_archived_records_carry_id_date_rating_and_are_written_once(
    arena_url: str,
    redis: Redis,
    redis_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    database: Database,
) -> None:
    for name in ("ann", "bob"):
        await create_account(database, name, f"{name}-password")
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    (ann, _), (bob, _) = await _login(arena_url, "ann"), await _login(arena_url, "bob")
    first = await _resigned_game(ann, bob, rated=True)  # neither has a rating yet
    await ann.close()
    await bob.close()
    # Logged in again, each is greeted with the rating the first game gave.
    ann, ann_rating = await _login(arena_url, "ann")
    bob, bob_rating = await _login(arena_url, "bob")
    ratings = (ann_rating, bob_rating)
    assert None not in ratings
    second = await _resigned_game(ann, bob, rated=True)
    visitor, other = await guest(arena_url), await guest(arena_url)
    casual = await _resigned_game(visitor, other, rated=False)
    after = datetime.datetime.now(datetime.UTC)

    out = tmp_path / "games.jsonl"
    assert f"wrote 3 games to {out}" in await _archive(redis_url, out, capsys)
    records = read_records(out)
    assert [r.game_id for r in records] == [g.game_id for g in (first, second, casual)]
    assert [r.rated for r in records] == [True, True, False]
    assert [(r.white_rating, r.black_rating) for r in records] == [
        (None, None),
        ratings,
        (None, None),
    ]
    for line, record in zip(out.read_text().splitlines(), records, strict=True):
        assert record.date is not None
        assert record.date.endswith("Z")
        assert before <= datetime.datetime.fromisoformat(record.date) <= after
        # Ratings nobody has are written as null, not left out.
        assert {"white_rating", "black_rating"} <= json.loads(line).keys()

    assert f"wrote 0 games to {out} (3 already there)" in await _archive(redis_url, out, capsys)
    assert read_records(out) == records
    # Gzipped: each run appends a member, and the file reads as one.
    packed = tmp_path / "games.jsonl.gz"
    assert f"wrote 3 games to {packed}" in await _archive(redis_url, packed, capsys)
    assert f"wrote 0 games to {packed} (3 already there)" in await _archive(
        redis_url, packed, capsys
    )
    assert read_records(packed) == records

    fourth = await _resigned_game(other, visitor, rated=False)
    assert f"wrote 1 game to {out} (3 already there)" in await _archive(redis_url, out, capsys)
    assert [r.game_id for r in read_records(out)] == [
        g.game_id for g in (first, second, casual, fourth)
    ]
    for client in (ann, bob, visitor, other):
        await client.close()


@pytest.mark.asyncio
async def test_archive_refuses_to_append_to_a_file_that_is_not_records(
    redis: Redis, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("a shopping list\n")
    with pytest.raises(SystemExit) as exit_info:
        await _archive(redis_url, out, capsys)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"arena archive: error: {out}:1: not a game record: ")
    assert err.count("\n") == 1
    assert out.read_text() == "a shopping list\n"


@pytest.mark.asyncio
async def test_a_game_other_than_amazons_is_archived_under_its_name(
    redis: Redis, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = GameStore(redis)
    ann, bob = Player("ann", PlayerKind.GUEST), Player("bob", PlayerKind.GUEST)
    started = await store.create(
        ann, bob, time=TimeControl(60, 0), rated=False, now=0, game="takeaway", setup="10"
    )
    for ply, take in enumerate(["3", "3", "3", "1"]):
        await store.play(started.game_id, ("ann", "bob")[ply % 2], ply, take, now=1_000 * ply)
    out = tmp_path / "games.jsonl"
    assert f"wrote 1 game to {out}" in await _archive(redis_url, out, capsys)
    [record] = read_records(out)
    assert (record.game, record.start, record.moves, record.winner) == (
        "takeaway",
        "10 w",
        ["3", "3", "3", "1"],
        "black",
    )


async def _takeaway(store: GameStore, white: str, black: str, now: int, *, end: bool) -> str:
    """A game of takeaway between two bots, played to its end (Black wins) when `end`."""
    players = (Player(white, PlayerKind.BOT), Player(black, PlayerKind.BOT))
    started = await store.create(
        *players, time=TimeControl(60, 0), rated=False, now=now, game="takeaway", setup="10"
    )
    for ply, take in enumerate(["3", "3", "3", "1"] if end else ["3"]):
        await store.play(started.game_id, (white, black)[ply % 2], ply, take, now=now + ply)
    return started.game_id


@pytest.mark.asyncio
async def test_a_ladders_archive_has_only_the_finished_games_it_started(
    redis: Redis, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games, ladders = GameStore(redis), LadderStore(redis)
    await ladders.ensure_defaults()
    # Started by `fast` in this order, ending in the other: the archive lists them as they ended.
    later = await _takeaway(games, "ada", "bea", 1_000, end=False)
    for ply, take in enumerate(["3", "3", "1"], start=1):
        await games.play(later, ("ada", "bea")[ply % 2], ply, take, now=9_000 + ply)
    earlier = await _takeaway(games, "bea", "cy", 2_000, end=True)
    under_way = await _takeaway(games, "cy", "ada", 3_000, end=False)
    elsewhere = await _takeaway(games, "ada", "cy", 4_000, end=True)
    on_main = await _takeaway(games, "cy", "bea", 5_000, end=True)
    for game_id in (later, earlier, under_way):
        await ladders.started("fast", Pairing("x", "y"), game_id)
    await ladders.started("main", Pairing("x", "y"), on_main)

    out = tmp_path / "fast.jsonl"
    assert f"wrote 2 games to {out}" in await _archive(redis_url, out, capsys, "--ladder", "FAST")
    assert [record.game_id for record in read_records(out)] == [earlier, later]
    assert elsewhere not in out.read_text()

    with pytest.raises(SystemExit) as exit_info:
        await _archive(redis_url, tmp_path / "none.jsonl", capsys, "--ladder", "slow")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err == "arena archive: error: no ladder slow; the ladders are bao, fast, main\n"
