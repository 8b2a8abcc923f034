"""Settings every test shares."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
import structlog
from hypothesis import settings

import engine.amazons.kernels  # noqa: F401  (see below)
from engine.game import register
from engine.search.registry import bot_names, make_bot
from server.db import Database
from tests.games.takeaway import TAKEAWAY
from tests.redis_cluster import SERVER as CLUSTER_SERVER
from tests.redis_cluster import LocalCluster

# The engine's kernels are compiled in the test process from the start, so a client command
# run in-process (`main(["play", ...])`, which asks for plain-Python kernels) changes nothing:
# engine/jit.py keeps a process compiling once numba is loaded. tests/engine/test_jit.py tests
# the plain-Python kernels in a process of their own.


@pytest.hookimpl(trylast=True)  # after the terminal reporter is there to show progress
def pytest_configure(config: pytest.Config) -> None:
    """With xdist, the controller compiles every kernel the bots use once (or loads it from
    numba's on-disk cache), before its workers start: the workers then load them from the
    cache. Otherwise each worker compiles them all at once on a fresh clone (minutes of CPU
    each, and no test should pay for a compile), and numba's cache index could lose a worker's
    entry to another's: two processes adding different signatures of one function write the
    same index entry and data file."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        names = [name for name in bot_names() if name != "openspiel-mcts"]  # native code
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        start = time.monotonic()
        for done, name in enumerate(names, 1):
            make_bot(name).prepare()
            if reporter is not None and reporter.isatty:
                reporter.write(f"\rthe bots' kernels for the workers: {done}/{len(names)} ready")
        if reporter is not None:
            reporter.write_line(
                f"\rthe bots' kernels for the workers: all {len(names)} ready in "
                f"{time.monotonic() - start:.0f} s (minutes to compile on a fresh clone)"
            )


@pytest.fixture(autouse=True)
def no_endgame_database(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Bots look for an endgame database at $ARENA_ENDGAME_DB or ./.arena: point it at a
    file that is not there, so one built in the checkout does not change what tests see.
    Tests of the database set it themselves."""
    monkeypatch.setenv("ARENA_ENDGAME_DB", str(tmp_path / "no-endgame.sqlite"))


@pytest.fixture(autouse=True)
def logging_as_it_was() -> Iterator[None]:
    """A command run in-process (`main(["user", "create", ...])`) configures the server's logs
    for the whole process; put them back after the test, so what a later test's in-process
    server logs does not depend on which tests its xdist worker ran before."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


# Hypothesis fails an example that runs over 200 ms by the wall clock, which on a loaded machine
# (four workers on two cores, and whatever else runs there) says nothing about the code.
settings.register_profile("arena", deadline=None)
settings.load_profile("arena")

# A second game, registered here only, so every layer is tested on a game other than Amazons.
register(TAKEAWAY)


@pytest.fixture(scope="session")
def database_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database with the schema made, once a session: a test's copy opens at the
    schema's head, without running the migrations again."""
    path = tmp_path_factory.mktemp("database") / "arena.sqlite3"

    async def made() -> None:
        await (await Database.open(f"sqlite:///{path}", path.parent)).close()

    asyncio.run(made())
    return path


@pytest_asyncio.fixture
async def database(database_template: Path, tmp_path: Path) -> AsyncIterator[Database]:
    """The history store of a test's servers: a SQLite file of its own (accounts, tokens)."""
    from tests.server.endpoint import TEST_DATABASE  # the servers a test starts use it

    path = tmp_path / "arena.sqlite3"
    shutil.copyfile(database_template, path)
    opened = await Database.open(f"sqlite:///{path}", tmp_path)
    TEST_DATABASE.append(opened)
    try:
        yield opened
    finally:
        TEST_DATABASE.remove(opened)
        await opened.close()


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A fresh local Redis Cluster (3 masters, 3 replicas, node timeout 1 s) for one test."""
    if not Path(CLUSTER_SERVER).exists():
        pytest.skip("redis-server (Redis 7) is not installed: apt-get install redis-server")
    with LocalCluster(tmp_path / "cluster") as cluster:
        yield cluster
