"""Bao's numba kernels (engine/bao/kernels.py): the same answers run as plain Python
(engine/jit.py, as the terminal client runs them) as compiled, random playouts that end with
64 seeds, and the safety net for never-ending moves whose cycle is too long to wait for."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from engine.bao import BaoGame, BaoPosition, BaoRules, MtajiHouse, NamuaTakasaStart
from engine.bao import kernels as bao_kernels
from engine.bao.board import board_array, board_of_array, rule_array, start_board
from engine.errors import IllegalMoveError
from engine.jit import compiling

RULE_SETS = [
    BaoRules(),
    BaoRules(
        namua_takasa_start=NamuaTakasaStart.HOUSE_LAST,
        own_front_row_emptying_illegal=False,
        takasia_of_singletons=True,
        takasia_needs_no_capture=False,
    ),
    BaoRules(
        mtaji_house=MtajiHouse.KEPT_UNTIL_FIRST_CAPTURE,
        namua_takasa_start=NamuaTakasaStart.ANY_WHILE_OWNED,
        tax_needs_functional_house=False,
        takasia_binds_blocker=True,
        functional_house_seeds=5,
    ),
    BaoRules(kujifunza=True),
]


def digest(games: int) -> list[object]:
    """Along random games under each rule set: every position's text and its legal moves with
    the text of the board each leaves; then perft(5) and kernel playouts from the start."""
    found: list[object] = []
    for number, rules in enumerate(RULE_SETS):
        rng = random.Random(number)
        for _ in range(games):
            position = BaoGame(rules).new_state()
            while True:
                moves = position.moves()
                found.append(
                    [
                        position.text(),
                        [[str(move), BaoPosition(after).text()] for move, after in moves.items()],
                    ]
                )
                if not moves:
                    break
                position.apply(rng.choice(list(moves)))
        found.append(BaoPosition(rules=rules).perft(4))
        for seed in range(2):
            state = board_array(start_board(rules))
            plies = int(bao_kernels.random_game(state, rule_array(rules), seed))
            found.append([plies, BaoPosition(board_of_array(state)).text()])
    return found


PLAIN = """
import json, sys
from engine.jit import run_as_python
assert run_as_python()
from tests.engine.bao.test_kernels import digest
from engine.jit import compiling
assert not compiling() and "numba" not in sys.modules
print(json.dumps(digest(GAMES)))
assert "numba" not in sys.modules
"""

GAMES = 2


def test_plain_python_kernels_answer_as_the_compiled_ones() -> None:
    assert compiling()
    script = PLAIN.replace("GAMES", repr(GAMES))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    plain = json.loads(done.stdout)
    compiled = json.loads(json.dumps(digest(GAMES)))
    assert len(plain) == len(compiled)
    assert plain == compiled


def test_random_playouts_end_the_game_with_64_seeds() -> None:
    rules = rule_array(BaoRules())
    for seed in range(200):
        state = board_array(start_board())
        plies = bao_kernels.random_game(state, rules, seed)
        position = BaoPosition(board_of_array(state))
        assert position.board.ply == plies > 0
        assert sum(position.board.pits) + sum(position.board.stores) == 64
        assert position.is_terminal()
        assert position.winner() is not None


# Found by a kernel playout: North's A1< relays round a cycle of 403,759,088 laps.
LONG_CYCLE = "0,1,6,1,6,3,0,5/1,0,10,9,1,5,6,3/0,0,0,0,0,0,1,0/1,2,1,0,0,2,0,0 0-0 - - n mtaji 63"


def test_a_move_still_sowing_after_the_lap_limit_counts_as_never_ending() -> None:
    position = BaoPosition.parse(LONG_CYCLE)
    began = time.perf_counter()
    moves = [str(move) for move in position.legal_moves]
    assert time.perf_counter() - began < 1.0
    assert moves == ["A1>", "A2>", "A2<", "A3>", "A3<", "A5>", "A5<", "A6>", "A6<"]
    message = f"A1< is not allowed: it is still sowing after {bao_kernels.MAX_LAPS:,} laps"
    with pytest.raises(IllegalMoveError, match=re.escape(message)):
        position.parse_move("A1<")


def test_perft_kernel_counts_the_start_to_depth_7() -> None:
    state = board_array(start_board())
    rules = rule_array(BaoRules())
    assert [bao_kernels.perft(state, rules, depth) for depth in range(8)] == [
        1, 4, 14, 38, 124, 405, 1430, 5655,
    ]  # fmt: skip
    assert np.array_equal(state, board_array(start_board())), "perft leaves its board alone"
