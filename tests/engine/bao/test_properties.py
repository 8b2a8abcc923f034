"""Invariants of random Bao games: seeds are conserved, no legal move empties its mover's front
row, texts round-trip, and every game ends within the ply cap."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bao import BAO, KUJIFUNZA, BaoGame, BaoPosition, BaoRules, Move
from engine.bao.board import NO_PIT, front_seeds
from engine.bao.position import SEEDS
from engine.game import game_names, get_game

SUICIDE_ALLOWED = BaoRules(own_front_row_emptying_illegal=False)


def _seeds(position: BaoPosition) -> int:
    return sum(position.board.pits) + sum(position.board.stores)


def _random_game(game: BaoGame, seed: int) -> tuple[BaoPosition, list[Move]]:
    """Play a random game to its end, checking each position on the way."""
    rng = random.Random(seed)
    position = game.new_state()
    played: list[Move] = []
    while not position.is_terminal():
        assert len(played) < game.info.max_plies
        assert _seeds(position) == SEEDS
        text = position.text()
        assert len(text) <= game.info.max_position_text
        assert game.parse_state(text).text() == text
        assert game.state_from_bytes(position.to_bytes()).text() == text
        assert position.returns() == (0.0, 0.0)
        move = rng.choice(position.legal_moves)
        written = position.format_move(move)
        assert len(written) <= game.info.max_move_text
        assert position.parse_move(written.lower()) == move
        mover = position.current_player
        before = position.clone()
        position.apply(move)
        played.append(move)
        assert before.text() == text, "a clone shares its board with the original"
        if front_seeds(position.board, mover) == 0:
            assert not game.rules.own_front_row_emptying_illegal, f"{written} in {text}"
            assert position.is_terminal()
            assert position.winner() == 1 - mover
    assert _seeds(position) == SEEDS
    return position, played


@given(st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_random_games_keep_64_seeds_and_end_with_a_winner(seed: int) -> None:
    position, played = _random_game(BAO, seed)
    assert list(position.legal_moves) == []
    winner = position.winner()
    assert winner is not None, "no random game comes near the ply cap"
    assert position.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    loser = 1 - winner
    # The loser is to move with an empty front row or no move left.
    assert position.current_player == loser
    for move in reversed(played):
        assert position.undo() == move
    assert position.text() == BAO.new_state().text()


@given(st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_when_emptying_ones_own_front_row_is_legal_it_loses_at_once(seed: int) -> None:
    position, _ = _random_game(BaoGame(SUICIDE_ALLOWED), seed)
    assert position.winner() is not None


@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=1, max_value=40))
@settings(max_examples=30, deadline=None)
def test_a_game_reaching_the_ply_cap_ends_there_drawn(seed: int, cap: int) -> None:
    game = BaoGame(BaoRules(ply_cap=cap))
    position, played = _random_game(game, seed)
    assert len(played) <= cap
    if position.winner() is None:
        assert len(played) == cap
        assert position.returns() == (0.0, 0.0)


def test_kujifunza_starts_with_two_seeds_in_every_pit_and_no_store() -> None:
    start = BaoGame(KUJIFUNZA).new_state()
    assert start.text() == "/".join(["2,2,2,2,2,2,2,2"] * 4) + " 0-0 - - s mtaji 0"
    # Every sowing toward the front row lands on an occupied marker: 16 captures.
    front = ["A1>", "A2>", "A3>", "A3<", "A4>", "A4<", "A5>", "A5<", "A6>", "A6<", "A7<", "A8<"]
    back = ["B8<", "B7<", "B2>", "B1>"]
    assert sorted(str(move) for move in start.legal_moves) == sorted(front + back)


@given(st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_kujifunza_games_keep_64_seeds_and_never_takasia(seed: int) -> None:
    game = BaoGame(KUJIFUNZA)
    position, played = _random_game(game, seed)
    assert position.winner() is not None
    for _ in played:
        position.undo()
        assert position.board.blocked == NO_PIT


def test_the_game_describes_itself_for_the_server_and_is_registered() -> None:
    info = BAO.info
    assert (info.name, info.players, info.default_setup) == ("bao", 2, "zanzibar")
    # Player 0 is South; the protocol knows the two sides as white and black.
    assert info.player_names == ("white", "black")
    assert info.max_plies == BaoRules().ply_cap
    assert "bao" in game_names()
    assert get_game("bao") is BAO


@given(st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_games_with_a_bound_blocker_round_trip_their_texts(seed: int) -> None:
    position, _ = _random_game(BaoGame(BaoRules(takasia_binds_blocker=True)), seed)
    assert position.winner() is not None
