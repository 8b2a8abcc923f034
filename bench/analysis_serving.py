"""Analysis as a spectator gets it: `arena serve --workers 1` (its own Redis, its one worker
judging positions beside its house bots), two guests playing the moves of a recorded 10x10
game and spectators asking `analyze` for each new position as its `move_played` arrives.

Figures: the time from a move sent to the first spectator's evaluation of the position it made
(median and p99, from the third move: each side's first is played at once), with one spectator
and with many; with many, how many of their requests the cache answered (the worker's
judgements counted in Redis, one key a position) and the time until the last of them had it;
the bytes a judgement takes in Redis (MEMORY USAGE); the machine's load before and after.

Run from the repository root: python -m bench.analysis_serving [--plies N] [--spectators N].
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from redis.asyncio import from_url

from bench.serving import arena_serve
from clients import ArenaClient, ArenaError
from engine.records import read_record
from server.protocol import (
    AcceptSeek,
    Analysis,
    Analyze,
    ColourPreference,
    ErrorCode,
    GameStarted,
    MovePlayed,
    PlayMove,
    Seek,
    SeekAdded,
    TimeControl,
    Watch,
)
from server.redis_embedded import SOCKET_NAME

RECORDS = Path("docs/data/fit-games.jsonl.gz")
JUDGEMENTS = "an:{an:*}:judgement"


def _p99(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, round(0.99 * (len(values) - 1)))]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


async def _guest(url: str) -> ArenaClient:
    client = await ArenaClient.connect(url)
    await client.guest()
    return client


async def _analysed(client: ArenaClient, request: Analyze) -> Analysis:
    """The analysis, asked again while no worker is up yet (the first start compiles)."""
    while True:
        try:
            return await client.request(request, Analysis)
        except ArenaError as refused:
            if refused.reply.code is not ErrorCode.UNAVAILABLE:
                raise
            await asyncio.sleep(1)


async def _game(url: str, moves: list[str], spectators: int) -> tuple[list[float], list[float]]:
    """Play `moves` with `spectators` watching, each asking for every position as its move
    arrives: the seconds from each move sent to the first and to the last evaluation."""
    white, black = await _guest(url), await _guest(url)
    watchers = [await _guest(url) for _ in range(spectators)]
    seek = Seek(TimeControl(3600, 0), setup="10x10", colour=ColourPreference.WHITE)
    added = await white.request(seek, SeekAdded)
    started = await black.request(AcceptSeek(added.seek.seek_id), GameStarted)
    game_id = started.game_id
    for watcher in watchers:
        await watcher.request(Watch(game_id))
    # Each side's first move at once: a first move has a window of its own (30 s), which a
    # loaded machine's evaluation could outlast.
    for ply, move in enumerate(moves[:2]):
        await (white, black)[ply].request(PlayMove(game_id, ply, move), MovePlayed)
    firsts, lasts = [], []
    for ply, move in enumerate(moves[2:], 2):
        sent = time.perf_counter()

        async def evaluate(watcher: ArenaClient, ply: int = ply, sent: float = sent) -> float:
            await watcher.wait_for(lambda c: c.games[game_id].ply > ply, timeout=60)
            await _analysed(watcher, Analyze(game_id=game_id, ply=ply + 1))
            return time.perf_counter() - sent

        waiting = [asyncio.create_task(evaluate(w)) for w in watchers]
        await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move), MovePlayed)
        times = await asyncio.gather(*waiting)
        firsts.append(min(times))
        lasts.append(max(times))
    for client in (white, black, *watchers):
        await client.close()
    return firsts, lasts


async def _run(args: argparse.Namespace) -> None:
    record = read_record(args.record, args.game)
    moves = list(record.moves[: args.plies])
    with tempfile.TemporaryDirectory(prefix="arena-", dir="/tmp") as folder:
        data = Path(folder)
        with arena_serve(data, workers=1, log=data / "serve.log") as url:
            redis = from_url(f"unix://{data / SOCKET_NAME}")
            first = await _guest(url)
            began = time.perf_counter()
            await _analysed(first, Analyze(record.replay(0).text()))
            print(
                f"first analysis after the start (worker up, kernels loaded): "
                f"{time.perf_counter() - began:.1f} s"
            )
            await first.close()
            for spectators in (1, args.spectators):
                async for key in redis.scan_iter(JUDGEMENTS):  # every position judged anew
                    await redis.delete(key)
                before = _load()
                firsts, lasts = await _game(url, moves, spectators)
                keys = [key async for key in redis.scan_iter(JUDGEMENTS)]
                sizes = [int(await redis.memory_usage(key) or 0) for key in keys]
                asked = spectators * len(firsts)
                print(
                    f"\n{spectators} spectator(s), {len(moves)} plies of game {args.game} "
                    f"({before}; after: {_load()})"
                )
                print(
                    f"  move to first evaluation: median {statistics.median(firsts):.2f} s, "
                    f"p99 {_p99(firsts):.2f} s, slowest {max(firsts):.2f} s"
                )
                if spectators > 1:
                    print(
                        f"  move to the last spectator's: median {statistics.median(lasts):.2f}"
                        f" s, p99 {_p99(lasts):.2f} s"
                    )
                print(
                    f"  requests {asked}, positions judged {len(keys)}, answered from the "
                    f"cache {asked - len(keys)} ({(asked - len(keys)) / asked:.0%})"
                )
                print(
                    f"  a judgement in Redis: median {statistics.median(sizes):.0f} bytes, "
                    f"largest {max(sizes)}"
                )
            await redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--record", type=Path, default=RECORDS, help="a file of game records")
    parser.add_argument("--game", type=int, default=11, help="the game in the file, from 1")
    parser.add_argument("--plies", type=int, default=40, help="the game's first N plies")
    parser.add_argument("--spectators", type=int, default=50, help="spectators in the second run")
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
