"""The worked examples of the rules note (docs/bao.md; the note's section 11), one test each.

Boards are written as the note writes them, rows North back, North front, South front, South
back, columns a..h as seen from South, which is also the order of Bao position text."""

import pytest

from engine.bao import BaoPosition, BaoRules, MtajiHouse, NamuaTakasaStart
from engine.bao.board import sowing_steps
from engine.errors import IllegalMoveError


def _position(
    rows: str, rest: str = "19-19 SN - s namua 0", rules: BaoRules | None = None
) -> BaoPosition:
    text = "/".join(",".join(row.split()) for row in rows.strip().splitlines())
    return BaoPosition.parse(f"{text} {rest}", rules or BaoRules())


def _rows(position: BaoPosition) -> list[str]:
    """The four rows of the board, each as space-separated counts."""
    return [row.replace(",", " ") for row in position.text().split()[0].split("/")]


def _after(position: BaoPosition, move: str) -> BaoPosition:
    after = position.clone()
    after.apply(position.parse_move(move))
    return after


def _moves(position: BaoPosition) -> list[str]:
    return sorted(position.format_move(move) for move in position.legal_moves)


def test_the_start_gives_south_four_takasa_moves_from_f6_and_f7() -> None:
    start = BaoPosition()
    assert _moves(start) == ["A6<", "A6>", "A7<", "A7>"]
    expected = {
        "A6>": ("0 0 0 0 6 0 3 1", "0 0 0 0 0 0 0 1", 4),
        "A6<": ("0 0 1 1 7 0 2 0", "0 0 0 0 0 0 0 0", 4),
        "A7>": ("0 0 0 0 6 2 0 1", "0 0 0 0 0 0 1 1", 4),
        "A7<": ("0 0 0 1 7 3 0 0", "0 0 0 0 0 0 0 0", 2),
    }
    for move, (front, back, replies) in expected.items():
        after = _after(start, move)
        assert _rows(after)[2:] == [front, back], move
        assert len(after.legal_moves) == replies, move


def test_north_answers_f6_ccw_with_four_captures_and_f7_ccw_with_two() -> None:
    start = BaoPosition()
    # North's captures from its house A5 or from A6, the kichwa chosen either way.
    assert _moves(_after(start, "A6<")) == ["A5<", "A5>", "A6<", "A6>"]
    assert _moves(_after(start, "A7<")) == ["A5<", "A5>"]
    # AP's `b3<*`, North's mirror image of South's F7 CCW: North front c=3, d=7, e=1.
    north = _after(_after(start, "A6>"), "A7<")
    assert _rows(north)[1] == "0 0 3 7 1 0 0 0"


def test_a_kimbi_capture_reverses_the_sowing_and_the_move_may_stop_in_the_house() -> None:
    position = _position("""
        0 0 0 0 0 0 0 0
        0 2 2 6 0 7 0 0
        0 1 0 0 7 1 0 0
        0 0 0 0 0 0 0 0""")
    assert {"A6<", "A6<+"} <= set(_moves(position))
    after = _after(position, "A6<")
    assert _rows(after)[1:3] == ["0 0 2 6 0 0 0 0", "1 0 2 2 9 3 1 1"]
    assert after.text().split()[2] == "SN", "stopping keeps the house"


def test_safari_lifts_the_house_and_gives_it_up() -> None:
    position = _position(
        """
        0 0 0 0 0 0 0 0
        5 0 2 6 0 0 0 0
        1 0 2 2 7 0 0 0
        0 0 0 0 0 0 0 0""",
        "19-19 SN - s namua 0",
    )
    stopped = _after(position, "A1>")
    assert _rows(stopped)[2] == "3 1 3 3 8 0 0 0"
    on_safari = _after(position, "a1>+")
    assert _rows(on_safari)[2:] == ["3 1 3 3 0 1 1 1", "0 0 0 1 1 1 1 1"]
    assert on_safari.text().split()[2] == "N", "South's house is destroyed"


def test_tax_lifts_two_seeds_from_a_lone_functional_house_and_keeps_it_owned() -> None:
    position = _position("""
        0 0 0 0 0 0 0 0
        0 2 0 6 0 2 0 0
        0 0 0 0 6 0 0 0
        0 0 0 0 1 0 0 2""")
    assert _moves(position) == ["A5<", "A5>"]
    after = _after(position, "A5<")
    assert _rows(after)[2] == "0 0 1 1 5 0 0 0"
    assert after.text().split()[2] == "SN"


TWO_CAPTURES = """
    0 0 0 0 0 0 0 0
    0 0 0 1 3 1 6 0
    0 3 2 1 1 0 1 0
    0 0 0 0 0 2 3 1"""


def test_an_mtaji_capture_captures_twice_and_turns_at_the_kimbi() -> None:
    position = _position(TWO_CAPTURES, "0-0 - - s mtaji 44")
    after = _after(position, "A2>")
    assert _rows(after)[1:3] == ["0 0 0 1 0 1 0 0", "1 1 1 4 4 2 3 1"]


KIBA_TAKASIA = """
    0 1 2 1 4 8 2 2
    10 0 0 10 2 1 0 1
    0 2 0 0 0 0 2 0
    0 0 2 2 0 2 6 4"""


def test_takasia_blocks_the_only_threatened_pit_in_the_kiba_example() -> None:
    before = _position(KIBA_TAKASIA, "0-0 - - s mtaji 44")
    blocked = _after(before, "A7<")
    assert _rows(blocked)[2] == "0 2 0 0 1 1 0 0"
    assert blocked.text().split()[3] == "A4", "North's F4 (column e) is takasia'd"
    # North must sow one of its tens: F8 (column a) or F5 (column d).
    assert _moves(blocked) == ["A5<", "A5>", "A8<", "A8>"]
    # North's F4 after each (A8< ends its fifth lap in the blocked pit), as NKK counts.
    north_f4 = {"A8>": "2", "A8<": "5", "A5>": "2", "A5<": "6"}
    for move, seeds in north_f4.items():
        after = _after(blocked, move)
        assert _rows(after)[1].split()[4] == seeds, move
        assert after.text().split()[3] == "-", "the mark lasts one move"
        # South's only move is then the capture from B8 counter-clockwise.
        assert _moves(after) == ["B8<"]
    with pytest.raises(IllegalMoveError, match="pit A4 is takasia'd"):
        blocked.parse_move("A4>")


def test_a_takasia_relay_stops_in_the_blocked_pit() -> None:
    position = _position(
        """
        0 0 0 0 0 0 0 0
        0 6 0 0 2 0 2 0
        0 0 1 0 0 0 0 0
        2 3 0 0 0 0 4 0""",
        "0-0 - - s mtaji 60",
    )
    blocked = _after(position, "B1>")
    assert blocked.text().split()[3] == "A7", "North's F7 (column b) is takasia'd"
    after = _after(blocked, "A2>")
    assert _rows(after)[1] == "0 7 1 1 0 1 0 0"
    assert _moves(after) == ["B2>"]
    captured = _after(after, "B2>")
    assert _rows(captured)[1].split()[1] == "0"


AP_NO_BLOCK = """
    0 0 0 0 0 0 0 0
    0 5 0 0 1 0 2 0
    0 1 0 0 0 0 1 0
    0 2 3 0 0 0 0 0"""


def test_no_takasia_while_the_blocked_side_has_a_capture() -> None:
    position = _position(AP_NO_BLOCK, "0-0 - - s mtaji 60")
    after = _after(position, "B3>")
    assert after.text().split()[3] == "-"
    assert _moves(after) == ["A7<"], "North captures from F7"
    unchecked = BaoRules(takasia_needs_no_capture=False, takasia_of_singletons=True)
    ap = _after(_position(AP_NO_BLOCK, "0-0 - - s mtaji 60", unchecked), "B3>")
    assert ap.text().split()[3] == "A7", "AbstractPlay blocks b3 without the check"


LONE_KICHWA = """
    0 0 0 0 0 0 0 0
    0 1 6 3 0 5 2 1
    2 0 0 0 0 0 0 0
    0 0 1 1 1 1 1 1"""


def test_a_lone_kichwa_may_not_be_sown_toward_the_back_row() -> None:
    position = _position(LONE_KICHWA, "19-19 - - s namua 30")
    assert _moves(position) == ["A1>"]
    with pytest.raises(IllegalMoveError, match="it would empty your own front row"):
        position.parse_move("A1<")
    suicidal = BaoRules(own_front_row_emptying_illegal=False)
    allowed = _position(LONE_KICHWA, "19-19 - - s namua 30", suicidal)
    assert _moves(allowed) == ["A1<", "A1>"]
    lost = _after(allowed, "A1<")
    assert lost.is_terminal()
    assert lost.returns() == (-1.0, 1.0), "South emptied its own front row and loses"


FIVE_SEED_HOUSE = """
    0 0 0 0 0 0 2 2
    0 2 2 6 0 0 0 0
    0 0 0 0 5 1 1 0
    0 0 0 1 1 0 2 3"""


@pytest.mark.parametrize(
    ("start", "moves"),
    [
        (NamuaTakasaStart.PREFER_TWO, ["A5<", "A5>"]),
        (NamuaTakasaStart.HOUSE_LAST, ["A6<", "A6>", "A7<", "A7>"]),
        (NamuaTakasaStart.ANY_WHILE_OWNED, ["A5<", "A5>", "A6<", "A6>", "A7<", "A7>"]),
    ],
)
def test_an_owned_five_seed_house_in_namua_by_each_reading(
    start: NamuaTakasaStart, moves: list[str]
) -> None:
    rules = BaoRules(namua_takasa_start=start)
    position = _position(FIVE_SEED_HOUSE, "18-18 SN - s namua 8", rules)
    assert _moves(position) == moves


def _relay_laps(ring: list[int], pit: int, direction: int, most: int) -> int:
    """Laps of a plain takasa relay from `pit` of one 16-pit ring, up to `most`."""
    seeds, ring[pit], x = ring[pit], 0, pit
    for lap in range(most):
        for _ in range(seeds):
            x = (x + direction) % 16
            ring[x] += 1
        if ring[x] == 1:
            return lap
        seeds, ring[x] = ring[x], 0
    return most


def test_a_never_ending_takasa_is_found_and_is_illegal() -> None:
    # Found by a random search; South's ring F1..F8 then B8..B1.
    position = _position(
        """
        2 0 1 1 0 0 0 2
        0 1 0 0 0 0 0 0
        1 0 1 2 1 2 0 2
        0 1 0 1 0 1 2 1""",
        "0-0 - - s mtaji 100",
    )
    south = [1, 0, 1, 2, 1, 2, 0, 2, 1, 2, 1, 0, 1, 0, 1, 0]
    assert _relay_laps(list(south), 5, 1, 100_000) == 100_000, "A6> relays for ever"
    assert _relay_laps(list(south), 3, 1, 100_000) < 100, "A4> ends"
    assert _moves(position) == ["A4<", "A4>", "A6<", "A8>"]
    with pytest.raises(IllegalMoveError, match="A6> is not allowed: it never ends"):
        position.parse_move("A6>")


def test_a_house_kept_in_mtaji_stops_takasa_laps_until_its_owners_first_capture() -> None:
    kept = BaoRules(mtaji_house=MtajiHouse.KEPT_UNTIL_FIRST_CAPTURE)
    rows = """
        0 0 0 0 0 0 0 2
        0 0 0 0 0 0 0 3
        0 0 2 0 6 0 0 0
        0 0 0 0 0 0 0 0"""
    ordinary = _position(rows, "0-0 S - s mtaji 50")
    assert _moves(ordinary) == ["A3<", "A3>", "A5<", "A5>"]
    relayed = _after(ordinary, "A3>")
    assert _rows(relayed)[2:] == ["0 0 0 1 0 1 1 1", "0 0 0 0 1 1 1 1"]
    assert relayed.text().split()[2] == "-"
    house = _position(rows, "0-0 S - s mtaji 50", kept)
    assert _moves(house) == ["A3<", "A3>"], "the house starts a takasa only if nothing else can"
    stopped = _after(house, "A3>")
    assert _rows(stopped)[2] == "0 0 0 1 7 0 0 0"
    assert stopped.text().split()[2] == "S"
    capture = """
        0 0 0 0 0 0 0 0
        0 0 0 1 3 1 6 0
        0 3 2 1 1 0 1 0
        0 0 0 0 0 2 3 1"""
    assert _after(_position(capture, "0-0 S - s mtaji 44"), "A2>").text().split()[2] == "S"
    lost = _after(_position(capture, "0-0 S - s mtaji 44", kept), "A2>")
    assert lost.text().split()[2] == "-", "South's first mtaji capture ends its house"


def test_a_blocker_bound_to_capture_must_take_the_blocked_pit_first() -> None:
    rows = """
        1 0 5 2 2 2 1 0
        0 2 4 3 2 3 4 1
        1 1 3 0 0 2 3 1
        1 5 1 2 2 1 1 2"""
    # North's A2 (column g) is blocked; North plays A3> and South may then capture.
    free = _after(_position(rows, "0-0 - A2 n mtaji 50"), "A3>")
    assert free.text().split()[3] == "-"
    assert _moves(free) == ["A6>", "B8<"]
    bound_rules = BaoRules(takasia_binds_blocker=True)
    bound = _after(_position(rows, "0-0 - A2 n mtaji 50", bound_rules), "A3>")
    assert bound.text().split()[3] == "xA2", "South must capture North's A2 first"
    assert _moves(bound) == ["B8<"]
    assert BaoPosition.parse(bound.text(), bound_rules).text() == bound.text()
    assert BaoPosition.from_bytes(bound.to_bytes(), bound_rules).text() == bound.text()
    assert _after(bound, "B8<").text().split()[3] == "-", "the duty lasts one move"


def test_the_two_captures_move_is_sown_in_five_steps() -> None:
    """`sowing_steps` of the example above: the seeds lifted; the first lap ending at e, with
    North's 3 taken; those 3 sown from the left kichwa; the relay from c ending at g, with
    North's 6 taken; those 6 sown from the right kichwa (the kimbi turned), ending in the
    empty c."""
    position = _position(TWO_CAPTURES, "0-0 - - s mtaji 44")
    steps = sowing_steps(position.board, position.rules, position.parse_move("A2>"))
    assert [_rows(BaoPosition(step, position.rules))[1:3] for step in steps] == [
        ["0 0 0 1 3 1 6 0", "0 0 2 1 1 0 1 0"],
        ["0 0 0 1 0 1 6 0", "0 0 3 2 2 0 1 0"],
        ["0 0 0 1 0 1 6 0", "1 1 4 2 2 0 1 0"],
        ["0 0 0 1 0 1 0 0", "1 1 0 3 3 1 2 0"],
        ["0 0 0 1 0 1 0 0", "1 1 1 4 4 2 3 1"],
    ]
    assert steps[-1].pits == _after(position, "A2>").board.pits
