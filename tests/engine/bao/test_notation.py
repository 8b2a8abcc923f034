"""Bao move and position text: what is written, what is read, and the errors that name the
rule broken."""

import pytest

from engine.bao import BAO, CCW, CW, BaoPosition, Move
from engine.errors import GameOverError, IllegalMoveError, NotationError

START = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22-22 SN - s namua 0"
NEVER_ENDING = "2,0,1,1,0,0,0,2/0,1,0,0,0,0,0,0/1,0,1,2,1,2,0,2/0,1,0,1,0,1,2,1 0-0 - - s mtaji 100"


def test_the_start_is_written_as_documented() -> None:
    assert BAO.new_state().text() == START
    assert BaoPosition.parse(START).text() == START


def test_moves_are_read_in_any_case_and_spacing_and_written_one_way() -> None:
    for text in ("A6>", "a6>", " a 6 > ", "A6 >"):
        assert Move.parse(text) == Move(5, CW)
    assert Move.parse("b1<+") == Move(15, CCW, safari=True)
    assert str(Move(15, CCW, safari=True)) == "B1<+"
    assert str(Move(8, CW)) == "B8>"
    assert [str(Move.parse(str(Move(pit, d)))) for pit in (0, 7, 8, 15) for d in (CW, CCW)] == [
        "A1>",
        "A1<",
        "A8>",
        "A8<",
        "B8>",
        "B8<",
        "B1>",
        "B1<",
    ]


@pytest.mark.parametrize("text", ["", "A9>", "C1>", "A1", "A1>>", "A1+", "1A>"])
def test_malformed_move_text_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError, match="is not a Bao move"):
        Move.parse(text)


@pytest.mark.parametrize(
    ("text", "move", "reason"),
    [
        (START, "A5>", "pit A5 is a functional nyumba; in namua it starts a takasa only as tax"),
        (START, "B5>", "pit B5 is in the back row; in namua the seed goes into a front pit"),
        (START, "A1>", "pit A1 is empty; in namua the seed goes into an occupied front pit"),
        (START, "A6>+", "A6>\\+ does not stop in a functional nyumba: there is no safari"),
        (NEVER_ENDING, "A3>", "pit A3 holds 1 seed; in mtaji only pits with 2 or more are sown"),
        (NEVER_ENDING, "A6>", "A6> is not allowed: it never ends"),
        (NEVER_ENDING, "B7>", "pit B7 is in the back row; a takasa starts in the front row"),
    ],
)
def test_an_illegal_move_is_refused_with_the_rule_it_breaks(
    text: str, move: str, reason: str
) -> None:
    with pytest.raises(IllegalMoveError, match=reason):
        BaoPosition.parse(text).parse_move(move)


def test_a_capture_is_compulsory_and_a_kimbi_capture_has_its_kichwa() -> None:
    position = BAO.new_state()
    position.apply(position.parse_move("A6<"))
    # North's captures are from A5 and A6; its A7 holds 2 but may not start a takasa.
    with pytest.raises(IllegalMoveError, match="a capture is compulsory: A5<, A5>, A6<, A6>"):
        position.parse_move("A7>")
    mtaji = BaoPosition.parse(
        "0,0,0,0,0,0,0,0/0,0,0,1,3,1,6,0/0,3,2,1,1,0,1,0/0,0,0,0,0,2,3,1 0-0 - - s mtaji 44"
    )
    with pytest.raises(IllegalMoveError, match="a capture is compulsory: A2< captures nothing"):
        mtaji.parse_move("A2<")
    kimbi = BaoPosition.parse(
        "0,0,0,0,0,0,0,0/0,2,2,6,0,7,0,0/0,1,0,0,7,1,0,0/0,0,0,0,0,0,0,0 19-19 SN - s namua 0"
    )
    assert "A2>" in {str(move) for move in kimbi.legal_moves}
    with pytest.raises(IllegalMoveError, match="a capture at A2 is sown from the left kichwa A1"):
        kimbi.parse_move("A2<")


def test_a_finished_game_refuses_every_move() -> None:
    over = BaoPosition.parse(
        "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,3,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0-0 - - n mtaji 70"
    )
    assert over.is_terminal()
    assert over.returns() == (1.0, -1.0)
    with pytest.raises(GameOverError, match="South won: North's front row is empty"):
        over.parse_move("A1>")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (START.removesuffix(" 0"), "has 7 fields .* not 6"),
        (START.replace("/0,0,0,0,0,0,0,0 ", " "), "the board has 4 rows"),
        (START.replace("0,2,2,6", "0,2,2,x"), "the North front row '0,2,2,x,0,0,0,0' must be 8"),
        (START.replace("22-22", "22-23"), "hold 65 seeds: Bao is played with 64"),
        (START.replace("22-22", "22"), "stores '22' must be South's and North's"),
        (START.replace(" SN ", " SX "), "houses 'SX' must be SN, S, N or -"),
        (START.replace(" s namua", " w namua"), "side to move 'w' must be s"),
        (START.replace("namua", "mtaji"), "South has 22 seeds in store, so is in namua"),
        (START.replace(" - s", " A4 s"), "takasia mark A4 in namua: takasia is an mtaji rule"),
        (START.replace(" - s", " B4 s"), "only a front pit \\(A1-A8\\) can be takasia'd"),
        (START.replace(" - s", " xA4 s"), "capture duty xA4 in namua: takasia is an mtaji rule"),
        (START.replace("6,2,2,0/", "0,2,2,6/"), "South's house is marked owned but empty"),
        (START.replace(" 0", " -1").replace(",-1", ",0"), "plies played '-1' must be"),
    ],
)
def test_bad_position_text_names_what_is_wrong(text: str, reason: str) -> None:
    with pytest.raises(NotationError, match=reason):
        BaoPosition.parse(text)


def test_position_text_is_read_in_any_case_and_written_one_way() -> None:
    loose = START.replace(" SN - s namua", " sn - S NAMUA")
    assert BaoPosition.parse(loose).text() == START


def test_position_bytes_round_trip_and_refuse_garbage() -> None:
    position = BaoPosition.parse(NEVER_ENDING)
    assert BAO.state_from_bytes(position.to_bytes()).text() == NEVER_ENDING
    with pytest.raises(NotationError, match="Bao position bytes are 38 long, not 3"):
        BAO.state_from_bytes(b"abc")
