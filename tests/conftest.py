"""Settings every test shares."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.amazons.kernels  # noqa: F401  (see below)
from engine.game import register
from engine.search.registry import bot_names, make_bot
from tests.games.takeaway import TAKEAWAY

# The engine's kernels are compiled in the test process from the start, so a client command
# run in-process (`main(["play", ...])`, which asks for plain-Python kernels) changes nothing:
# engine/jit.py keeps a process compiling once numba is loaded. tests/engine/test_jit.py tests
# the plain-Python kernels in a process of their own.


def pytest_configure(config: pytest.Config) -> None:
    """With xdist, the controller compiles every kernel the bots use once (or loads it from
    numba's on-disk cache), before its workers start: the workers then load them from the
    cache. Otherwise each worker compiles them all at once on a fresh clone (minutes of CPU
    each, and no test should pay for a compile), and numba's cache index could lose a worker's
    entry to another's: two processes adding different signatures of one function write the
    same index entry and data file."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        for name in bot_names():
            if name != "openspiel-mcts":  # native code, nothing to compile
                make_bot(name).prepare()


@pytest.fixture(autouse=True)
def no_endgame_database(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Bots look for an endgame database at $ARENA_ENDGAME_DB or ./.arena: point it at a
    file that is not there, so one built in the checkout does not change what tests see.
    Tests of the database set it themselves."""
    monkeypatch.setenv("ARENA_ENDGAME_DB", str(tmp_path / "no-endgame.sqlite"))


# A second game, registered here only, so every layer is tested on a game other than Amazons.
register(TAKEAWAY)
