"""Lint, format, types and the import direction between the top-level packages."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What each package may import from this project (docs/architecture.md): engine nothing of
# ours, the protocol nothing of ours, the server the engine, clients the engine and the
# protocol; the command line (`server/cli.py` and the server's commands, `server/commands.py`),
# which puts the program together, every package.
ALLOWED = {
    "engine": {"engine"},
    "server/protocol": {"server.protocol"},
    "server": {"server", "engine"},
    "clients": {"clients", "engine", "server.protocol"},
    "server/cli.py": {"engine", "server", "clients"},
    "server/commands.py": {"engine", "server", "clients"},
}
# Modules a package may not import although its layer could: the server reaches every game
# through `engine.game`'s registry, never one game's package (docs/architecture.md).
FORBIDDEN = {
    "server": {"engine.amazons"},
    "clients": {"engine.amazons"},
    "server/cli.py": set(),
    "server/commands.py": set(),
}
# A game's board is the one game-specific piece of a client (docs/architecture.md: what a new
# game adds is a board for each user interface), and the Amazons board asks the Amazons engine
# for the legal targets of each step of a move and for its regions; the notes of the analysis
# panel ask it for regions and mobility: these alone may import it.
GAME_BOARDS = {
    "clients/tui/amazons_board.py": {"engine.amazons"},
    "clients/tui/amazons_analysis.py": {"engine.amazons"},
    # The tutorial teaches Amazons itself: its rules steps and its endgames (solved exactly).
    "clients/tui/lessons.py": {"engine.amazons"},
    "clients/tui/exercises.py": {"engine.amazons"},
}
OURS = ("engine", "server", "clients")
# A string naming a module of ours (`clients.bot`, `engine.amazons.game:AMAZONS`) may be imported
# by name at run time (importlib, a registry): it is held to the same layering as an import.
MODULE_NAME = re.compile(r"(engine|server|clients)(\.\w+)+(:\w+)?")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_every_package() -> None:
    # Two mypy processes: on a cold cache (a fresh clone) the check takes half the wall time.
    result = _run("mypy", "--strict", "--num-workers", "2", "engine", "server", "clients")
    assert result.returncode == 0, result.stdout + result.stderr


def _imports(path: Path) -> set[str]:
    """The modules of ours a file imports, by statement or by a module name in a string."""
    found = set()
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and MODULE_NAME.fullmatch(node.value)
        ):
            found.add(node.value.split(":")[0])
    return {name for name in found if name.split(".")[0] in OURS}


def _package_of(path: Path) -> str:
    relative = path.relative_to(ROOT).as_posix()
    return max((p for p in ALLOWED if relative == p or relative.startswith(p + "/")), key=len)


SOURCES = sorted(p for top in OURS for p in (ROOT / top).rglob("*.py") if (ROOT / top).is_dir())


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_imports_follow_the_layering(path: Path) -> None:
    allowed = ALLOWED[_package_of(path)]
    for name in _imports(path):
        assert any(name == a or name.startswith(a + ".") for a in allowed), (
            f"{path.relative_to(ROOT)} imports {name}; allowed: {sorted(allowed)}"
        )


@pytest.mark.parametrize(
    "path",
    [p for p in SOURCES if _package_of(p) in FORBIDDEN],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_the_server_and_clients_reach_games_only_through_the_registry(path: Path) -> None:
    forbidden = FORBIDDEN[_package_of(path)] - GAME_BOARDS.get(
        path.relative_to(ROOT).as_posix(), set()
    )
    for name in _imports(path):
        assert not any(name == f or name.startswith(f + ".") for f in forbidden), (
            f"{path.relative_to(ROOT)} imports {name}: reach a game through engine.game"
        )
