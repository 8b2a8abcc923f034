"""Perft of Bao from the start: leaves after N plies, finished games adding nothing. The counts
are those of the rules note's reference model (section 11.1) for the recommended rules and
for the AbstractPlay-like and BGA-code-like options; no published source gives any."""

import pytest

from engine.bao import BaoPosition, BaoRules, NamuaTakasaStart

RECOMMENDED_COUNTS = [4, 14, 38, 124, 405, 1430, 5655, 23270, 105596]
FAST_DEPTH = 6  # deeper takes a second or more: run it with -m slow

# AbstractPlay: the house last among namua takasa starts, the lone-kichwa suicide allowed,
# singletons takasia'd, takasia without checking the blocked side's captures.
AP_LIKE = BaoRules(
    namua_takasa_start=NamuaTakasaStart.HOUSE_LAST,
    own_front_row_emptying_illegal=False,
    takasia_of_singletons=True,
    takasia_needs_no_capture=False,
)
# BGA's code: any occupied pit starts a namua takasa while the house is owned; suicide allowed.
BGA_LIKE = BaoRules(
    namua_takasa_start=NamuaTakasaStart.ANY_WHILE_OWNED, own_front_row_emptying_illegal=False
)


def _depths(counts: list[int]) -> list[object]:
    return [
        pytest.param(depth, leaves, marks=[pytest.mark.slow] if depth > FAST_DEPTH else [])
        for depth, leaves in enumerate(counts, start=1)
    ]


@pytest.mark.parametrize(("depth", "leaves"), _depths(RECOMMENDED_COUNTS))
def test_perft_from_the_start(depth: int, leaves: int) -> None:
    assert BaoPosition().perft(depth) == leaves


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rules", "counts"),
    [
        pytest.param(AP_LIKE, [5657, 23270, 105643], id="abstractplay"),
        pytest.param(BGA_LIKE, [5657, 23270, 105705], id="bga-code"),
    ],
)
def test_perft_with_other_readings_splits_at_depths_7_and_9(
    rules: BaoRules, counts: list[int]
) -> None:
    start = BaoPosition(rules=rules)
    assert [start.perft(depth) for depth in (7, 8, 9)] == counts


def test_the_readings_agree_to_depth_6() -> None:
    for rules in (AP_LIKE, BGA_LIKE):
        assert BaoPosition(rules=rules).perft(6) == RECOMMENDED_COUNTS[5]


def test_divide_sums_to_perft_and_names_every_root_move() -> None:
    start = BaoPosition()
    divided = start.divide(5)
    assert [(str(move), count) for move, count in divided] == [
        ("A6>", 116),
        ("A6<", 86),
        ("A7>", 140),
        ("A7<", 63),
    ], "this engine's own split (the note gives only the total)"
    assert sum(count for _, count in divided) == RECOMMENDED_COUNTS[4]
