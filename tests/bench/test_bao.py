"""The plain-Python Bao rules that bench/bao.py measures the kernels against give the engine's
legal moves and boards, under every rule flag, so the speed ratio compares the same rules."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import bao as bench_bao
from bench import bao_python
from engine.bao import BaoGame, BaoPosition, BaoRules, Board
from engine.bao.board import NO_PIT
from tests.engine.bao.test_kernels import RULE_SETS


def _agree(position: BaoPosition) -> None:
    assert bao_python.legal_moves(position.board, position.rules) == position.moves(), (
        position.text()
    )


@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(RULE_SETS))
@settings(max_examples=60, deadline=None)
def test_random_games_agree_with_the_engine(seed: int, rules: BaoRules) -> None:
    rng = random.Random(seed)
    position = BaoGame(rules).new_state()
    while not position.is_terminal():
        _agree(position)
        position.apply(rng.choice(position.legal_moves))
    _agree(position)


@given(
    st.lists(st.integers(min_value=0, max_value=31), min_size=10, max_size=58),
    st.booleans(),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=-1, max_value=7),
    st.sampled_from(RULE_SETS),
)
@settings(max_examples=300, deadline=None)
def test_random_boards_agree_with_the_engine(
    seeds: list[int], north: bool, store: int, blocked: int, rules: BaoRules
) -> None:
    pits = [0] * 32
    for pit in seeds:
        pits[pit] += 1
    mover = int(north)
    if store or blocked < 0 or pits[mover * 16 + blocked] == 0:
        blocked = NO_PIT
    owned = (pits[4] > 0, pits[20] > 0)
    board = Board(tuple(pits), (store, store), owned, mover, blocked, 50)
    _agree(BaoPosition(board, rules))


def test_the_benchmark_prints_perft_and_the_three_speeds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench_bao.main(["--depth", "5", "--games", "20", "--api-games", "3", "--plain-games", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:6] == [line for line in lines[1:6] if line.endswith("leaves/s)")]
    assert [line.split(":")[0] for line in lines[1:6]] == [f"perft {d}" for d in range(1, 6)]
    assert all(" ok in " in line for line in lines[1:6])
    assert lines[6].startswith("plain Python perft 5: 405 in ")
    assert [line.split(":")[0] for line in lines[7:10]] == [
        "numba kernels",
        "BaoPosition API",
        "plain Python",
    ]
    assert lines[10].startswith("kernels / plain Python: ")
