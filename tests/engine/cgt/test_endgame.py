"""The endgame database: shape counts, stored values against the solver and cgt-py, lookups
under symmetry and colour swap, resuming, best moves, and `arena endgame` output and errors."""

from __future__ import annotations

import io
import itertools
import random
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.amazons.position import Position
from engine.amazons.regions import Region
from engine.cgt.amazons import RegionSolver
from engine.cgt.endgame import EndgameDatabase, _orientation_rows, build, shapes
from engine.cgt.form import Form
from engine.cli import main

# Free polyplets, OEIS A030222; fixed polyplets (every orientation apart), OEIS A006535.
SHAPES = [1, 2, 5, 22, 94, 524]
ORIENTED_SHAPES = [1, 4, 20, 110, 638, 3832]


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("endgame") / "endgame.sqlite"
    build(path, max_cells=5, max_amazons=1)
    return path


@pytest.fixture(scope="module")
def db(db_path: Path) -> EndgameDatabase:
    return EndgameDatabase(db_path)


def position_of(cells: tuple[tuple[int, int], ...], labels: list[str]) -> Position:
    """A board of the cells' bounding box with these labels (`.`, `W`, `B`), the rest burnt."""
    width = 1 + max(x for x, _ in cells)
    height = 1 + max(y for _, y in cells)
    grid = [["x"] * width for _ in range(height)]
    for (x, y), label in zip(cells, labels, strict=True):
        grid[y][x] = label
    return Position.parse(rows_text(["".join(row) for row in reversed(grid)]))


def rows_text(rows: list[str]) -> str:
    out = []
    for row in rows:
        text, empty = "", 0
        for c in row:
            if c == ".":
                empty += 1
                continue
            text += (str(empty) if empty else "") + c
            empty = 0
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out)


def only_region(position: Position) -> Region:
    (region,) = position.regions()
    return region


def test_shape_counts_are_the_free_polyplets() -> None:
    assert [len(level) for level in shapes(6)] == SHAPES


def test_stored_positions_are_one_per_orbit(db: EndgameDatabase) -> None:
    """Every labelling of every shape, reduced by the engine's own keys (least of key and
    swapped key), gives as many orbits per size as the database stores."""
    orbits: dict[int, set[bytes]] = {}
    for level in shapes(5):
        for shape in level:
            n = len(shape.cells)
            for labels in itertools.product(".WB", repeat=n):
                whites, blacks = labels.count("W"), labels.count("B")
                if whites > 1 or blacks > 1 or not 0 < whites + blacks < n:
                    continue
                region = only_region(position_of(shape.cells, list(labels)))
                orbits.setdefault(n, set()).add(min(region.key(), region.swapped_key()))
    by_cells: dict[int, int] = {}
    for (cells, _, _), count in db.counts().by_size.items():
        by_cells[cells] = by_cells.get(cells, 0) + count
    assert by_cells == {n: len(keys) for n, keys in orbits.items()}
    assert {n: built for n, (built, _) in db.counts().shapes_done.items()} == dict(
        enumerate(SHAPES[:5], 1)
    )


def random_region_rows(rng: random.Random, db_cells: int = 5) -> list[list[str]]:
    """A random grid whose non-burnt squares form one region of at most `db_cells` squares
    with at most one amazon of each colour."""
    while True:
        level = shapes(db_cells)[rng.randrange(1, db_cells)]
        shape = level[rng.randrange(len(level))]
        n = len(shape.cells)
        labels = ["."] * n
        picks = rng.sample(range(n), rng.choice([1, 2]) if n > 2 else 1)
        for i, colour in zip(picks, rng.sample("WB", len(picks)), strict=False):
            labels[i] = colour
        width = 1 + max(x for x, _ in shape.cells)
        height = 1 + max(y for _, y in shape.cells)
        grid = [["x"] * width for _ in range(height)]
        for (x, y), label in zip(shape.cells, labels, strict=True):
            grid[y][x] = label
        return grid


def images(grid: list[list[str]]) -> list[list[list[str]]]:
    """The grid under the 8 symmetries."""
    found = []
    g = grid
    for _ in range(4):
        g = [list(row) for row in zip(*g[::-1], strict=True)]
        found += [g, [row[::-1] for row in g]]
    return found


def region_of(grid: list[list[str]], swap: bool = False) -> Region:
    table = str.maketrans("WB", "BW") if swap else str.maketrans("", "")
    return only_region(Position.parse(rows_text(["".join(r).translate(table) for r in grid])))


def test_stored_values_equal_the_solver_under_symmetry_and_swap(db: EndgameDatabase) -> None:
    rng = random.Random(5)
    solver = RegionSolver()
    for _ in range(60):
        grid = random_region_rows(rng)
        expected = solver.region_value(region_of(grid))
        for image in images(grid):
            assert db.value(region_of(image)) == expected
            assert db.value(region_of(image, swap=True)) == -expected


def read_theirs(value: Any) -> Form:
    printed = repr(value)
    assert printed.startswith("CanonicalForm('")
    return Form.parse(printed[len("CanonicalForm('") : -2])


def test_stored_values_agree_with_cgt_py(db: EndgameDatabase) -> None:
    cgt_py = pytest.importorskip("cgt_py")
    rng = random.Random(11)
    for _ in range(25):
        grid = random_region_rows(rng)
        board = "|".join("".join(row).translate(str.maketrans("BWx", "xo#")) for row in grid)
        theirs = read_theirs(cgt_py.Amazons(board).canonical_form)
        assert db.value(region_of(grid)) == theirs


def test_regions_outside_the_database_have_no_value(db: EndgameDatabase) -> None:
    assert db.value(only_region(Position.parse("B5"))) is None  # 6 squares
    assert db.value(only_region(Position.parse("BB2W"))) is None  # 2 black amazons
    assert db.value(only_region(Position.parse("BW"))) == Form.parse("0")  # no empty square


def test_best_moves_agree_with_the_solver(db: EndgameDatabase) -> None:
    solver = RegionSolver()
    for text in ("B3/xxxx/1W1x w", "B1x/x1W b", "B2x/xxWx w", "Bx1/1xW b"):
        position = Position.parse(text)
        assert db.best_moves(position) == solver.best_moves(position), text
    assert db.best_moves(Position.parse("B5/W5 b")) is None


def test_a_build_resumes_without_recomputing_done_shapes(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    first = build(path, max_cells=3, max_amazons=1)
    assert (first.shapes_built, first.shapes_skipped) == (8, 0)
    second = build(path, max_cells=4, max_amazons=1)
    assert (second.shapes_built, second.shapes_skipped) == (22, 8)
    assert build(path, max_cells=4, max_amazons=1).shapes_built == 0
    fresh = tmp_path / "fresh.sqlite"
    build(fresh, max_cells=4, max_amazons=1, jobs=2)
    query = "SELECT key, value FROM positions ORDER BY key"
    assert len(EndgameDatabase(path).counts().by_size) > 0
    with sqlite3.connect(path) as a, sqlite3.connect(fresh) as b:
        texts_a = dict(a.execute("SELECT id, text FROM game_values"))
        texts_b = dict(b.execute("SELECT id, text FROM game_values"))
        rows_a = [(k, texts_a[v]) for k, v in a.execute(query)]
        rows_b = [(k, texts_b[v]) for k, v in b.execute(query)]
    assert rows_a == rows_b


def test_every_orientation_of_every_shape_is_stored(db_path: Path) -> None:
    with sqlite3.connect(db_path) as file:
        (count,) = file.execute("SELECT COUNT(*) FROM orientations").fetchone()
    assert count == sum(ORIENTED_SHAPES[:5])


def test_a_diagonal_of_eight_fits_a_stored_key() -> None:
    """Its far corner is bit 63 of the orientation key, stored as a negative integer."""
    diagonal = tuple((i, i) for i in range(8))
    rows = list(_orientation_rows(7, diagonal))
    assert len(rows) == 2
    with sqlite3.connect(":memory:") as file:
        file.execute("CREATE TABLE t (cells INTEGER PRIMARY KEY, shape, perms)")
        file.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
        assert sorted(file.execute("SELECT * FROM t")) == sorted(rows)
    assert min(cells for cells, _, _ in rows) < 0


def older_file(db_path: Path, tmp_path: Path) -> Path:
    """A copy of the database as files were before orientations were stored."""
    path = tmp_path / "older.sqlite"
    path.write_bytes(db_path.read_bytes())
    with sqlite3.connect(path) as file:
        file.execute("DROP TABLE orientations")
    return path


def test_a_file_without_stored_orientations_turns_the_shapes_it_meets(
    db_path: Path, db: EndgameDatabase, tmp_path: Path
) -> None:
    older = EndgameDatabase(older_file(db_path, tmp_path))
    rng = random.Random(8)
    for _ in range(30):
        for image in images(random_region_rows(rng)):
            region = region_of(image)
            assert older.key(region) == db.key(region)
            assert older.value(region) == db.value(region)
    older.close()


def test_a_build_on_an_older_file_stores_its_orientations(db_path: Path, tmp_path: Path) -> None:
    older = older_file(db_path, tmp_path)
    assert build(older, max_cells=5, max_amazons=1).shapes_built == 0
    with sqlite3.connect(older) as file:
        (count,) = file.execute("SELECT COUNT(*) FROM orientations").fetchone()
    assert count == sum(ORIENTED_SHAPES[:5])


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_info_prints_counts(capsys: pytest.CaptureFixture[str], db_path: Path) -> None:
    status, out, _ = run(capsys, "endgame", "info", "--db", str(db_path))
    assert status == 0
    lines = out.splitlines()
    assert "distinct values" in lines[0]
    assert lines[5].split()[:2] == ["4", "22/22"]
    total = sum(EndgameDatabase(db_path).counts().by_size.values())
    assert lines[-1] == f"total  {total:,} positions"


def test_build_prints_a_summary_and_progress(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_ENDGAME_DB", str(tmp_path / "env.sqlite"))
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    status = main(["endgame", "build", "--max-cells", "3", "--max-amazons", "1"])
    assert status == 0
    assert "100.0%" in sys.stderr.getvalue()  # type: ignore[attr-defined]
    assert "8 shapes built" in capsys.readouterr().out
    assert (tmp_path / "env.sqlite").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["info", "--db", "/nonexistent/x.sqlite"], "no endgame database at /nonexistent"),
        (["build", "--max-cells", "9", "--max-amazons", "1"], "9 is not between 1 and 8"),
        (["build", "--max-cells", "two", "--max-amazons", "1"], "'two' is not a whole number"),
        (["build", "--max-cells", "3", "--max-amazons", "0"], "0 is not between 1 and 4"),
    ],
)
def test_bad_input_gives_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = run(capsys, "endgame", *args)
    assert status == 2
    assert out == ""
    assert message in err.splitlines()[-1]


def test_a_file_that_is_not_a_database(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not sqlite at all, just text " * 100)
    status, _, err = run(capsys, "endgame", "info", "--db", str(junk))
    assert status == 2
    assert len(err.splitlines()) == 1
    assert "is not an endgame database" in err
