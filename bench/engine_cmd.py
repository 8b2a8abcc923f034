"""What the bot line protocol costs a move: the same bot (the engine's `random`) asked for moves
in this process (`--engine random`) and as a program behind the line protocol (`--engine-cmd`,
this file run with `--program`), on the same positions, alternating, in one run. Prints the
median time a move of each and the difference, per board size.

Run from the repository root: python -m bench.engine_cmd [--moves N]. Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import time

import structlog

from clients.engines import Engine, GameSoFar, InProcessEngine
from clients.program import ProgramEngine
from engine.amazons import Position
from engine.search.bot import Budget, ClockReading
from engine.search.registry import make_bot

BUDGET = Budget(clock=ClockReading(own=60.0, opponent=60.0, increment=0.0))


def serve_program() -> None:
    """The line protocol's program side, choosing with the engine's random bot."""
    bot = make_bot("random")
    bot.prepare()
    position: Position | None = None
    for line in sys.stdin:
        word, _, rest = line.rstrip("\n").partition(" ")
        if word == "arena":
            print("name bench-random\ngames amazons\nready", flush=True)
        elif word == "position":
            position = Position.parse(rest)
        elif word == "go":
            assert position is not None
            print(f"move {position.format_move(bot.choose(position, BUDGET).move)}", flush=True)
        elif word == "quit":
            return


def _games(setup: str, count: int, seed: int) -> list[GameSoFar]:
    """Games part-way through random play, from the opening to the middle game."""
    found = []
    for i in range(count):
        game = GameSoFar.new("amazons", setup)
        for ply in range((i * 7) % 30):
            move = game.state.random_move(seed + 1000 * i + ply)
            if move is None:
                break
            game = game.after(str(move))
        if not game.state.is_terminal():
            found.append(game)
    return found


async def _time_moves(engine: Engine, games: list[GameSoFar]) -> list[float]:
    seconds = []
    for game in games:
        start = time.perf_counter()
        await engine.choose(game, BUDGET)
        seconds.append(time.perf_counter() - start)
    return seconds


async def measure(moves: int) -> None:
    in_process = InProcessEngine("random")
    program = ProgramEngine([sys.executable, "-m", "bench.engine_cmd", "--program"])
    await in_process.prepare()
    await program.prepare()
    try:
        for setup in ("10x10", "6x6"):
            games = _games(setup, moves, 5)
            local: list[float] = []
            piped: list[float] = []
            for chunk in range(0, len(games), 50):  # alternating, so both see the same load
                local += await _time_moves(in_process, games[chunk : chunk + 50])
                piped += await _time_moves(program, games[chunk : chunk + 50])
            local_ms = statistics.median(local) * 1000
            piped_ms = statistics.median(piped) * 1000
            print(
                f"{setup}: --engine random {local_ms:.3f} ms a move, --engine-cmd (the same "
                f"bot as a program) {piped_ms:.3f} ms: the line protocol adds "
                f"{piped_ms - local_ms:.3f} ms (medians of {len(games)} moves)"
            )
    finally:
        await program.close()
        await in_process.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=2000, help="moves timed per board size")
    parser.add_argument("--program", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.program:
        serve_program()
    else:
        # Figures only: not the program's handshake in the log.
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
        asyncio.run(measure(args.moves))


if __name__ == "__main__":
    main()
