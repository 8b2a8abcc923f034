import pytest
from hypothesis import given

from engine import NotationError
from engine.amazons import Move, Square
from tests.engine.strategies import moves, squares


@pytest.mark.parametrize(
    "text",
    ["d1-d7/g7", "d1-d7(g7)", "d1d7g7", "d1 d7 g7", "d1,d7,g7", "D1-D7/G7", " d1 - d7 / g7 "],
)
def test_every_spelling_reads_the_same_move(text: str) -> None:
    assert Move.parse(text) == Move(Square(3, 0), Square(3, 6), Square(6, 6))
    assert str(Move.parse(text)) == "d1-d7/g7"


def test_multi_digit_ranks_and_far_files() -> None:
    move = Move.parse("a10j10z26")
    assert move == Move(Square(0, 9), Square(9, 9), Square(25, 25))
    assert str(move) == "a10-j10/z26"


@given(moves)
def test_move_text_round_trips(move: Move) -> None:
    assert Move.parse(str(move)) == move
    assert eval(repr(move), {"Move": Move}) == move


@given(squares)
def test_square_text_round_trips(square: Square) -> None:
    assert Square.parse(str(square)) == square


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot read move ''"),
        ("d1-d7", "cannot read move 'd1-d7'"),
        ("d1-d7/g7/h8", "cannot read move"),
        ("d1-d7(g7", "cannot read move"),
        ("d1-d0/g7", "'d0' is not a square"),
        ("d1-d07/g7", "'d07' is not a square"),
        ("d1-d27/g7", "ranks run from 1 to 26"),
        ("hello", "expected from-to/arrow such as d1-d7/g7"),
    ],
)
def test_bad_move_text_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message.replace("(", r"\(")):
        Move.parse(text)


def test_notation_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="not a square"):
        Square.parse("k0")
