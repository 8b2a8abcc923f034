"""A newcomer's first start: from a fresh virtual environment (`pip install SOURCE`, not
editable, so numba's cache starts empty) the time from `arena serve` starting to it listening,
to a guest signed in (what the sign-in screen of `arena play` needs), and to each house bot
ready (its first challenge answered with a game); then the same on a second start, with the
caches the first one left.

A house bot counts as ready when a challenge to it starts a game: each bot is challenged by a
guest of its own, asked again every POLL_SECONDS while the server says it is not ready, and its
game is aborted at once. The machine's load average is printed with the figures: on a shared
machine they move with it.

With `--bots NAME ...` only those house bots are challenged, as a newcomer who wants one
bot: the workers prepare a bot someone waits for ahead of the others, so this times that.

Run from the repository root: python -m bench.first_start [--source PATH] [--venv PATH]
[--starts N] [--bots NAME ...] (the venv is made, and removed afterwards, unless given: an
existing one measures a start with the caches it has).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from clients.connection import ArenaClient, ArenaError
from server.protocol import (
    Abort,
    Challenge,
    ColourPreference,
    ErrorCode,
    GameStarted,
    ListOffers,
    OfferList,
    TimeControl,
)

POLL_SECONDS = 0.5  # between challenges to a bot not ready yet
GIVE_UP_SECONDS = 900.0  # for every house bot to be ready
TIME = TimeControl(300, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source", type=Path, default=Path.cwd(), help="what to pip install (default: here)"
    )
    parser.add_argument("--venv", type=Path, help="use this virtual environment as it is")
    parser.add_argument("--starts", type=int, default=2, help="starts to time (default 2)")
    parser.add_argument(
        "--bots", nargs="+", metavar="NAME", help="challenge only these house bots (default: all)"
    )
    args = parser.parse_args()
    with _environment(args.venv, args.source) as venv:
        for number in range(1, args.starts + 1):
            with tempfile.TemporaryDirectory(prefix="arena-first-start-") as data:
                figures = asyncio.run(_start(venv, Path(data), args.bots))
            _report(number, figures)


@contextlib.contextmanager
def _environment(given: Path | None, source: Path) -> Iterator[Path]:
    if given is not None:
        yield given
        return
    folder = Path(tempfile.mkdtemp(prefix="arena-venv-"))
    try:
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run(
            [str(folder / "bin" / "pip"), "install", "--quiet", str(source.resolve())],
            check=True,
        )
        print(f"fresh venv with `pip install {source}`: {time.monotonic() - started:.0f} s")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _start(venv: Path, data: Path, only: list[str] | None = None) -> dict[str, float | None]:
    """Start `arena serve` from `venv` on `data` and time it, to each house bot ready (or each
    of `only`); stop it."""
    figures: dict[str, float | None] = {}
    errors = (data / "serve.log").open("wb")
    started = time.monotonic()
    server = await asyncio.create_subprocess_exec(
        str(venv / "bin" / "arena"),
        "serve",
        "--port",
        "0",
        "--data-dir",
        str(data),
        stdout=asyncio.subprocess.PIPE,
        stderr=errors,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # Not the checkout's folder: the workers it starts (`python -m server.cli worker`)
        # would import the checkout's engine, with the numba cache its tests left, not the
        # fresh install's.
        cwd=data,
    )
    assert server.stdout is not None
    try:
        url = None
        while url is None:
            line = await server.stdout.readline()
            if not line:
                status = await server.wait()
                log = (data / "serve.log").read_text(errors="replace")[-3000:]
                raise SystemExit(f"the server stopped with status {status}:\n{log}")
            found = re.search(rb"serving on (ws://\S+)", line)
            url = found.group(1).decode() if found else None
        figures["listening"] = time.monotonic() - started
        draining = asyncio.create_task(_drain(server.stdout))
        first = await ArenaClient.connect(url, "bench-first-start")
        await first.guest()
        figures["signed in (guest)"] = time.monotonic() - started
        offers = (await first.request(ListOffers(), OfferList)).offers
        bots = [(game.game, bot) for game in offers.games or () for bot in game.house_bots]
        bots = [(game, bot) for game, bot in bots if only is None or bot in only]
        async with asyncio.timeout(GIVE_UP_SECONDS):
            readies = await asyncio.gather(*(_ready(url, game, bot) for game, bot in bots))
        for (game, bot), ready in zip(bots, readies, strict=True):
            figures[f"{bot} ready ({game})"] = ready - started
        await first.close()
    finally:
        if server.returncode is None:
            server.terminate()
        await server.wait()
        errors.close()
    await draining
    return figures


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


async def _ready(url: str, game: str, bot: str) -> float:
    """When a challenge to house bot `bot` at `game` first starts a game."""
    client = await ArenaClient.connect(url, "bench-first-start")
    try:
        await client.guest()
        while True:
            try:
                started = await client.request(
                    Challenge(bot, TIME, colour=ColourPreference.WHITE, game=game), GameStarted
                )
            except ArenaError as error:
                if error.code is not ErrorCode.UNAVAILABLE:
                    raise
                await asyncio.sleep(POLL_SECONDS)
                continue
            ready = time.monotonic()
            with contextlib.suppress(ArenaError):
                await client.request(Abort(started.game_id))
            return ready
    finally:
        await client.close()


def _report(number: int, figures: dict[str, float | None]) -> None:
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"start {number} (load average {load}):")
    for what, seconds in figures.items():
        print(f"  {what:32} {'-' if seconds is None else f'{seconds:6.1f} s'}")
    bots = [s for what, s in figures.items() if what.endswith(")") and s is not None]
    if bots:
        print(f"  {'every house bot ready':32} {max(bots):6.1f} s")


if __name__ == "__main__":
    main()
