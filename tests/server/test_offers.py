"""The time controls a server offers: a range or a list, read from its setting."""

import re

import pytest

from server.offers import DEFAULT_TIME_CONTROLS, TimeControls
from server.protocol import TimeControl


def test_the_default_range_offers_15_s_to_3_h_and_increments_up_to_180_s() -> None:
    offered = TimeControls.parse(DEFAULT_TIME_CONTROLS)
    assert offered.refusal(TimeControl(15, 0)) is None
    assert offered.refusal(TimeControl(10800, 180)) is None
    assert offered.refusal(TimeControl(14, 5)) == (
        "time control 14+5 is not offered: the base must be 15 to 10800 s"
    )


def test_a_list_offers_exactly_its_time_controls() -> None:
    offered = TimeControls.parse("60+0,180+2")
    assert (offered.min_base, offered.max_base, offered.max_increment) == (60, 180, 2)
    assert offered.refusal(TimeControl(180, 2)) is None
    assert offered.refusal(TimeControl(120, 1)) == (
        "time control 120+1 is not offered; offered: 60+0, 180+2"
    )


def test_a_range_caps_the_increment() -> None:
    assert TimeControls.parse("30-600+5").refusal(TimeControl(60, 6)) == (
        "time control 60+6 is not offered: the increment must be at most 5 s"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "0-600+5",
            "time controls '0-600+5': a base of 0 s loses on time at once; the least is 1 s",
        ),
        ("0+3", "time controls '0+3': a base of 0 s loses on time at once; the least is 1 s"),
        ("60-30+0", "time control range '60-30+0': 60 s is above 30 s"),
        ("60", "time control '60' is not BASE+INCREMENT (as in 180+2)"),
        ("60+x", "increment 'x' is not a whole number of seconds"),
        ("60-20000+0", "time controls '60-20000+0': at most 10800 s base and 180 s increment"),
    ],
)
def test_a_bad_setting_is_refused_with_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        TimeControls.parse(text)
