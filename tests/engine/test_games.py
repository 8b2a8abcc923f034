"""Conformance of every registered game with the generic interface."""

import random

import pytest

from engine import NotationError, game_names, get_game


@pytest.mark.parametrize("name", game_names())
def test_random_games_follow_the_interface(name: str) -> None:
    game = get_game(name)
    info = game.info
    assert info.name == name
    assert info.players == 2
    assert info.default_setup in info.setups
    rng = random.Random(0)
    for setup in info.setups:
        for _ in range(3):
            state = game.new_state(setup)
            history = []
            while not state.is_terminal():
                assert state.returns() == (0.0, 0.0)
                moves = list(state.legal_moves)
                assert moves
                assert len(state.legal_moves) == len(moves)
                move = rng.choice(moves)
                assert move in state.legal_moves
                text = state.format_move(move)
                assert state.parse_move(text) == move
                before = state.text()
                copy = state.clone()
                state.apply(move)
                history.append(move)
                assert copy.text() == before, "clone shares state with the original"
                assert game.parse_state(state.text()).text() == state.text()
            utilities = state.returns()
            assert sorted(utilities) == [info.min_utility, info.max_utility]
            assert sum(utilities) == 0.0
            assert list(state.legal_moves) == []
            for move in reversed(history):
                assert state.undo() == move
            assert state.text() == game.new_state(setup).text()


def test_unknown_game_names_the_registered_ones() -> None:
    with pytest.raises(NotationError, match="unknown game 'chess': registered games are amazons"):
        get_game("chess")
