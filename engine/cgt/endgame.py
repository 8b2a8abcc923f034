"""The Amazons endgame database: the value of every region of up to N squares with up to K
amazons of each colour, built bottom-up by size into one SQLite file, with lookups by region
and best moves from the stored values of the followers.

A position is stored once per orbit under the 8 symmetries and the colour swap (which negates
the value), as one integer: its shape's id times 2**16 plus its cell labels, 2 bits a cell
(0 empty, 1 white, 2 black) in the shape's canonical cell order.
"""

from __future__ import annotations

import functools
import itertools
import math
import multiprocessing
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from engine.amazons.notation import Move, Side
from engine.amazons.position import Position
from engine.amazons.regions import SYMMETRIES, Region
from engine.cgt.amazons import RegionSolver
from engine.cgt.form import ZERO, Form

__all__ = [
    "MAX_CELLS",
    "BuildReport",
    "Counts",
    "DatabaseError",
    "EndgameDatabase",
    "Shape",
    "build",
    "placement_count",
    "placements",
    "shapes",
]

MAX_CELLS: Final = 8  # labels of 8 cells fill the 16 low bits of a key
_CODE_BITS: Final = 16
_EMPTY, _WHITE, _BLACK = 0, 1, 2
# Region positions the build's solver may hold before it forgets them all.
_MEMO_LIMIT: Final = 4_000_000
_BATCH: Final = 16  # shapes per worker task and per commit
_MMAP_BYTES: Final = 1 << 30  # of the file a lookup reads through memory

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS shapes (
    id INTEGER PRIMARY KEY, cells INTEGER NOT NULL, shape TEXT NOT NULL UNIQUE,
    amazons INTEGER NOT NULL DEFAULT -1);
CREATE TABLE IF NOT EXISTS game_values (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS positions (key INTEGER PRIMARY KEY, value INTEGER NOT NULL)
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS orientations (
    cells INTEGER PRIMARY KEY, shape INTEGER NOT NULL, perms BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counts (
    cells INTEGER, white INTEGER, black INTEGER, positions INTEGER NOT NULL,
    PRIMARY KEY (cells, white, black)) WITHOUT ROWID;
"""

Cells = tuple[tuple[int, int], ...]


class DatabaseError(ValueError):
    """The database file is missing or is not an endgame database."""


@dataclass(frozen=True, slots=True)
class Shape:
    """A region shape in canonical orientation: cells (x, y) sorted by (y, x), least over the 8
    symmetries; `automorphisms` are the symmetries mapping it onto itself, as permutations of
    cell indices (cell i of the image is cell perm[i])."""

    cells: Cells
    automorphisms: tuple[tuple[int, ...], ...]

    def text(self) -> str:
        return " ".join(f"{x},{y}" for x, y in self.cells)

    def key_bytes(self, labels: Sequence[int]) -> bytes:
        """The solver's region key of this shape with these labels."""
        width = 1 + max(x for x, _ in self.cells)
        height = 1 + max(y for _, y in self.cells)
        grid = bytearray(width * height)
        for (x, y), label in zip(self.cells, labels, strict=True):
            grid[y * width + x] = 1 + label  # key codes: 1 empty, 2 white, 3 black
        return bytes((width, height)) + bytes(grid)


def _oriented(cells: Sequence[tuple[int, int]]) -> Iterator[list[tuple[int, int, int]]]:
    """For each symmetry, the cells turned and moved to the origin, sorted by (y, x), each with
    the index of the cell it came from."""
    for s in SYMMETRIES:
        turned = [(s.yx * x + s.yy * y, s.xx * x + s.xy * y, i) for i, (x, y) in enumerate(cells)]
        y0 = min(t[0] for t in turned)
        x0 = min(t[1] for t in turned)
        yield sorted((y - y0, x - x0, i) for y, x, i in turned)


def _canonical_cells(cells: Sequence[tuple[int, int]]) -> Cells:
    return min(tuple((x, y) for y, x, _ in image) for image in _oriented(cells))


def _canonical_orientation(cells: Cells) -> tuple[Cells, list[tuple[int, ...]]]:
    """The canonical orientation of cells (sorted by (y, x), at the origin) and the
    permutations that take them to it (cell i there is cell perm[i] here): one for each
    symmetry that does."""
    shape: Cells | None = None
    perms: list[tuple[int, ...]] = []
    for image in _oriented(cells):
        turned = tuple((x, y) for y, x, _ in image)
        if shape is None or turned < shape:
            shape, perms = turned, []
        if turned == shape:
            perms.append(tuple(i for _, _, i in image))
    assert shape is not None
    return shape, perms


def _mask(bits: Iterable[int]) -> int:
    """Cells at the origin, each as its bit 8y + x (x, y < 8), in one signed 64-bit integer
    (SQLite's)."""
    mask = 0
    for bit in bits:
        mask |= 1 << bit
    return mask - (1 << 64) if mask >> 63 else mask


def _orientation_rows(shape_id: int, cells: Cells) -> Iterator[tuple[int, int, bytes]]:
    """(mask, shape id, permutations) of each distinct orientation of a shape."""
    seen = set()
    for image in _oriented(cells):
        turned = tuple((x, y) for y, x, _ in image)
        if turned not in seen:
            seen.add(turned)
            _, perms = _canonical_orientation(turned)
            yield _mask(8 * y + x for x, y in turned), shape_id, b"".join(bytes(p) for p in perms)


def _shape(cells: Cells) -> Shape:
    _, perms = _canonical_orientation(cells)
    return Shape(cells, tuple(sorted(set(perms))))


def shapes(max_cells: int) -> list[list[Shape]]:
    """Every region shape (free polyplet: 8-connected cell sets up to the 8 symmetries) of 1 to
    `max_cells` cells, by size, each size grown from the one below in a fixed order."""
    levels: list[list[Cells]] = [[((0, 0),)]]
    while len(levels) < max_cells:
        seen: set[Cells] = set()
        grown: list[Cells] = []
        for cells in levels[-1]:
            have = set(cells)
            for x, y in cells:
                for dx, dy in itertools.product((-1, 0, 1), repeat=2):
                    if (x + dx, y + dy) in have:
                        continue
                    canonical = _canonical_cells([*cells, (x + dx, y + dy)])
                    if canonical not in seen:
                        seen.add(canonical)
                        grown.append(canonical)
        levels.append(grown)
    return [[_shape(cells) for cells in level] for level in levels[:max_cells]]


def _code(labels: Sequence[int]) -> int:
    code = 0
    for i, label in enumerate(labels):
        code |= label << (2 * i)
    return code


def _swap(labels: Sequence[int]) -> list[int]:
    return [(3 - label) if label else 0 for label in labels]


def placements(shape: Shape, max_amazons: int) -> Iterator[tuple[int, int, int, list[int]]]:
    """(code, whites, blacks, labels) of each placement of at most `max_amazons` amazons of each
    colour, with at least one amazon and one empty square, one per orbit under the shape's
    symmetries and the colour swap."""
    n = len(shape.cells)
    others = [p for p in shape.automorphisms if p != tuple(range(n))]
    for code, swapped_code, whites, blacks, labels in _labellings(n, max_amazons):
        if swapped_code < code:
            continue
        if others and any(
            _code([ls[p[i]] for i in range(n)]) < code
            for p in others
            for ls in (labels, _swap(labels))
        ):
            continue
        yield code, whites, blacks, labels


@functools.cache
def _labellings(n: int, max_amazons: int) -> list[tuple[int, int, int, int, list[int]]]:
    """(code, code swapped, whites, blacks, labels) of every labelling of n cells with at most
    `max_amazons` amazons of each colour, at least one amazon and one empty cell."""
    found = []
    for whites in range(max_amazons + 1):
        for blacks in range(max_amazons + 1):
            if not 0 < whites + blacks < n:
                continue
            for white in itertools.combinations(range(n), whites):
                rest = [i for i in range(n) if i not in white]
                for black in itertools.combinations(rest, blacks):
                    labels = [_EMPTY] * n
                    for i in white:
                        labels[i] = _WHITE
                    for i in black:
                        labels[i] = _BLACK
                    found.append((_code(labels), _code(_swap(labels)), whites, blacks, labels))
    return found


def placement_count(cells: int, max_amazons: int) -> int:
    """Placements on `cells` squares before any symmetry: at most `max_amazons` of each colour,
    at least one amazon and one empty square."""
    total = 0
    for whites in range(max_amazons + 1):
        for blacks in range(max_amazons + 1):
            if 0 < whites + blacks < cells:
                total += _choose(cells, whites) * _choose(cells - whites, blacks)
    return total


def _choose(n: int, k: int) -> int:
    return math.comb(n, k)


# -- building ----------------------------------------------------------------------------------

_solver: RegionSolver | None = None
_texts: dict[int, str] = {}


def _solve_batch(
    task: tuple[int, list[tuple[int, Cells]]],
) -> tuple[list[int], list[tuple[int, str, int, int, int]]]:
    """Values of every placement on a batch of shapes: (shape ids, rows of key, value text,
    cells, whites, blacks). Runs in worker processes with a solver of their own."""
    global _solver
    max_amazons, batch = task
    if _solver is None:
        _solver = RegionSolver()
    rows = []
    for shape_id, cells in batch:
        shape = _shape(cells)
        for code, whites, blacks, labels in placements(shape, max_amazons):
            value = _solver.key_value(shape.key_bytes(labels))
            text = _texts.get(value.id)
            if text is None:
                text = _texts[value.id] = str(value)
            rows.append(((shape_id << _CODE_BITS) | code, text, len(cells), whites, blacks))
        if _solver.stats.positions > _MEMO_LIMIT:
            _solver.clear()
    return [shape_id for shape_id, _ in batch], rows


@dataclass(frozen=True, slots=True)
class BuildReport:
    shapes_built: int  # shapes computed by this run
    shapes_skipped: int  # shapes already in the database
    positions: int  # positions stored by this run
    seconds: float

    @property
    def rate(self) -> float:
        """Positions stored per second."""
        return self.positions / self.seconds if self.seconds > 0 else 0.0


def build(
    path: Path,
    max_cells: int,
    max_amazons: int,
    jobs: int = 1,
    progress: TextIO | None = None,
) -> BuildReport:
    """Build (or carry on building) the database at `path`: sizes 1 to `max_cells` in order,
    shapes in batches, each batch committed with its shapes marked done, so an interrupted build
    resumes at the first batch not committed."""
    if not 1 <= max_cells <= MAX_CELLS:
        raise ValueError(f"max cells must be 1 to {MAX_CELLS}, not {max_cells}")
    if not 1 <= max_amazons <= 4:
        raise ValueError(f"max amazons must be 1 to 4, not {max_amazons}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(_SCHEMA)
    start = time.perf_counter()
    levels = shapes(max_cells)
    known = dict(db.execute("SELECT shape, id FROM shapes").fetchall())
    next_id = 1 + max(known.values(), default=-1)
    for level in levels:
        for shape in level:
            if shape.text() not in known:
                known[shape.text()] = next_id
                db.execute(
                    "INSERT INTO shapes (id, cells, shape) VALUES (?, ?, ?)",
                    (next_id, len(shape.cells), shape.text()),
                )
                next_id += 1
    # In the same transaction as the shapes: a file with any orientation has them all.
    oriented = {shape for (shape,) in db.execute("SELECT DISTINCT shape FROM orientations")}
    db.executemany(
        "INSERT INTO orientations (cells, shape, perms) VALUES (?, ?, ?)",
        (
            row
            for level in levels
            for shape in level
            if known[shape.text()] not in oriented
            for row in _orientation_rows(known[shape.text()], shape.cells)
        ),
    )
    db.commit()
    done = {
        shape
        for (shape,) in db.execute("SELECT shape FROM shapes WHERE amazons >= ?", (max_amazons,))
    }
    value_ids = dict(db.execute("SELECT text, id FROM game_values").fetchall())
    todo = [[s for s in level if s.text() not in done] for level in levels]
    skipped = sum(len(level) for level in levels) - sum(len(level) for level in todo)
    total = sum(
        len(level) * placement_count(len(level[0].cells), max_amazons) for level in todo if level
    )
    meter = _Progress(total, progress)
    built = 0
    stored = 0
    pool = multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 else None
    try:
        for level in todo:
            if not level:
                continue
            tasks = [
                (max_amazons, [(known[s.text()], s.cells) for s in level[i : i + _BATCH]])
                for i in range(0, len(level), _BATCH)
            ]
            results: Iterator[tuple[list[int], list[tuple[int, str, int, int, int]]]]
            if pool is None:
                results = map(_solve_batch, tasks)
            else:
                results = pool.imap_unordered(_solve_batch, tasks)
            raw = placement_count(len(level[0].cells), max_amazons)
            for shape_ids, rows in results:
                _store(db, shape_ids, rows, value_ids, max_amazons)
                built += len(shape_ids)
                stored += len(rows)
                meter.advance(raw * len(shape_ids), stored)
    finally:
        if pool is not None:
            pool.terminate()
        db.close()
        meter.close()
    return BuildReport(built, skipped, stored, time.perf_counter() - start)


def _store(
    db: sqlite3.Connection,
    shape_ids: list[int],
    rows: list[tuple[int, str, int, int, int]],
    value_ids: dict[str, int],
    max_amazons: int,
) -> None:
    """One transaction: a batch's positions, new values, counts, and its shapes marked done."""
    counts: dict[tuple[int, int, int], int] = {}
    records = []
    for key, text, cells, whites, blacks in rows:
        value = value_ids.get(text)
        if value is None:
            value = value_ids[text] = len(value_ids)
            db.execute("INSERT INTO game_values (id, text) VALUES (?, ?)", (value, text))
        records.append((key, value))
        counts[cells, whites, blacks] = counts.get((cells, whites, blacks), 0) + 1
    # A rebuild with more amazons meets the placements it already has again.
    before = db.total_changes
    db.executemany("INSERT OR IGNORE INTO positions (key, value) VALUES (?, ?)", records)
    if db.total_changes - before != len(records):
        counts = _recount(db, shape_ids, rows)
    db.executemany(
        "INSERT INTO counts VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE "
        "SET positions = positions + excluded.positions",
        [(*k, n) for k, n in counts.items()],
    )
    db.executemany(
        "UPDATE shapes SET amazons = ? WHERE id = ?", [(max_amazons, i) for i in shape_ids]
    )
    db.commit()


def _recount(
    db: sqlite3.Connection, shape_ids: list[int], rows: list[tuple[int, str, int, int, int]]
) -> dict[tuple[int, int, int], int]:
    """Counts of only the new rows, when some were there already (from a smaller max amazons,
    whose shapes are marked with it)."""
    old = {
        i: a
        for i, a in db.execute(
            f"SELECT id, amazons FROM shapes WHERE id IN ({','.join('?' * len(shape_ids))})",
            shape_ids,
        )
    }
    counts: dict[tuple[int, int, int], int] = {}
    for key, _, cells, whites, blacks in rows:
        if max(whites, blacks) > old[key >> _CODE_BITS]:
            counts[cells, whites, blacks] = counts.get((cells, whites, blacks), 0) + 1
    return counts


class _Progress:
    """A progress line on a terminal stream: placements done of the total, rate and ETA."""

    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.start = time.perf_counter()
        self.shown = 0.0

    def advance(self, done: int, stored: int) -> None:
        self.done += done
        now = time.perf_counter()
        if self.stream is None or (now - self.shown < 0.5 and self.done < self.total):
            return
        self.shown = now
        elapsed = now - self.start
        fraction = self.done / self.total if self.total else 1.0
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else 0.0
        self.stream.write(
            f"\r{100 * fraction:5.1f}% {self.done:,}/{self.total:,} placements, "
            f"{stored:,} stored, {stored / max(elapsed, 1e-9):,.0f}/s, "
            f"elapsed {_clock(elapsed)}, ETA {_clock(eta)} "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.stream is not None and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# -- looking up --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Counts:
    """What a database holds."""

    by_size: dict[tuple[int, int, int], int]  # (cells, whites, blacks) -> positions
    shapes_done: dict[int, tuple[int, int]]  # cells -> (shapes built, shapes known)
    max_amazons: int
    values: int  # distinct values
    bytes: int  # file size


class EndgameDatabase:
    """A built database, opened read-only. `value(region)` is a region's stored value (None
    when the region is outside the database); `best_moves(position)` plays each legal move on
    the real board and adds the stored values of the regions after it, so moves need no
    mapping back through the symmetry the key was found under."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise DatabaseError(
                f"no endgame database at {self.path}: build one with 'arena endgame build'"
            )
        try:
            # Read-only, so one connection may serve any thread (a bot thinks in a worker's).
            self._db = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, check_same_thread=False
            )
            self._db.execute("SELECT shape, id, cells, amazons FROM shapes LIMIT 1").fetchall()
            tables = {t for (t,) in self._db.execute("SELECT name FROM sqlite_master")}
            # Files built before orientations were stored turn each shape met instead.
            self._stored_orientations = (
                "orientations" in tables
                and self._db.execute("SELECT 1 FROM orientations LIMIT 1").fetchone() is not None
            )
            # Pages read through a memory map, not a system call each.
            self._db.execute(f"PRAGMA mmap_size = {_MMAP_BYTES}")
        except sqlite3.DatabaseError as error:
            raise DatabaseError(f"{self.path} is not an endgame database ({error})") from None
        self._forms: dict[int, Form] = {}
        # Shape ids and permutations of the shapes met, by the mask of the orientation met.
        self._orientations: dict[int, tuple[int, list[tuple[int, ...]]]] = {}
        self._query = self._db.execute

    def close(self) -> None:
        self._db.close()

    @functools.cached_property
    def _shapes(self) -> dict[Cells, int]:
        """Every shape's id by its canonical cells, read when first needed (a lookup in an
        older file, `shape_cells`)."""
        shapes: dict[Cells, int] = {}
        for text, shape_id in self._query("SELECT shape, id FROM shapes"):
            cells = tuple(tuple(int(c) for c in p.split(",")) for p in text.split())
            shapes[cells] = shape_id  # type: ignore[index]
        return shapes

    def shape_cells(self) -> list[Cells]:
        """The cells of every built shape, in canonical orientation."""
        built = {i for (i,) in self._query("SELECT id FROM shapes WHERE amazons >= 0")}
        return [cells for cells, i in self._shapes.items() if i in built]

    def value(self, region: Region) -> Form | None:
        """The region's value (Left = Black): 0 without an amazon or an empty square; None when
        its shape or its number of amazons is not in the database."""
        n = len(region.squares)
        if (not region.white and not region.black) or n == len(region.white) + len(region.black):
            return ZERO
        found = self.key(region)
        if found is None:
            return None
        key, swapped = found
        row = self._query("SELECT value FROM positions WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        value = self._forms.get(row[0])
        if value is None:
            (text,) = self._query("SELECT text FROM game_values WHERE id = ?", row).fetchone()
            value = self._forms[row[0]] = Form.parse(text)
        return -value if swapped else value

    def key(self, region: Region) -> tuple[int, bool] | None:
        """The stored key of a region and whether it is the colour-swapped one (worth minus
        the stored value); None for a shape not in the database."""
        squares = region.squares
        if len(squares) > MAX_CELLS:
            return None
        x0 = min([x for x, _ in squares])
        y0 = min([y for _, y in squares])
        colour: dict[tuple[int, int], int] = dict.fromkeys(region.white, _WHITE)
        colour.update(dict.fromkeys(region.black, _BLACK))
        # Cells at the origin as bit 8y + x (x, y < 8): sorting by it sorts by (y, x).
        cells = sorted([((y - y0) << 3 | (x - x0), colour.get((x, y), _EMPTY)) for x, y in squares])
        mask = _mask([bit for bit, _ in cells])
        orientation = self._orientations.get(mask)
        if orientation is None:
            orientation = self._orientations[mask] = self._orientation(mask, cells)
        shape_id, perms = orientation
        if shape_id < 0:
            return None
        labels = [label for _, label in cells]
        best = (1 << _CODE_BITS, False)
        for perm in perms:
            code = 0
            swapped = 0
            for i, j in enumerate(perm):
                label = labels[j]
                if label:
                    code |= label << (2 * i)
                    swapped |= (3 - label) << (2 * i)
            best = min(best, (code, False), (swapped, True))
        return (shape_id << _CODE_BITS) | best[0], best[1]

    def _orientation(
        self, mask: int, cells: list[tuple[int, int]]
    ) -> tuple[int, list[tuple[int, ...]]]:
        """The shape id of `cells` (bit 8y + x and label, sorted), -1 if not stored, and the
        permutations that take them to its canonical orientation."""
        if self._stored_orientations:
            row = self._query(
                "SELECT shape, perms FROM orientations WHERE cells = ?", (mask,)
            ).fetchone()
            if row is None:
                return -1, []
            shape_id, packed = row
            n = len(cells)
            return shape_id, [tuple(packed[i : i + n]) for i in range(0, len(packed), n)]
        shape, perms = _canonical_orientation(tuple((bit & 7, bit >> 3) for bit, _ in cells))
        return self._shapes.get(shape, -1), perms

    def position_value(self, position: Position) -> Form | None:
        """The sum of the position's regions' values; None if one is not in the database."""
        total = ZERO
        for region in position.regions():
            value = self.value(region)
            if value is None:
                return None
            total = total + value
        return total

    def best_moves(self, position: Position) -> list[Move] | None:
        """The moves that keep a win for the side to move (none when every move loses), in
        board order; None when a region after some move is not in the database."""
        black = position.side_to_move is Side.BLACK
        board = position.clone()
        found = []
        for move in list(board.legal_moves):
            board.apply(move)
            try:
                after = self.position_value(board)
            finally:
                board.undo()
            if after is None:
                return None
            if (after >= ZERO) if black else (after <= ZERO):
                found.append(move)
        return sorted(found, key=_move_order)

    def counts(self) -> Counts:
        q = self._query
        by_size = {(c, w, b): n for c, w, b, n in q("SELECT * FROM counts").fetchall()}
        shapes_done: dict[int, tuple[int, int]] = {}
        for cells, built, known in q(
            "SELECT cells, SUM(amazons >= 0), COUNT(*) FROM shapes GROUP BY cells"
        ).fetchall():
            shapes_done[cells] = (built, known)
        (values,) = q("SELECT COUNT(*) FROM game_values").fetchone()
        return Counts(
            by_size,
            shapes_done,
            q("SELECT COALESCE(MAX(amazons), -1) FROM shapes").fetchone()[0],
            values,
            self.path.stat().st_size,
        )


def _move_order(move: Move) -> tuple[int, ...]:
    return tuple(c for s in (move.origin, move.target, move.arrow) for c in (s.file, s.rank))
