"""The terminal client's start: the time from `arena play URL` starting to the lobby shown
(signed in as a guest, the seeks listed), warm, and the client's resident memory there.

The server is an `arena serve` on a free port with its private Redis in a temporary folder.
Each run is a fresh process that does what `arena play URL` does (imports the `arena` command,
connects, runs the app: here headless, 100x32, with Textual's pilot pressing the guest key);
the time is from starting that process to the lobby's seek list being answered (not to the
process's exit). The first run warms the disk caches and is not counted.

Run from the repository root: python -m bench.tui_startup [--runs N]
"""

from __future__ import annotations

import time

STARTED = time.monotonic()  # before the imports: they are part of the start

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

from bench.serving import arena_serve  # noqa: E402

SIZE = (100, 32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs after one warm-up")
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run(_child(args.child))
        return
    with _server() as url:
        print(f"server {url}; {args.runs} runs after a warm-up", file=sys.stderr)
        results = [_run(url) for _ in range(args.runs + 1)][1:]
    seconds = [s for s, _ in results]
    memory = [m for _, m in results]
    print(f"arena play URL to the lobby, warm: median {statistics.median(seconds):.2f} s")
    print(f"  (min {min(seconds):.2f} s, max {max(seconds):.2f} s over {len(seconds)} runs)")
    print(f"client resident memory at the lobby: median {statistics.median(memory):.0f} MB")


def _run(url: str) -> tuple[float, float]:
    """One fresh client process: (seconds from its start to the lobby, its RSS in MB). The time
    stops when the child says it shows the lobby, not when it has exited."""
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "bench.tui_startup", "--child", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    found = None
    for line in child.stdout:
        found = re.search(r"lobby after ([\d.]+) s, rss ([\d.]+) MB", line)
        if found is not None:
            break
    seconds = time.monotonic() - started
    _, errors = child.communicate()
    if found is None or child.returncode != 0:
        raise SystemExit(f"the client did not reach the lobby and exit:\n{errors}")
    print(
        f"  {seconds:.2f} s ({found.group(1)} s in the process), {found.group(2)} MB",
        file=sys.stderr,
    )
    return seconds, float(found.group(2))


async def _child(url: str) -> None:
    import server.cli  # noqa: F401  (what the `arena` command imports before it parses)
    from clients.tui.app import ArenaApp, open_connection
    from clients.tui.lobby import LobbyScreen

    client = await open_connection(url)
    app = ArenaApp(url, client)

    async def sign_in(pilot: object) -> None:
        from textual.pilot import Pilot

        assert isinstance(pilot, Pilot)
        await pilot.press("ctrl+g")
        while not (isinstance(app.screen, LobbyScreen) and app.screen.following):
            await asyncio.sleep(0.005)
        elapsed = time.monotonic() - STARTED
        print(f"lobby after {elapsed:.3f} s, rss {_rss_mb():.1f} MB", flush=True)
        app.exit()

    await app.run_async(headless=True, size=SIZE, auto_pilot=sign_in)
    await client.close()


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def _server() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder, arena_serve(Path(folder)) as url:
        yield url


if __name__ == "__main__":
    main()
