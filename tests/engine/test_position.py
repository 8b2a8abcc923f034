import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GameOverError, IllegalMoveError, NotationError
from engine.amazons import SETUPS, Move, Position, Side, Square, kernels
from tests.engine.strategies import game_positions, positions

START = "3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3 w"


def test_standard_setup_is_the_documented_text() -> None:
    position = Position.setup("10x10")
    assert position.text() == START
    assert position.side_to_move is Side.WHITE
    assert position.amazons(Side.WHITE) == [Square.parse(s) for s in ("d1", "g1", "a4", "j4")]
    assert position.amazons(Side.BLACK) == [Square.parse(s) for s in ("a7", "j7", "d10", "g10")]


@pytest.mark.parametrize(
    ("name", "white", "black"),
    [
        ("8x8", "c1 f1 a3 h3", "a6 h6 c8 f8"),
        ("6x6", "b1 e1 a2 f2", "a5 f5 b6 e6"),
    ],
)
def test_small_setups_match_the_design(name: str, white: str, black: str) -> None:
    position = Position.setup(name)
    assert position.amazons(Side.WHITE) == [Square.parse(s) for s in white.split()]
    assert position.amazons(Side.BLACK) == [Square.parse(s) for s in black.split()]
    assert position.side_to_move is Side.WHITE


@given(positions(max_size=26))
@settings(max_examples=60)
def test_position_text_round_trips(position: Position) -> None:
    text = position.text()
    again = Position.parse(text)
    assert again == position
    assert again.text() == text
    assert again.zobrist == position.zobrist


@pytest.mark.parametrize("text", [*SETUPS.values(), "x w", "W b", "B1W", "1x22x1/26/26/26 b"])
def test_written_text_is_read_back_unchanged(text: str) -> None:
    expected = text if " " in text else text + " w"
    assert Position.parse(text).text() == expected


def test_missing_side_means_white() -> None:
    assert Position.parse("B1W").side_to_move is Side.WHITE


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty position text"),
        ("3/3 w b", "3 fields"),
        ("3/3 x", "side to move 'x' is neither 'w' nor 'b'"),
        ("3/2 w", "rows of unequal width: rank 2 has 3 squares, rank 1 has 2"),
        ("3//3 w", "rank 2 is empty"),
        ("3/1Q1 w", r"rank 1: unknown character 'Q'"),
        ("3/03 w", "bad empty-square count '03'"),
        ("27 w", "27 files: boards have at most 26"),
        ("/".join(["1"] * 27) + " w", "27 ranks"),
        ("20W9 w", "30 files: boards have at most 26"),
    ],
)
def test_bad_position_text_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Position.parse(text)


@given(st.one_of(positions(max_size=26), game_positions()))
@settings(max_examples=60, deadline=None)  # the first example may compile kernels
def test_position_bytes_round_trip(position: Position) -> None:
    again = Position.from_bytes(position.to_bytes())
    assert again == position
    assert again.zobrist == position.zobrist
    assert again.count_moves() == position.count_moves()
    for side in Side:
        assert again.amazons(side) == position.amazons(side)


_START_BYTES = Position.setup("6x6").to_bytes()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x06\x06", "too short: 2 bytes"),
        (b"\x00\x06\x00" + bytes(64), "a 0x6 board is not allowed"),
        (b"\x06\x06\x02" + _START_BYTES[3:], "side to move 2 is neither 0 nor 1"),
        (_START_BYTES[:-1], "a 6x6 board takes 67 bytes, not 66"),
        (_START_BYTES[:20] + b"\x07" + _START_BYTES[21:], "a square is not empty, W, B or burnt"),
        (_START_BYTES[:3] + b"\x00" + _START_BYTES[4:], "the ring around the board is not burnt"),
    ],
)
def test_bad_position_bytes_name_the_problem(data: bytes, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        Position.from_bytes(data)


def test_unknown_setup_lists_the_known_ones() -> None:
    with pytest.raises(NotationError, match="unknown setup '7x7': known setups are 10x10, 8x8"):
        Position.setup("7x7")


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("e11-e5/e6", "e11 is off the 10x10 board"),
        ("d1-k1/d1", "k1 is off the 10x10 board"),
        ("d2-d5/d6", "no white amazon on d2"),
        ("a7-a6/a5", "no white amazon on a7"),
        ("d1-e3/e4", "move d1-e3 is not along a line"),
        ("d1-d1/d2", "move d1-d1 is not along a line"),
        ("a4-j4/a4", "move path a4-j4 is blocked at j4"),
        ("d1-d7/d10", "arrow path d7-d10 is blocked at d10"),
        ("d1-d7/g10", "arrow path d7-g10 is blocked at g10"),
        ("d1-d9/d9", "arrow d9-d9 is not along a line"),
    ],
)
def test_illegal_moves_name_the_problem(move: str, message: str) -> None:
    position = Position.setup("10x10")
    with pytest.raises(IllegalMoveError, match=message):
        position.apply(Move.parse(move))
    assert position.text() == START


def test_arrow_path_blocked_in_the_middle() -> None:
    position = Position.parse("10/10/10/5x4/10/10/10/10/10/3W2B3 w")
    with pytest.raises(IllegalMoveError, match="arrow path d7-g7 is blocked at f7"):
        position.apply(Move.parse("d1-d7/g7"))


def test_the_arrow_may_land_on_or_pass_the_vacated_square() -> None:
    position = Position.setup("10x10")
    position.apply(Move.parse("d1-d3/d1"))
    position.undo()
    position.apply(Move.parse("d1-d2/d1"))
    assert position.piece_at(Square.parse("d1")) == "x"
    position.undo()
    position.apply(Move.parse("a4-b4/h4"))
    assert position.piece_at(Square.parse("a4")) is None


def test_a_side_without_moves_loses() -> None:
    position = Position.parse("W1B w")
    position.apply(Move.parse("a1-b1/a1"))
    assert position.is_terminal()
    assert position.winner is Side.WHITE
    assert position.returns() == (1.0, -1.0)
    with pytest.raises(GameOverError, match="the game is over: black has no legal move"):
        position.apply(Move.parse("c1-b1/c1"))


def test_zero_amazons_is_a_loss_for_the_side_to_move() -> None:
    position = Position.parse("3/1W1/3 b")
    assert position.is_terminal()
    assert position.winner is Side.WHITE
    assert position.count_moves() == 0
    assert list(position.legal_moves) == []


def test_legal_moves_view() -> None:
    position = Position.setup("6x6")
    moves = list(position.legal_moves)
    assert len(moves) == len(position.legal_moves) == position.legal_moves.count() == 544
    assert len(set(moves)) == 544
    assert Move.parse("b1-b4/b1") in position.legal_moves
    assert Move.parse("b1-b6/b1") not in position.legal_moves
    assert "b1-b4/b1" not in position.legal_moves


@given(st.one_of(positions(max_size=5), game_positions()), st.data())
@settings(max_examples=100, deadline=None)  # the first example may compile kernels
def test_a_move_is_legal_exactly_when_generated(position: Position, data: st.DataObject) -> None:
    legal = set(position.legal_moves)
    on_board = st.builds(
        Square, st.integers(0, position.width - 1), st.integers(0, position.height - 1)
    )
    tried = data.draw(st.lists(st.builds(Move, on_board, on_board, on_board), max_size=40))
    # Near misses too: each legal move with one square moved.
    for move in list(legal)[:20]:
        tried.append(Move(move.origin, move.target, data.draw(on_board)))
        tried.append(Move(move.origin, data.draw(on_board), move.arrow))
    for move in tried:
        assert position.is_legal(move) == (move in legal), move
        if move not in legal:
            with pytest.raises(IllegalMoveError):
                position.check(move)


def _state(position: Position) -> tuple[object, ...]:
    board, mob, amazons, meta, _ = position.arrays()
    count = meta[kernels.COUNT : kernels.COUNT + 2]
    white = sorted(amazons[0, : count[0]])
    black = sorted(amazons[1, : count[1]])
    return (board.tobytes(), mob.tobytes(), tuple(white), tuple(black), meta.tobytes())


@given(game_positions(), st.integers(0, 2**32), st.integers(1, 8))
@settings(max_examples=40, deadline=None)
def test_apply_then_undo_restores_the_exact_state_and_hash(
    position: Position, seed: int, plies: int
) -> None:
    before = _state(position)
    played = []
    for i in range(plies):
        move = position.random_move(seed + i)
        if move is None:
            break
        position.apply(move)
        played.append(move)
        fresh = Position.parse(position.text())
        assert position.zobrist == fresh.zobrist
        assert np.array_equal(position.arrays()[1], fresh.arrays()[1]), "mobility map drifted"
    for move in reversed(played):
        assert position.undo() == move
    assert _state(position) == before


def test_undo_with_nothing_to_undo() -> None:
    with pytest.raises(IndexError, match="no move to undo"):
        Position.setup("6x6").undo()


def test_hash_depends_on_side_to_move() -> None:
    assert Position.parse("B1W w").zobrist != Position.parse("B1W b").zobrist


def test_clone_is_independent() -> None:
    position = Position.setup("8x8")
    copy = position.clone()
    copy.apply(Move.parse("c1-c5/c1"))
    assert position.text() == Position.setup("8x8").text()
    assert copy != position
    assert copy.move_stack == [Move.parse("c1-c5/c1")]
    assert position.move_stack == []


def test_random_move_is_reproducible_and_legal() -> None:
    position = Position.setup("10x10")
    first = position.random_move(7)
    assert first == position.random_move(7)
    assert first in position.legal_moves


def test_random_move_is_uniform() -> None:
    # 3x3 board, one white amazon in the corner: 38 legal moves, each drawn about 1/38.
    position = Position.parse("3/3/W2 w")
    moves = list(position.legal_moves)
    rng = np.random.default_rng(1)
    draws = 40_000
    counts = {move: 0 for move in moves}
    for _ in range(draws):
        move = position.random_move(rng)
        assert move is not None
        counts[move] += 1
    expected = draws / len(moves)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 80  # 37 degrees of freedom: p < 1e-5 of exceeding this if uniform
