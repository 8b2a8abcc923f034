"""Move generation checked against OpenSpiel's Amazons along random games (skipped when
open-spiel is not installed)."""

import pytest

from engine.amazons import Move, Position
from engine.search.openspiel import cell, square

pyspiel = pytest.importorskip("pyspiel")


def _openspiel_moves(state: object, size: int) -> set[Move]:
    moves = set()
    for a in state.legal_actions():  # type: ignore[attr-defined]
        s1 = state.child(a)  # type: ignore[attr-defined]
        for b in s1.legal_actions():
            s2 = s1.child(b)
            for c in s2.legal_actions():
                moves.add(Move(square(a, size), square(b, size), square(c, size)))
    return moves


@pytest.mark.parametrize(
    ("setup", "size", "seed"), [("6x6", 6, 1), ("8x8", 8, 2), ("10x10", 10, 3)]
)
def test_legal_moves_match_openspiel_along_a_random_game(setup: str, size: int, seed: int) -> None:
    game = pyspiel.load_game("amazons", {"board_size": size})
    state = game.new_initial_state()
    position = Position.setup(setup)
    while True:
        assert set(position.legal_moves) == _openspiel_moves(state, size), position.text()
        assert position.is_terminal() == state.is_terminal()
        move = position.random_move(seed + position.ply)
        if move is None:
            break
        position.apply(move)
        for sq in (move.origin, move.target, move.arrow):
            state.apply_action(cell(sq, size))
    assert state.returns()[position.winner] == 1.0
