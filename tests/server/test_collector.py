"""The server process's garbage collector (server/collector.py): a seated connection's objects
are frozen out of the collector's walks, and the frozen cycles dropped since are collected once
half the connections closed. What is frozen and what is collected, never how long it takes."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator

import pytest

from server import collector
from server.collector import Freezer
from tests.server.endpoint import arena_serving, guest, until


class Cycle:
    """An object that only the collector can free."""

    def __init__(self) -> None:
        self.me = self


def walked(thing: object) -> bool:
    """Whether the collector's collections walk `thing` (frozen objects are in none of them)."""
    return any(found is thing for found in gc.get_objects())


@pytest.fixture
def collector_restored() -> Iterator[None]:
    """The test process's collector as it was: nothing left frozen, its thresholds."""
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_settle_freezes_what_start_made_and_sets_the_thresholds(
    collector_restored: None,
) -> None:
    made = Cycle()
    collector.settle()
    assert gc.get_threshold() == collector.THRESHOLDS
    assert not walked(made)


@pytest.mark.asyncio
async def test_a_seated_connection_is_frozen(
    redis_url: str, collector_restored: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collector, "FREEZE_SECONDS", 0.05)
    freezer = Freezer()
    async with arena_serving(redis_url, freezer=freezer) as (arena, url):
        client = await guest(url)
        (session,) = arena.sessions

        async def frozen() -> bool:
            return not walked(session) and not walked(session.socket)

        await until(frozen, "the connection's objects frozen", seconds=60)
        assert freezer.freezes > 0
        await client.close()


def test_frozen_cycles_are_collected_once_half_the_connections_closed(
    collector_restored: None,
) -> None:
    freezer = Freezer()
    freezer.freeze(10)
    left = Cycle()
    gone = weakref.ref(left)
    freezer.freeze(10)
    del left
    # Connections arriving are no reason; the cycle dropped stays frozen.
    freezer.freeze(20)
    freezer.freeze(20)
    assert gone() is not None
    assert freezer.reclaims == 0
    freezer.freeze(9)
    assert gone() is None
    assert freezer.reclaims == 1
    assert not walked(freezer)
    freezer.freeze(9)
    assert freezer.reclaims == 1


def test_serve_refuses_a_collector_it_does_not_know() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--gc", "off"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(
        "argument --gc: the collector is frozen or python, got 'off'"
    )
