"""The budget policy both `arena bot` and `arena worker` plan by: a game clock in, an engine
`Budget` out."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.search.budget import HOUSE_BOT, MIN_SECONDS, REMOTE_BOT, TimePolicy, Turn
from engine.search.timing import think_time


def test_a_running_clock_is_the_reading_less_the_time_since_and_the_margin() -> None:
    budget = REMOTE_BOT.budget(
        Turn(own_ms=100_000, opponent_ms=80_000, increment_ms=2000, elapsed=3)
    )
    assert budget.clock is not None
    assert budget.clock.own == pytest.approx(100 - 3 - 0.3)
    assert (budget.clock.opponent, budget.clock.increment) == (80, 2)
    house = HOUSE_BOT.budget(Turn(own_ms=100_000, opponent_ms=80_000, increment_ms=2000))
    assert house.clock is not None
    assert house.clock.own == pytest.approx(100 - 0.1)


def test_strength_scales_the_time_and_the_increment_but_not_the_opponents_clock() -> None:
    turn = Turn(own_ms=60_000, opponent_ms=50_000, increment_ms=1000)
    budget = HOUSE_BOT.budget(turn, strength=0.3)
    assert budget.clock is not None
    assert budget.clock.own == pytest.approx((60 - 0.1) * 0.3)
    assert budget.clock.increment == pytest.approx(0.3)
    assert budget.clock.opponent == 50


def test_a_late_move_still_gets_the_least_budget() -> None:
    budget = REMOTE_BOT.budget(Turn(own_ms=200, opponent_ms=80_000, increment_ms=0, elapsed=2))
    assert budget.clock is not None
    assert budget.clock.own == MIN_SECONDS
    first = HOUSE_BOT.budget(
        Turn(own_ms=60_000, opponent_ms=60_000, increment_ms=0, first_move_ms=30_000, elapsed=29)
    )
    assert first.seconds == MIN_SECONDS


def test_a_remote_bots_first_move_is_planned_on_half_the_window_by_the_time_manager() -> None:
    turn = Turn(
        own_ms=300_000, opponent_ms=300_000, increment_ms=0, first_move_ms=30_000, elapsed=1
    )
    budget = REMOTE_BOT.budget(turn)
    assert budget.clock is not None
    assert budget.clock.own == pytest.approx(15 - 1 - 0.3)
    # The time manager then spends a share of it, never more than a third.
    assert think_time(budget, moves_left=10) < (15 - 1.3) / 3
    # Never planned on more than the whole clock.
    short = REMOTE_BOT.budget(Turn(5_000, 5_000, 0, first_move_ms=30_000))
    assert short.clock is not None
    assert short.clock.own == pytest.approx(5 - 0.3)


def test_a_house_bots_first_move_is_a_fixed_think_of_two_seconds_at_full_strength() -> None:
    turn = Turn(own_ms=300_000, opponent_ms=300_000, increment_ms=5000, first_move_ms=30_000)
    assert HOUSE_BOT.budget(turn).seconds == 2.0
    assert HOUSE_BOT.budget(turn, strength=0.5).seconds == 1.0
    # Late (a request reclaimed from a worker that died): what is left of the window's quarter.
    late = Turn(300_000, 300_000, 5000, first_move_ms=30_000, elapsed=6.5)
    assert late.first_move_ms is not None
    assert HOUSE_BOT.budget(late).seconds == pytest.approx(7.5 - 6.5 - 0.1)


def test_once_the_clock_runs_the_first_move_rules_play_no_part() -> None:
    running = Turn(own_ms=10_000, opponent_ms=10_000, increment_ms=0)
    assert REMOTE_BOT.budget(running) == TimePolicy(0.3, 0.01).budget(running)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: TimePolicy(margin=-1, first_move_share=0.5), "margin cannot be negative"),
        (lambda: TimePolicy(margin=0, first_move_share=0), "first-move share must be in"),
        (lambda: TimePolicy(0, 0.5, first_move_cap=0), "first-move cap must be positive"),
        (lambda: REMOTE_BOT.budget(Turn(1000, 1000, 0), strength=0), "strength must be in"),
    ],
)
def test_bad_parameters_are_named(make: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()
