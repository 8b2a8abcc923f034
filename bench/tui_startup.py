"""The terminal client's start: the time from `arena play URL` starting to the lobby shown
(signed in as a guest, the seeks listed), warm, and the client's resident memory there; then
its memory in a game.

The server is an `arena serve` on a free port with its private Redis in a temporary folder.
Each run is a fresh process that does what `arena play URL` does (imports the `arena` command,
connects, runs the app: here headless, 100x32, with Textual's pilot pressing the guest key);
the time is from starting that process to the lobby's seek list being answered (not to the
process's exit). The first run warms the disk caches and is not counted.

In a game: the client takes a scripted guest's 10x10 seek from the lobby and plays White, each
move picked with the cursor keys (every step's legal targets shown), against random replies;
after MOVES of its moves it reports its resident memory (and the peak). As `arena play` does, the
engine's kernels run as plain Python in the client (engine/jit.py); the baseline, in the same
run, is the same game with them compiled by numba.

Run from the repository root: python -m bench.tui_startup [--runs N] [--games N]
"""

from __future__ import annotations

import time

STARTED = time.monotonic()  # before the imports: they are part of the start

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

from bench.serving import arena_serve  # noqa: E402

SIZE = (100, 32)
MOVES = 15  # the client's moves in a game before its memory is read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs after one warm-up")
    parser.add_argument("--games", type=int, default=3, help="games each way, for memory")
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--game", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--compiled", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run(_child_game(args.child, args.compiled) if args.game else _child(args.child))
        return
    with _server() as url:
        print(f"server {url}; {args.runs} runs after a warm-up", file=sys.stderr)
        results = [_run(url) for _ in range(args.runs + 1)][1:]
        games = {
            compiled: [asyncio.run(_game(url, compiled)) for _ in range(args.games)]
            for compiled in (True, False)
        }
    seconds = [s for s, _ in results]
    memory = [m for _, m in results]
    print(f"arena play URL to the lobby, warm: median {statistics.median(seconds):.2f} s")
    print(f"  (min {min(seconds):.2f} s, max {max(seconds):.2f} s over {len(seconds)} runs)")
    print(f"client resident memory at the lobby: median {statistics.median(memory):.0f} MB")
    for compiled, how in ((False, "kernels as Python, as arena play"), (True, "compiled")):
        rss = statistics.median(r for r, _ in games[compiled])
        peak = statistics.median(p for _, p in games[compiled])
        print(
            f"client memory after {MOVES} moves of a 10x10 game, {how}: median {rss:.0f} MB "
            f"(peak {peak:.0f} MB) over {len(games[compiled])} games"
        )


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
        print(f"lobby after {elapsed:.3f} s, rss {_memory_mb('VmRSS'):.1f} MB", flush=True)
        app.exit()

    await app.run_async(headless=True, size=SIZE, auto_pilot=sign_in)
    await client.close()


async def _game(url: str, compiled: bool) -> tuple[float, float]:
    """One client process playing White against a scripted guest's random moves: its
    (resident, peak) memory in MB after MOVES moves."""
    from clients import ArenaClient
    from server.protocol import GameStatus, PlayMove, Seek, SeekAdded, TimeControl

    opponent = await ArenaClient.connect(url)
    await opponent.guest()
    await opponent.request(Seek(TimeControl(900, 0), setup="10x10", colour="black"), SeekAdded)
    command = [sys.executable, "-m", "bench.tui_startup", "--child", url, "--game"]
    child = await asyncio.create_subprocess_exec(
        *command, *(["--compiled"] if compiled else []), stdout=asyncio.subprocess.PIPE
    )

    async def answer() -> None:
        await opponent.wait_for(lambda c: bool(c.games), timeout=60)
        (game_id,) = opponent.games
        while True:
            await opponent.wait_for(
                lambda c: (
                    c.games[game_id].status is GameStatus.ENDED
                    or c.games[game_id].to_move.value == "black"
                ),
                timeout=None,
            )
            view = opponent.games[game_id]
            if view.status is GameStatus.ENDED:
                return
            state = view.position()
            move = random.choice(sorted(state.legal_moves, key=str))
            await opponent.request(PlayMove(game_id, view.ply, state.format_move(move)))

    replies = asyncio.create_task(answer())
    assert child.stdout is not None
    output = (await child.stdout.read()).decode()
    await child.wait()
    replies.cancel()
    await opponent.close()
    found = re.search(r"game rss ([\d.]+) MB, peak ([\d.]+) MB", output)
    if found is None or child.returncode != 0:
        raise SystemExit(f"the client did not play its moves: {output}")
    rss, peak = float(found.group(1)), float(found.group(2))
    how = "compiled" if compiled else "as Python"
    print(f"  a game, kernels {how}: {rss:.0f} MB (peak {peak:.0f} MB)", file=sys.stderr)
    return rss, peak


async def _child_game(url: str, compiled: bool) -> None:
    import server.cli  # noqa: F401
    from engine.jit import run_as_python

    if not compiled:
        run_as_python()  # as `arena play` does, before the board's module loads the engine
    from clients.tui.amazons_board import AmazonsBoard
    from clients.tui.app import ArenaApp, open_connection
    from clients.tui.game import GameScreen
    from clients.tui.lobby import LobbyScreen
    from server.protocol import Colour

    client = await open_connection(url)
    app = ArenaApp(url, client)

    async def play(pilot: object) -> None:
        from textual.pilot import Pilot

        assert isinstance(pilot, Pilot)
        await pilot.press("ctrl+g")
        while not (isinstance(app.screen, LobbyScreen) and client.core.seeks):
            await asyncio.sleep(0.01)
        await pilot.press("a")
        while not isinstance(app.screen, GameScreen):
            await asyncio.sleep(0.01)
        game = app.screen
        board = game.query_one(AmazonsBoard)
        await pilot.press("ctrl+b")
        for _ in range(MOVES):
            while game.view.to_move is not Colour.WHITE:
                await asyncio.sleep(0.01)
            ply = game.view.ply
            moves = list(game.view.position().legal_moves)
            if not moves:
                break
            move = moves[len(moves) // 2]
            for square in (move.origin, move.target, move.arrow):
                at = board.cursor
                files, ranks = square.file - at.file, square.rank - at.rank
                keys = ["right" if files > 0 else "left"] * abs(files)
                keys += ["up" if ranks > 0 else "down"] * abs(ranks)
                await pilot.press(*keys, "enter")
            while game.view.ply < ply + 2 and game.view.status.value == "playing":
                await asyncio.sleep(0.01)
        print(f"game rss {_memory_mb('VmRSS'):.1f} MB, peak {_memory_mb('VmHWM'):.1f} MB")
        app.exit()

    await app.run_async(headless=True, size=SIZE, auto_pilot=play)
    await client.close()


def _memory_mb(field: str) -> float:
    """This process's resident memory (VmRSS) or its peak (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def _server() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder, arena_serve(Path(folder)) as url:
        yield url


if __name__ == "__main__":
    main()
