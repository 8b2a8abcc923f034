"""Conformance of every registered game with the generic interface."""

import random
from dataclasses import replace

import pytest

from engine import GameInfo, NotationError, game_names, get_game, register
from tests.games.takeaway import TAKEAWAY, TakeAway


@pytest.mark.parametrize("name", game_names())
def test_random_games_follow_the_interface(name: str) -> None:
    game = get_game(name)
    info = game.info
    assert info.name == name
    assert info.players == 2
    assert info.default_setup in info.setups
    assert len(info.player_names) == info.players
    assert len(set(info.player_names)) == info.players
    rng = random.Random(0)
    for setup in info.setups:
        for _ in range(3):
            state = game.new_state(setup)
            history = []
            while not state.is_terminal():
                assert len(history) < info.max_plies
                assert len(state.text()) <= info.max_position_text
                assert state.returns() == (0.0, 0.0)
                moves = list(state.legal_moves)
                assert moves
                assert len(state.legal_moves) == len(moves)
                move = rng.choice(moves)
                assert move in state.legal_moves
                text = state.format_move(move)
                assert len(text) <= info.max_move_text
                assert state.parse_move(text) == move
                before = state.text()
                copy = state.clone()
                state.apply(move)
                history.append(move)
                assert copy.text() == before, "clone shares state with the original"
                assert game.parse_state(state.text()).text() == state.text()
                stored = game.state_from_bytes(state.to_bytes())
                assert stored.text() == state.text()
                assert stored.current_player == state.current_player
            utilities = state.returns()
            assert sorted(utilities) == [info.min_utility, info.max_utility]
            assert sum(utilities) == 0.0
            assert list(state.legal_moves) == []
            for move in reversed(history):
                assert state.undo() == move
            assert state.text() == game.new_state(setup).text()


def test_the_test_suite_registers_a_second_game() -> None:
    assert game_names() == ["amazons", "bao", "takeaway"]
    assert get_game("takeaway") is TAKEAWAY


def test_unknown_game_names_the_registered_ones() -> None:
    with pytest.raises(
        NotationError, match="unknown game 'chess': registered games are amazons, bao, takeaway"
    ):
        get_game("chess")


def test_registering_again_is_harmless_but_a_taken_name_is_refused() -> None:
    register(TAKEAWAY)
    assert get_game("takeaway") is TAKEAWAY
    with pytest.raises(ValueError, match="a game called 'takeaway' is already registered"):
        register(TakeAway())
    with pytest.raises(ValueError, match="a game called 'amazons' is already registered"):
        register(_Impostor("amazons"))


class _Impostor(TakeAway):
    """Another game that claims a taken name."""

    def __init__(self, name: str) -> None:
        self.renamed = replace(TAKEAWAY.info, name=name)

    @property
    def info(self) -> GameInfo:  # type: ignore[override]
        return self.renamed


def test_game_info_names_every_player_and_its_default_setup() -> None:
    with pytest.raises(ValueError, match="game 'odd' has 2 players but names 1: white"):
        replace(TAKEAWAY.info, name="odd", player_names=("white",))
    with pytest.raises(ValueError, match="default setup '7' is not one of its setups 10, 21"):
        replace(TAKEAWAY.info, default_setup="7")


def test_take_away_refuses_bad_moves_and_positions_by_name() -> None:
    state = TAKEAWAY.parse_state("2 b")
    assert state.current_player == 1
    with pytest.raises(ValueError, match="cannot take 3: take 1 to 2 counters"):
        state.parse_move("3")
    with pytest.raises(NotationError, match="'x' is not a number of counters to take"):
        state.parse_move("x")
    with pytest.raises(NotationError, match="the side to move must be w or b"):
        TAKEAWAY.parse_state("5 q")
    state.apply(2)
    assert state.returns() == (-1.0, 1.0), "black took the last counter"
