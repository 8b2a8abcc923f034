"""Random playouts on line masks: kernels.sample_move draws every legal move equally often,
and random_playout / random_games play whole games from any position."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from engine.amazons import Position, kernels
from tests.engine.strategies import game_positions, positions


def masks(position: Position) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    board, _, _, meta, _ = position.arrays()
    line_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    bit_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    lines = np.zeros(4 * board.shape[0], dtype=np.int64)
    kernels.line_masks(board, int(meta[kernels.STRIDE]), line_of, bit_of, lines)
    return lines, line_of, bit_of


def sample(position: Position, rng: np.ndarray, bound: int) -> int:
    _, _, amazons, meta, _ = position.arrays()
    lines, line_of, bit_of = masks(position)
    steps_of = np.empty(8 * amazons.shape[1], dtype=np.int64)
    rays = np.empty(8, dtype=np.int64)
    return int(
        kernels.sample_move(amazons, meta, rng, lines, line_of, bit_of, steps_of, rays, bound)
    )


def legal(position: Position) -> set[int]:
    board, mob, amazons, meta, _ = position.arrays()
    out = np.empty(kernels.count_moves(board, mob, amazons, meta), dtype=np.int64)
    kernels.generate_moves(board, amazons, meta, out)
    return {int(move) for move in out}


# 8 is the most arrows a queen step has on a 3x3 board (the tightest bound, mostly drawn by
# rejection); 10,000 makes nearly every draw fall through to the exact count.
@pytest.mark.parametrize("bound", [8, 10_000])
def test_sampled_moves_are_uniform(bound: int) -> None:
    # 3x3 board, one white amazon in the corner: 38 legal moves, each drawn about 1/38.
    position = Position.parse("3/3/W2 w")
    moves = legal(position)
    rng = np.array([12345], dtype=np.uint64)
    draws = 40_000
    counts = dict.fromkeys(moves, 0)
    for _ in range(draws):
        counts[sample(position, rng, bound)] += 1
    assert len(counts) == len(moves) == 38
    expected = draws / len(moves)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 80  # 37 degrees of freedom: p < 1e-5 of exceeding this if uniform


@given(positions(max_size=26))
@settings(max_examples=80)
def test_sampled_moves_are_legal_on_any_board(position: Position) -> None:
    rng = np.array([7], dtype=np.uint64)
    moves = legal(position)
    board = position.arrays()[0]
    bound = int((board == kernels.EMPTY).sum())
    for _ in range(20):
        move = sample(position, rng, bound)
        assert move in moves if moves else move == -1


def final(position: Position, seed: int) -> tuple[int, Position]:
    play = position.clone()
    board, mob, amazons, meta, zob = play.arrays()
    rng = np.array([seed], dtype=np.uint64)
    winner = int(kernels.random_playout(board, mob, amazons, meta, zob, rng))
    return winner, play


@given(game_positions())
@settings(max_examples=30)
def test_random_playout_ends_the_game_and_keeps_the_position_consistent(
    position: Position,
) -> None:
    winner, play = final(position, 99)
    board, mob, amazons, meta, zob = play.arrays()
    side = int(meta[kernels.SIDE])
    assert winner == 1 - side
    assert kernels.count_moves(board, mob, amazons, meta) == 0
    fresh = np.zeros_like(mob)
    kernels.compute_mobility(board, fresh, int(meta[kernels.STRIDE]))
    assert (mob == fresh).all()
    assert meta[kernels.HASH] == kernels.zobrist_hash(board, side, zob)
    for s in (0, 1):
        for i in range(int(meta[kernels.COUNT + s])):
            assert board[amazons[s, i]] == s + 1
    assert meta[kernels.PLY] - position.arrays()[3][kernels.PLY] == (
        (board == kernels.ARROW).sum() - (position.arrays()[0] == kernels.ARROW).sum()
    )


def test_a_seed_gives_one_game() -> None:
    position = Position.setup("10x10")
    first = final(position, 5)
    assert first[0] == final(position, 5)[0]
    assert first[1].text() == final(position, 5)[1].text()
    assert first[1].text() != final(position, 6)[1].text()


def test_random_games_leave_the_position_and_play_full_games() -> None:
    position = Position.setup("6x6")
    board, mob, amazons, meta, zob = position.arrays()
    before = [array.copy() for array in (board, mob, amazons, meta)]
    rng = np.array([3], dtype=np.uint64)
    wins, moves = kernels.random_games(board, mob, amazons, meta, zob, rng, 400)
    for array, kept in zip((board, mob, amazons, meta), before, strict=True):
        assert (array == kept).all()
    # Uniformly random 6x6 games last about 25.4 moves, and the first side wins about 49%.
    assert 24.5 < moves / 400 < 26.5
    assert 150 < wins < 250
