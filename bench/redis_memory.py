"""Redis's memory as games come and go: short games played through `arena serve` over the real
protocol, and Redis's `used_memory` (INFO memory) read as they start and after they end, to see
whether Redis stays the size of what is live.

The server runs on its embedded Redis in a data folder made for the run. Tables of two guests,
seated once, play waves of games: in each wave every table seeks and accepts a 6x6 game, its
players make a few moves of a random legal game, and once every table's game is in play (the
wave's peak) one player of each resigns. Redis's memory is read with the server up and nothing
seated, with every table seated (the start), at each wave's peak, after every game has ended
and, with `--settle S`, S seconds later: a server keeps a finished game in Redis for a window
after its hand-over to the database (`arena serve --ended-window`, 300 s by default), which
`--window S` shortens, through $ARENA_ENDED_WINDOW, for the servers the run starts (a checkout
from before the window ignores it), waiting then S + SETTLE_MARGIN seconds unless `--settle`
says otherwise; each of these but the peaks after `--quiet` seconds without traffic, as are the
readings just before three waves (the first, the middle one, the last; with `--window`, the
window waited out first) and at their peaks, whose difference over the games in play is the
memory a live game holds. What is left above the start is what finished games keep in Redis;
the keys are then counted and sized by kind (`MEMORY USAGE`), with how many of them will expire
by themselves.

With `--source PATH` (given again for each) the server is started from each checkout in turn,
each on a fresh Redis, and the figures are printed side by side: export one with
`git archive COMMIT | tar -x -C DIR` and run the server from there (`python -m server.cli`
in that folder imports its code; this program's environment must hold its dependencies).

Run from the repository root: python -m bench.redis_memory [--games N] [--live L] [--plies P]
[--window S] [--settle S] [--quiet S] [--source PATH ...]. Progress goes to stderr; the figures
to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, TypeVar

import redis.asyncio as aioredis

from bench.server_load import random_games
from bench.serving import arena_serve
from clients.connection import ArenaClient, ArenaError
from server.protocol import (
    AcceptSeek,
    ErrorCode,
    Event,
    GameEnded,
    GameStarted,
    MovePlayed,
    PlayMove,
    Request,
    Resign,
    Seek,
    SeekAdded,
    TimeControl,
)
from server.redis_embedded import EmbeddedRedis

SETUP = "6x6"
TIME = TimeControl(300, 0)
SCRIPTS = 64  # random games the tables replay in turn
CONNECTS_AT_ONCE = 32  # guests logging in at once while the tables are seated
PROGRESS_SECONDS = 2.0
# Redis trims a connection's input buffer once it has been idle 2 s: the server's connections
# hold up to tens of KB each just after a burst of commands, which would swamp the keys' bytes.
# The readings the figures come from are taken this long after the traffic stops (--quiet).
QUIET_SECONDS = 3.0
# After the window, for Redis to have deleted the expired keys (it does so a batch at a time,
# ten times a second) and trimmed the buffers of the connections that did.
SETTLE_MARGIN = 10.0
MIB = 1024 * 1024
SCAN_BATCH = 1000  # keys sized per pipeline in the census
TAG = re.compile(r"\{(\w+):[^}]*\}")  # a game's or a user's hash tag: {g:ID}, {u:NAME}
# A part of a key's name that names one thing of its kind: a guest (guest-12), an id of random
# letters and digits (a seek's, a session's), told from the kind's own words by its digits,
# capitals or underscores.
VARYING = re.compile(r"[0-9A-Z_]")

# What Redis's MEMORY STATS says its memory at the end holds besides the keys' values.
STATS = (
    "dataset.bytes",
    "overhead.total",
    "clients.normal",
    "aof.buffer",
    "lua.caches",
)

E = TypeVar("E", bound=Event)


@dataclass
class Kind:
    """Keys of one kind in Redis (see `kind_of`)."""

    name: str
    keys: int = 0
    bytes: int = 0
    expiring: int = 0  # keys with a time to live


class Reading(NamedTuple):
    """Redis's memory at one moment (INFO memory), in bytes: `used` is `used_memory`, all it
    has allocated; `dataset` is `used_memory_dataset`, what its keys hold, without the
    buffers of its connections, which come and go with the traffic."""

    used: int
    dataset: int

    def __sub__(self, other: tuple[int, ...]) -> Reading:
        return Reading(self.used - other[0], self.dataset - other[1])


NOTHING = Reading(0, 0)


@dataclass
class Figures:
    """What one source's run measured."""

    source: str
    games: int = 0
    empty: Reading = NOTHING
    seated: Reading = NOTHING
    peak: Reading = NOTHING
    live: int = 0  # games in play at once, one a table
    per_live_game: list[Reading] = field(default_factory=list)  # one a wave, over its games
    ended: Reading = NOTHING
    settled: Reading | None = None
    settle_seconds: float = 0.0
    keys_seated: int = 0
    keys_ended: int = 0
    kinds: list[Kind] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)  # MEMORY STATS at the end (STATS)

    @property
    def kept(self) -> Reading:
        """What the finished games left in Redis: the last reading above the seated one."""
        return (self.ended if self.settled is None else self.settled) - self.seated


class Table:
    """Two guests who play one game a wave: `a` seeks, `b` accepts, the side to move plays
    the script's moves in turn, and `a` resigns."""

    def __init__(self, a: ArenaClient, b: ArenaClient) -> None:
        self.a, self.b = a, b
        self.game_id = ""

    async def start(self, script: Sequence[str], plies: int) -> None:
        """A game begun and `plies` moves into it (fewer when the script ends sooner: its last
        move would end the game)."""
        added = await _ask(self.a, Seek(TIME, setup=SETUP), SeekAdded)
        started = await _ask(self.b, AcceptSeek(added.seek.seek_id), GameStarted)
        self.game_id = started.game_id
        assert self.a.user is not None
        white_is_a = started.white.name == self.a.user.name
        players = (self.a, self.b) if white_is_a else (self.b, self.a)
        for ply, move in enumerate(script[: min(plies, len(script) - 1)]):
            await _ask(players[ply % 2], PlayMove(self.game_id, ply, move), MovePlayed)

    async def resign(self) -> None:
        await _ask(self.a, Resign(self.game_id), GameEnded)

    async def close(self) -> None:
        await asyncio.gather(self.a.close(), self.b.close())


async def _ask(client: ArenaClient, request: Request, expect: type[E]) -> E:
    """`request`'s reply, sent again when refused `rate_limited` (a refused request did
    nothing, so sending it again is safe)."""
    while True:
        try:
            return await client.request(request, expect)
        except ArenaError as error:
            if error.code is not ErrorCode.RATE_LIMITED:
                raise
            await asyncio.sleep(error.reply.retry_after or 1)


async def _guest(url: str, limit: asyncio.Semaphore) -> ArenaClient:
    async with limit:
        client = await ArenaClient.connect(url, "bench.redis_memory")
        await client.guest()
        return client


async def _read(redis: aioredis.Redis) -> Reading:
    info = await redis.info("memory")
    return Reading(int(info["used_memory"]), int(info["used_memory_dataset"]))


def kind_of(name: str) -> str:
    """A key's kind: its name with the parts that vary from key to key of the same kind (a
    game's or a user's hash tag, a user's name, an id) as `*`."""
    name = TAG.sub(r"{\1:*}", name)
    return ":".join("*" if VARYING.search(part) else part for part in name.split(":"))


async def _census(redis: aioredis.Redis) -> list[Kind]:
    """The keys in Redis by kind: how many, their bytes by `MEMORY USAGE`, and how many will
    expire; the most bytes first."""
    kinds: dict[str, Kind] = {}

    async def size(batch: list[bytes]) -> None:
        async with redis.pipeline(transaction=False) as pipe:
            for name in batch:
                pipe.memory_usage(name, samples=0)
                pipe.pttl(name)
            replies = await pipe.execute()
        for k, name in enumerate(batch):
            usage, ttl = replies[2 * k : 2 * k + 2]
            kind = kind_of(name.decode(errors="replace"))
            found = kinds.setdefault(kind, Kind(kind))
            found.keys += 1
            found.bytes += usage or 0
            found.expiring += ttl > 0

    names: list[bytes] = []
    async for name in redis.scan_iter(count=SCAN_BATCH):
        names.append(name)
        if len(names) == SCAN_BATCH:
            await size(names)
            names = []
    await size(names)
    for name, kind in list(kinds.items()):
        # An id of lower-case letters alone is taken for a name: a kind of one key that
        # differs from another kind only in its last part belongs to that kind.
        same = kinds.get(name.rpartition(":")[0] + ":*")
        if kind.keys == 1 and same is not None and same is not kind:
            same.keys += 1
            same.bytes += kind.bytes
            same.expiring += kind.expiring
            del kinds[name]
    return sorted(kinds.values(), key=lambda kind: -kind.bytes)


async def _measure(url: str, redis_url: str, figures: Figures, args: argparse.Namespace) -> None:
    scripts = random_games(SETUP, SCRIPTS, args.seed)
    redis = aioredis.from_url(redis_url)
    tables: list[Table] = []

    async def quiet() -> Reading:
        await asyncio.sleep(args.quiet)
        return await _read(redis)

    try:
        figures.empty = await quiet()
        limit = asyncio.Semaphore(CONNECTS_AT_ONCE)
        guests = await asyncio.gather(*(_guest(url, limit) for _ in range(2 * args.live)))
        tables = [Table(guests[k], guests[k + 1]) for k in range(0, len(guests), 2)]
        figures.live = len(tables)
        figures.seated = await quiet()
        figures.keys_seated = await redis.dbsize()
        waves = -(-args.games // len(tables))
        measured = {0, waves // 2, waves - 1}
        started = time.monotonic()
        shown = started
        for wave in range(waves):
            playing = tables[: min(len(tables), args.games - figures.games)]
            if wave in measured and wave > 0 and args.window is not None:
                # Else the earlier games that leave Redis meanwhile are taken off this wave's.
                _progress(f"{figures.source}: waiting out the window before wave {wave + 1}")
                await asyncio.sleep(args.window + SETTLE_MARGIN)
            before = await quiet() if wave in measured else None
            await asyncio.gather(
                *(
                    table.start(scripts[(wave * len(tables) + k) % len(scripts)], args.plies)
                    for k, table in enumerate(playing)
                )
            )
            peak = await _read(redis)
            if peak.used > figures.peak.used:
                figures.peak = peak
            if before is not None:
                growth = await quiet() - before
                figures.per_live_game.append(
                    Reading(growth.used // len(playing), growth.dataset // len(playing))
                )
            await asyncio.gather(*(table.resign() for table in playing))
            figures.games += len(playing)
            now = time.monotonic()
            if now - shown >= PROGRESS_SECONDS or wave == waves - 1:
                shown = now
                rate = figures.games / (now - started)
                _progress(
                    f"{figures.source}: {figures.games:,} of {args.games:,} games "
                    f"({rate:,.0f}/s), used_memory {peak.used / MIB:.1f} MiB, "
                    f"ETA {(args.games - figures.games) / rate:.0f} s"
                )
        figures.ended = await quiet()
        if args.settle > 0:
            _progress(f"{figures.source}: waiting {args.settle:g} s for the settle window")
            await asyncio.sleep(args.settle)
            figures.settled = await quiet()
            figures.settle_seconds = args.settle
        figures.keys_ended = await redis.dbsize()
        figures.kinds = await _census(redis)
        found = await redis.memory_stats()
        figures.stats = {name: int(found.get(name, 0)) for name in STATS}
        # The tables of keys and of their expiry times, sized for the most keys there were.
        for name, value in (found.get("db.0") or {}).items():
            figures.stats[f"db.0 {name}"] = int(value)
    finally:
        await asyncio.gather(*(table.close() for table in tables))
        await redis.aclose()


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(source: Path, args: argparse.Namespace) -> Figures:
    """Start `arena serve` from `source` on a fresh embedded Redis and measure it."""
    figures = Figures(str(source))
    if args.window is not None:
        os.environ["ARENA_ENDED_WINDOW"] = f"{args.window:g}"  # the server's `--ended-window`
    with tempfile.TemporaryDirectory(prefix="arena-redis-memory-") as folder:
        data = Path(folder)
        log = data / "serve.log"
        try:
            with arena_serve(data, log=log, source=source) as url:
                asyncio.run(_measure(url, EmbeddedRedis(data).url, figures, args))
        except BaseException:
            if log.exists():
                _progress(f"{source}: the server's log ends:\n{log.read_text()[-3000:]}")
            raise
    return figures


def _mib(reading: Reading) -> str:
    return f"{reading.used / MIB:,.2f} MiB ({reading.dataset / MIB:,.2f})"


def _bytes(reading: Reading) -> str:
    return f"{reading.used:,} B ({reading.dataset:,})"


def report(runs: Sequence[Figures], plies: int) -> None:
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"\nRedis's used_memory (and used_memory_dataset), {runs[0].games:,} games of {SETUP} "
        f"({plies} plies, then a resignation), {runs[0].live:,} at once; load average "
        f"{load}\n"
    )

    def median(readings: Sequence[Reading]) -> Reading:
        return Reading(
            round(statistics.median(r.used for r in readings)),
            round(statistics.median(r.dataset for r in readings)),
        )

    rows: list[tuple[str, list[str]]] = [
        ("source", [figures.source for figures in runs]),
        ("server up, nothing seated", [_mib(f.empty) for f in runs]),
        ("tables seated (the start)", [_mib(f.seated) for f in runs]),
        ("peak", [_mib(f.peak) for f in runs]),
        ("per live game (median of waves)", [_bytes(median(f.per_live_game)) for f in runs]),
        ("after every game ended", [_mib(f.ended) for f in runs]),
    ]
    if any(f.settled is not None for f in runs):
        rows.append(
            (
                "after the settle window",
                [
                    "-" if f.settled is None else f"{_mib(f.settled)}, {f.settle_seconds:g} s"
                    for f in runs
                ],
            )
        )
    rows += [
        ("kept above the start", [_mib(f.kept) for f in runs]),
        (
            "kept per finished game",
            [_bytes(Reading(f.kept.used // f.games, f.kept.dataset // f.games)) for f in runs],
        ),
        ("keys seated / ended", [f"{f.keys_seated:,} / {f.keys_ended:,}" for f in runs]),
    ]
    width = max(len(name) for name, _ in rows)
    columns = [max(len(row[1][k]) for row in rows) for k in range(len(runs))]
    for name, values in rows:
        cells = "  ".join(value.rjust(columns[k]) for k, value in enumerate(values))
        print(f"{name:<{width}}  {cells}")
    for figures in runs:
        stats = ", ".join(f"{name} {value:,}" for name, value in figures.stats.items())
        print(f"\nMEMORY STATS at the end ({figures.source}), bytes: {stats}")
        print(f"\nkeys after every game ended, by kind ({figures.source}):")
        print(f"  {'keys':>8} {'bytes':>12} {'per game':>9} {'expiring':>8}  kind")
        for kind in figures.kinds:
            per_game = kind.bytes / figures.games
            print(
                f"  {kind.keys:>8,} {kind.bytes:>12,} {per_game:>9,.0f} {kind.expiring:>8,}  "
                f"{kind.name}"
            )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000, help="games in all (default 20000)")
    parser.add_argument(
        "--live", type=int, default=100, help="tables, so games in play at once (default 100)"
    )
    parser.add_argument("--plies", type=int, default=4, help="moves before resigning (default 4)")
    parser.add_argument(
        "--window",
        type=float,
        help="seconds a finished game stays in the servers' Redis after its hand-over "
        "(default: the server's own, 300)",
    )
    parser.add_argument(
        "--settle",
        type=float,
        help="seconds to wait after the last game before the last reading (default: with "
        f"--window, the window and {SETTLE_MARGIN:g} s, else 0)",
    )
    parser.add_argument(
        "--source",
        type=Path,
        action="append",
        help="a checkout to run the server from; again for each (default: this one)",
    )
    parser.add_argument(
        "--quiet",
        type=float,
        default=QUIET_SECONDS,
        help=f"seconds without traffic before a reading (default {QUIET_SECONDS:g})",
    )
    parser.add_argument("--seed", type=int, default=1, help="for the random games")
    args = parser.parse_args(argv)
    for name in ("games", "live"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.window is not None and not 0 < args.window <= 86400:
        parser.error("--window must be more than 0 and at most 86400 s")
    if args.settle is None:
        args.settle = 0.0 if args.window is None else args.window + SETTLE_MARGIN
    for name in ("plies", "settle", "quiet"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} cannot be negative")
    sources = args.source or [Path.cwd()]
    for source in sources:
        if not (source / "server" / "cli.py").is_file():
            parser.error(f"--source {source}: no server/cli.py there")
    report([run(source.resolve(), args) for source in sources], args.plies)


if __name__ == "__main__":
    main()
