"""CGT library speed: the census of games born by days 1-3, sums and comparisons of day-3 games
(cold: values met for the first time; warm: answered from the caches), and the same sums and
comparisons in cgt-py (Rust) when it is installed; then the canonical form of an Amazons
position (CGSuite's benchmark, B6/W6: a 2x7 board with one amazon each), by
engine.cgt.amazons (which makes the canonical forms on a second thread beside its search: its
CPU time is printed too) and by cgt-py in the same run.

Run from the repository root: python -m bench.cgt [--pairs N] [--seed S] [--amazons TEXT];
python -m bench.cgt --endgame PATH [--pairs N] times lookups in an endgame database instead.
Prints figures only. Sums and comparisons are timed on the same random pairs in both
libraries; cgt-py's values are built beforehand from our text, so neither side pays for
parsing inside the timing. The Amazons figure runs last, in a fresh solver with the numba
kernels loaded (on B1W) beforehand.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.amazons import Position, Square
from engine.amazons.regions import Region
from engine.cgt import Form, born_by, forms
from engine.cgt.amazons import RegionSolver, follower_count
from engine.cgt.endgame import EndgameDatabase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=10_000, help="random pairs per figure")
    parser.add_argument("--triples", type=int, default=2_000, help="random three-game sums")
    parser.add_argument("--repeats", type=int, default=5, help="timed warm rounds (median)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--amazons", default="B6/W6", metavar="TEXT", help="position text of the Amazons figure"
    )
    parser.add_argument(
        "--followers", action="store_true", help="also count the boards reachable (slow)"
    )
    parser.add_argument(
        "--endgame",
        default=None,
        metavar="PATH",
        help="only time lookups in this endgame database (engine.cgt.endgame)",
    )
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    if args.endgame:
        endgame_lookups(args.endgame, args.pairs, args.seed)
        return

    day3 = census()
    rng = random.Random(args.seed)
    pairs = [(rng.choice(day3), rng.choice(day3)) for _ in range(args.pairs)]
    triples = [tuple(rng.choice(day3) for _ in range(3)) for _ in range(args.triples)]
    oracle = cgt_py_values(day3)

    print(f"\nsums of {len(pairs):,} random pairs of day-3 games")
    cold = rate(len(pairs), lambda: [forms.add(g, h) for g, h in pairs])
    warm = median_rate(args.repeats, len(pairs), lambda: [forms.add(g, h) for g, h in pairs])
    print(f"  ours: {cold:>12,.0f} sums/s cold, {warm:,.0f} sums/s warm")
    if oracle:
        # cgt-py keeps no cache of sums, so one round measures it.
        theirs = rate(len(pairs), lambda: [oracle[g] + oracle[h] for g, h in pairs])
        print(f"  cgt-py: {theirs:>10,.0f} sums/s")

    print(f"\nsums of {len(triples):,} random triples of day-3 games (bigger results)")
    cold = rate(len(triples), lambda: [forms.add(forms.add(a, b), c) for a, b, c in triples])
    print(f"  ours: {cold:>12,.0f} sums/s cold ({forms.size():,} distinct values interned)")
    if oracle:
        theirs = rate(
            len(triples), lambda: [oracle[a] + oracle[b] + oracle[c] for a, b, c in triples]
        )
        print(f"  cgt-py: {theirs:>10,.0f} sums/s")

    compare("day-3 games", pairs, oracle, args.repeats)
    sums = [forms.add(g, h) for g, h in pairs]
    big = [(rng.choice(sums), rng.choice(sums)) for _ in range(args.pairs)]
    if oracle:
        for s, (g, h) in zip(sums, pairs, strict=True):
            oracle.setdefault(s, oracle[g] + oracle[h])
    compare("sums of two day-3 games", big, oracle, args.repeats)

    amazons(args.amazons, args.followers)


def amazons(text: str, followers: bool) -> None:
    """The canonical form of an Amazons position: ours (region positions solved per second)
    against cgt-py's `Amazons(grid).canonical_form` on the same board."""
    position = Position.parse(text)
    print(f"\nAmazons {text}: canonical form ({position.width}x{position.height} board)")
    RegionSolver().position_value(Position.parse("B1W"))  # load the kernels
    solver = RegionSolver()
    start = time.perf_counter()
    cpu = time.process_time()
    ours = solver.position_value(position)
    seconds = time.perf_counter() - start
    # Of both threads: the canonical forms are made beside the search.
    cpu = time.process_time() - cpu
    solved = solver.stats.solved
    print(
        f"  ours: {seconds:>10.2f} s ({cpu:.2f} s of CPU), {solved:,} region positions, "
        f"{solved / seconds:,.0f} positions/s"
    )
    print(f"  value: {ours}  (mean {ours.mean}, temperature {ours.temperature})")
    if followers:
        count = follower_count(position)
        print(f"  {count:,} boards reachable: {count / seconds:,.0f} boards/s ours")
    try:
        cgt_py = importlib.import_module("cgt_py")
    except ImportError:
        print("  cgt-py not installed: our figure only")
        return
    board = cgt_py.Amazons(cgt_py_grid(position))
    start = time.perf_counter()
    their_cpu = time.process_time()
    theirs = board.canonical_form
    their_seconds = time.perf_counter() - start
    their_cpu = time.process_time() - their_cpu
    text_theirs = repr(theirs)[len("CanonicalForm('") : -2]
    # On a shared machine the CPU times' ratio moves less than the wall-clock one.
    print(
        f"  cgt-py: {their_seconds:>8.2f} s ({their_seconds / seconds:.1f} times ours), "
        f"{their_cpu:.2f} s of CPU ({their_cpu / cpu:.1f} times ours), "
        f"same value: {Form.parse(text_theirs) == ours}; load average now "
        f"{os.getloadavg()[0]:.2f}"
    )
    if followers:
        print(f"  {count / their_seconds:,.0f} boards/s cgt-py")


def cgt_py_grid(position: Position) -> str:
    """cgt-py's spelling of a board: `x` Left (Black), `o` Right (White), `#` burnt."""
    letters = {None: ".", "B": "x", "W": "o", "x": "#"}
    return "|".join(
        "".join(letters[position.piece_at(Square(f, r))] for f in range(position.width))
        for r in reversed(range(position.height))
    )


def census() -> list[int]:
    """Times born_by(1..3) in a fresh table and returns the day-3 games."""
    print("census (fresh intern table)")
    day3: list[int] = []
    for day in (1, 2, 3):
        start = time.perf_counter()
        games = [g.id for g in born_by(day)]
        seconds = time.perf_counter() - start
        print(f"  born by day {day}: {len(games):>5,} games in {seconds * 1000:8.2f} ms")
        day3 = games
    return day3


def compare(
    what: str, pairs: Sequence[tuple[int, int]], oracle: dict[int, Any], repeats: int
) -> None:
    print(f"\ncomparisons g <= h of {len(pairs):,} random pairs of {what}")
    cold = rate(len(pairs), lambda: [forms.leq(g, h) for g, h in pairs])
    warm = median_rate(repeats, len(pairs), lambda: [forms.leq(g, h) for g, h in pairs])
    print(f"  ours: {cold:>12,.0f} comparisons/s cold, {warm:,.0f} comparisons/s warm")
    if oracle:
        theirs = median_rate(
            repeats, len(pairs), lambda: [oracle[g] <= oracle[h] for g, h in pairs]
        )
        print(f"  cgt-py: {theirs:>10,.0f} comparisons/s")


def cgt_py_values(games: list[int]) -> dict[int, Any]:
    """cgt-py's value of each game, keyed by our id; empty when cgt-py is not installed."""
    try:
        cgt_py = importlib.import_module("cgt_py")
    except ImportError:
        print("cgt-py not installed: our figures only (pip install cgt-py anywidget)")
        return {}
    return {g: cgt_py.CanonicalForm(brace_text(Form(g))) for g in games}


def brace_text(g: Form) -> str:
    """g with every non-number written as nested braces, which cgt-py reads."""
    if g.is_number:
        return str(g)
    lefts = ",".join(brace_text(x) for x in g.left_options)
    rights = ",".join(brace_text(x) for x in g.right_options)
    return "{" + lefts + "|" + rights + "}"


def rate(count: int, work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return count / (time.perf_counter() - start)


def median_rate(repeats: int, count: int, work: Callable[[], object]) -> float:
    return statistics.median(rate(count, work) for _ in range(repeats))


def endgame_lookups(path: str, count: int, seed: int) -> None:
    """Median time of `EndgameDatabase.value` on random regions of the built shapes, each a
    random placement of one or two amazons of each colour, turned by a random symmetry."""
    db = EndgameDatabase(path)
    rng = random.Random(seed)
    shapes = db.shape_cells()
    most = db.counts().max_amazons
    regions: list[Region] = []
    while len(regions) < count:
        cells = rng.choice(shapes)
        n = len(cells)
        whites, blacks = rng.randint(0, most), rng.randint(0, most)
        if not 0 < whites + blacks < n:
            continue
        flip = rng.choice((1, -1))
        squares = [Square(5 + flip * x, 5 + y) for x, y in cells]
        picks = rng.sample(squares, whites + blacks)
        ordered = tuple(sorted(squares, key=lambda s: (s.rank, s.file)))
        white = tuple(sorted(picks[:whites], key=lambda s: (s.rank, s.file)))
        black = tuple(sorted(picks[whites:], key=lambda s: (s.rank, s.file)))
        regions.append(Region(ordered, white, black))
    missing = 0
    # First pass: each orientation, value and file page met for the first time or nearly.
    # Second pass: the same regions again, as in play where few shapes recur.
    for label in ("first pass", "second pass"):
        times = []
        for region in regions:
            start = time.perf_counter()
            value = db.value(region)
            times.append(time.perf_counter() - start)
            missing += value is None
        times.sort()
        print(
            f"endgame lookups in {path}, {label}: {len(regions):,} random regions, "
            f"median {1e6 * times[len(times) // 2]:.1f} us, "
            f"95th percentile {1e6 * times[int(0.95 * len(times))]:.1f} us"
        )
    print(f"  {missing:,} not stored")


if __name__ == "__main__":
    main()
