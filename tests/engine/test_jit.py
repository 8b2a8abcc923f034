"""The engine's kernels as plain Python (engine/jit.py), as the terminal client runs them: the
same answers as the compiled kernels on whole random games, and `arena play` asks for them
before anything loads numba. Each runs in a fresh process: this one compiles."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from dataclasses import astuple

import numpy as np

from engine.amazons import Move, Position, kernels
from engine.jit import compiling
from engine.search.evaluation import evaluation_terms


def game_digest(setup: str, seed: int) -> list[object]:
    """What the client asks of a position, along a random game from `setup`: the legal moves in
    order, their count, the regions, the evaluation's terms, two illegal moves' reasons, and
    the hash."""
    position = Position.setup(setup)
    rng = random.Random(seed)
    digest: list[object] = []
    while True:
        moves = [str(move) for move in position.legal_moves]
        regions = sorted((str(r.kind), len(r.squares)) for r in position.regions())
        terms = [round(value, 9) for value in astuple(evaluation_terms(position))]
        refused = []
        for move in moves[:2]:
            parsed = Move.parse(move)
            backwards = Move(parsed.target, parsed.origin, parsed.arrow)
            refused.append(position.is_legal(backwards))
        digest.append([moves, position.count_moves(), regions, terms, refused, position.zobrist])
        if not moves:
            return digest
        position.apply(position.parse_move(rng.choice(moves)))


PLAIN = """
import json, sys
from engine.jit import run_as_python
assert run_as_python()
from tests.engine.test_jit import game_digest
from engine.jit import compiling
assert not compiling() and "numba" not in sys.modules
print(json.dumps([game_digest(setup, seed) for setup, seed in GAMES]))
assert "numba" not in sys.modules
"""

GAMES = [("6x6", 1), ("8x8", 2), ("10x10", 3)]


def test_plain_python_kernels_answer_as_the_compiled_ones() -> None:
    assert compiling()
    script = textwrap.dedent(PLAIN).replace("GAMES", repr(GAMES))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    compiled = json.loads(json.dumps([game_digest(setup, seed) for setup, seed in GAMES]))
    plain = json.loads(done.stdout)
    assert [len(game) for game in plain] == [len(game) for game in compiled]
    assert plain == compiled


ARENA_PLAY = """
import sys
from server.cli import main
try:
    main(["play", "ws://127.0.0.1:1"])
except SystemExit as exit:
    print(exit.code)
from engine.amazons import Position
from engine.jit import compiling
Position.setup("10x10").legal_moves.count()
print(compiling(), "numba" in sys.modules)
"""


def test_arena_play_runs_the_kernels_as_python() -> None:
    done = subprocess.run([sys.executable, "-c", ARENA_PLAY], capture_output=True, text=True)
    assert done.stdout.split() == ["2", "False", "False"], done.stderr


PLAIN_GAMES = """
import numpy as np
from engine.jit import run_as_python
assert run_as_python()
from engine.amazons import Position, kernels
board, mob, amazons, meta, zob = Position.setup("8x8").arrays()
rng = np.array([11], dtype=np.uint64)
print(*kernels.random_games(board, mob, amazons, meta, zob, rng, 3), rng[0])
"""


def test_plain_python_random_games_play_the_compiled_games() -> None:
    # The line masks' bit scans are numba intrinsics compiled and Python's int methods plain.
    done = subprocess.run([sys.executable, "-c", PLAIN_GAMES], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    board, mob, amazons, meta, zob = Position.setup("8x8").arrays()
    rng = np.array([11], dtype=np.uint64)
    wins, moves = kernels.random_games(board, mob, amazons, meta, zob, rng, 3)
    assert done.stdout.split() == [str(wins), str(moves), str(rng[0])]
