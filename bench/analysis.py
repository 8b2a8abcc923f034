"""Analysis speed: every position of a recorded 10x10 game judged by one process (engine.judge
at the default effort, as `arena analyze --record` and the server's workers judge), with the
time of each position (median and p99, over all of them and over those still open, where the
search runs) and of the whole game, and the machine's load before and after.

Run from the repository root: python -m bench.analysis [--record FILE] [--game N] [--effort N].
The default game is game 11 of docs/data/fit-games.jsonl.gz, 90 plies between two bots.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from engine.judge import DEFAULT_EFFORT, judge, review, summary
from engine.records import read_record

RECORDS = Path("docs/data/fit-games.jsonl.gz")


def _p99(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, round(0.99 * (len(values) - 1)))]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--record", type=Path, default=RECORDS, help="a file of game records")
    parser.add_argument("--game", type=int, default=11, help="the game in the file, from 1")
    parser.add_argument("--effort", type=int, default=DEFAULT_EFFORT, help="the judge's effort")
    args = parser.parse_args()
    record = read_record(args.record, args.game)
    state = record.replay(0)
    texts = [state.text()]
    for move in record.moves:
        state.apply(state.parse_move(move))
        texts.append(state.text())
    print(f"game {args.game} of {args.record}: {record.game}, {len(record.moves)} plies")
    print(f"before: {_load()}")
    start = time.perf_counter()
    judge(record.game, texts[0], effort=1)
    first = time.perf_counter() - start
    print(f"first judgement in the process (numba's cache loaded): {first:.2f} s")
    seconds, cpu, judgements = [], [], []
    start, start_cpu = time.perf_counter(), time.process_time()
    for text in texts:
        began, began_cpu = time.perf_counter(), time.process_time()
        judgements.append(judge(record.game, text, effort=args.effort))
        seconds.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
    reviews = review(record.moves, judgements)
    white, black = summary(reviews)
    total, total_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    open_seconds = [s for s, j in zip(seconds, judgements, strict=True) if not j.exact]
    print(f"after: {_load()}")
    open_cpu = [s for s, j in zip(cpu, judgements, strict=True) if not j.exact]
    print(f"effort {args.effort}: {len(texts)} positions, wall-clock (CPU) seconds each:")
    for label, wall, used in (
        ("all", seconds, cpu),
        (f"the {len(open_seconds)} not solved (searched)", open_seconds, open_cpu),
    ):
        if wall:
            print(
                f"  {label}: median {statistics.median(wall):.3f} ({statistics.median(used):.3f}),"
                f" p99 {_p99(wall):.3f} ({_p99(used):.3f}), most {max(wall):.3f} ({max(used):.3f})"
            )
    slowest = sorted(range(len(texts)), key=lambda ply: -seconds[ply])[:5]
    print(
        "  slowest: "
        + ", ".join(f"ply {ply} {seconds[ply]:.2f} ({cpu[ply]:.2f})" for ply in slowest)
    )
    exact_from = next((ply for ply, j in enumerate(judgements) if j.exact), None)
    print(f"  exact from ply {exact_from}")
    print(f"whole game judged and reviewed by one process: {total:.1f} s ({total_cpu:.1f} s CPU)")
    for player in (white, black):
        print(
            f"  {player.player}: {player.inaccuracies} inaccuracies, {player.mistakes} mistakes, "
            f"{player.blunders} blunders, average loss {100 * player.average_loss:.1f}%"
        )


if __name__ == "__main__":
    main()
