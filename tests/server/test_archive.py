"""`arena archive` over real games: players on real websockets and a real Redis play rated and
casual games, handed over to the server's database, then the archive exports them from there as
game records, once each however often it runs; its filters (player, dates, game, rated, ladder)
pick games, and a bad one is one line."""

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
from server.db import Database, FinishedGame
from server.db.finished_games import copy_finished_games
from server.games import GameStore, StoredGame
from server.identity import create_account
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
    database: Database, out: Path, capsys: pytest.CaptureFixture[str], *options: str
) -> list[str]:
    """`arena archive --out` on the test's database (in a thread: it runs an event loop of its
    own) with `options`; what it printed, among the server's log lines."""
    capsys.readouterr()
    command = ["archive", "--database-url", _url(database), "--out", str(out), *options]
    await asyncio.to_thread(main, command)
    return capsys.readouterr().out.splitlines()


def _url(database: Database) -> str:
    return database.where  # a SQLite file's URL, which has no password to hide


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
    assert f"wrote 3 games to {out}" in await _archive(database, out, capsys)
    records = read_records(out)
    assert [r.game_id for r in records] == [g.game_id for g in (first, second, casual)]
    assert [r.rated for r in records] == [True, True, False]
    # A rated game keeps the ratings that rated it: a new player's first is 1500.
    assert [(r.white_rating, r.black_rating) for r in records] == [
        (1500, 1500),
        ratings,
        (None, None),
    ]
    for line, record in zip(out.read_text().splitlines(), records, strict=True):
        assert record.date is not None
        assert record.date.endswith("Z")
        assert before <= datetime.datetime.fromisoformat(record.date) <= after
        # Ratings nobody has are written as null, not left out.
        assert {"white_rating", "black_rating"} <= json.loads(line).keys()

    assert f"wrote 0 games to {out} (3 already there)" in await _archive(database, out, capsys)
    assert read_records(out) == records
    # Gzipped: each run appends a member, and the file reads as one.
    packed = tmp_path / "games.jsonl.gz"
    assert f"wrote 3 games to {packed}" in await _archive(database, packed, capsys)
    assert f"wrote 0 games to {packed} (3 already there)" in await _archive(
        database, packed, capsys
    )
    assert read_records(packed) == records

    fourth = await _resigned_game(other, visitor, rated=False)
    assert f"wrote 1 game to {out} (3 already there)" in await _archive(database, out, capsys)
    assert [r.game_id for r in read_records(out)] == [
        g.game_id for g in (first, second, casual, fourth)
    ]
    for client in (ann, bob, visitor, other):
        await client.close()


@pytest.mark.asyncio
async def test_archive_refuses_to_append_to_a_file_that_is_not_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], database: Database
) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("a shopping list\n")
    with pytest.raises(SystemExit) as exit_info:
        await _archive(database, out, capsys)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"arena archive: error: {out}:1: not a game record: ")
    assert err.count("\n") == 1
    assert out.read_text() == "a shopping list\n"


@pytest.mark.asyncio
async def test_a_game_other_than_amazons_is_archived_under_its_name(
    redis: Redis, tmp_path: Path, capsys: pytest.CaptureFixture[str], database: Database
) -> None:
    store = GameStore(redis, database=database)
    ann, bob = Player("ann", PlayerKind.GUEST), Player("bob", PlayerKind.GUEST)
    started = await store.create(
        ann, bob, time=TimeControl(60, 0), rated=False, now=0, game="takeaway", setup="10"
    )
    for ply, take in enumerate(["3", "3", "3", "1"]):
        await store.play(started.game_id, ("ann", "bob")[ply % 2], ply, take, now=1_000 * ply)
    out = tmp_path / "games.jsonl"
    assert f"wrote 1 game to {out}" in await _archive(database, out, capsys)
    [record] = read_records(out)
    assert (record.game, record.start, record.moves, record.winner) == (
        "takeaway",
        "10 w",
        ["3", "3", "3", "1"],
        "black",
    )


DAY = 86_400_000
NOV_1 = 1_793_534_400_000  # 2026-11-01 12:00 UTC


async def _takeaway(
    store: GameStore, white: str, black: str, now: int, *, rated: bool = False
) -> StoredGame:
    """A game of takeaway between two bots, begun at `now` and won by Black a second later."""
    players = (Player(white, PlayerKind.BOT), Player(black, PlayerKind.BOT))
    started = await store.create(
        *players, time=TimeControl(60, 0), rated=rated, now=now, game="takeaway", setup="10"
    )
    for ply, take in enumerate(["3", "3", "3", "1"]):
        await store.play(started.game_id, (white, black)[ply % 2], ply, take, now=now + 250 * ply)
    return await store.load(started.game_id)


@pytest.mark.asyncio
async def test_the_archive_picks_games_by_player_date_game_rating_and_ladder(
    redis: Redis, tmp_path: Path, capsys: pytest.CaptureFixture[str], database: Database
) -> None:
    games = GameStore(redis, database=database)
    day = datetime.datetime.fromtimestamp(NOV_1 / 1000, datetime.UTC).date()
    first = await _takeaway(games, "ada", "bea", NOV_1)
    second = await _takeaway(games, "Bea", "cy", NOV_1 + DAY, rated=True)
    third = await _takeaway(games, "cy", "ada", NOV_1 + 2 * DAY)
    amazons = await games.create(
        Player("ada", PlayerKind.BOT),
        Player("cy", PlayerKind.BOT),
        time=TimeControl(60, 0),
        rated=False,
        now=NOV_1 + DAY,
        setup="6x6",
    )
    await games.resign(amazons.game_id, "ada", NOV_1 + DAY + 1_000)
    # Ladder games as the ladders hand them over: with their ladder (server/db/ladders.py).
    ladder_games = [
        await _takeaway(GameStore(redis), white, black, NOV_1 + 3 * DAY + k)
        for k, (white, black) in enumerate([("ada", "cy"), ("bea", "ada")])
    ]
    await copy_finished_games(database, [FinishedGame.of(game, "fast") for game in ladder_games])

    async def picked(*options: str) -> list[str]:
        out = tmp_path / f"picked-{len(list(tmp_path.iterdir()))}.jsonl"
        await _archive(database, out, capsys, *options)
        return [record.game_id or "" for record in read_records(out)] if out.exists() else []

    ids = [game.game_id for game in (first, second, third, *ladder_games)]
    assert await picked() == [ids[0], ids[1], amazons.game_id, *ids[2:]]
    assert await picked("--player", "BEA") == [ids[0], ids[1], ids[4]]
    assert await picked("--since", str(day + datetime.timedelta(days=2))) == ids[2:]
    assert await picked("--until", str(day)) == [ids[0]]
    assert await picked(
        "--since",
        str(day + datetime.timedelta(days=1)),
        "--until",
        str(day + datetime.timedelta(days=2)),
    ) == [ids[1], amazons.game_id, ids[2]]
    assert await picked("--game", "amazons") == [amazons.game_id]
    assert await picked("--rated") == [ids[1]]
    assert await picked("--unrated", "--player", "cy", "--game", "takeaway") == [ids[2], ids[3]]
    assert await picked("--ladder", "FAST") == ids[3:]
    assert await picked("--ladder", "slow") == []


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (["--since", "2026-13-01"], "argument --since: not a date (YYYY-MM-DD): '2026-13-01'"),
        (["--until", "yesterday"], "argument --until: not a date (YYYY-MM-DD): 'yesterday'"),
        (
            ["--since", "2026-11-02", "--until", "2026-11-01"],
            "--until 2026-11-01 is before --since 2026-11-02",
        ),
        (
            ["--game", "chess"],
            "argument --game: no game 'chess'; the games are amazons, bao, takeaway",
        ),
        (["--rated", "--unrated"], "argument --unrated: not allowed with argument --rated"),
    ],
)
def test_bad_filters_are_one_line(
    options: list[str], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["archive", "--data-dir", str(tmp_path), *options])
    assert exit_info.value.code == 2
    # argparse's usage, then the one line saying what is wrong.
    assert capsys.readouterr().err.splitlines()[-1] == f"arena archive: error: {problem}"
