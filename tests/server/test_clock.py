"""The clock to the millisecond: first moves, charging, lag credit and its quota, bots' flat
allowance, flagging with grace, and storage round trips, by worked cases and random games."""

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.clock import (
    FIRST_MOVE_MS,
    MAX_GRACE_MS,
    Clock,
    LagPolicy,
    LateMoveError,
    Timeout,
)
from server.protocol import Colour

WHITE, BLACK = Colour.WHITE, Colour.BLACK


def _opened(clock: Clock, at: int) -> Clock:
    """The clock once both first moves are played, White's clock starting at `at`."""
    clock, _ = clock.charge(at - 1000, 0)
    clock, _ = clock.charge(at, 0)
    assert clock.running
    return clock


def _blitz(at: int = 10_000) -> Clock:
    return _opened(Clock.start(180, 2, 0), at)


@pytest.mark.parametrize(
    ("base_s", "increment_s", "max_gain", "start_quota", "max_quota"),
    [
        (15, 0, 210, 630, 1470),
        (30, 0, 270, 810, 1890),
        (60, 0, 390, 1170, 2730),
        (180, 0, 870, 2610, 6090),
        (61, 0, 394, 1182, 2758),  # 0.4 ms per second, not floored to lichess's centiseconds
        (180, 2, 1000, 3000, 7000),
        (300, 0, 1000, 3000, 7000),
        (0, 1, 310, 930, 2170),
    ],
)
def test_the_lag_quota_grows_with_the_time_control(
    base_s: int, increment_s: int, max_gain: int, start_quota: int, max_quota: int
) -> None:
    policy = LagPolicy.for_time_control(base_s, increment_s)

    assert (policy.max_gain_ms, policy.start_quota_ms, policy.max_quota_ms) == (
        max_gain,
        start_quota,
        max_quota,
    )


def test_a_new_clock_waits_for_whites_first_move() -> None:
    clock = Clock.start(180, 2, now=5_000)

    assert clock.to_move is WHITE
    assert not clock.running
    assert clock.remaining(WHITE, 60_000) == clock.remaining(BLACK, 60_000) == 180_000
    assert clock.quota(WHITE) == clock.quota(BLACK) == 3000
    assert clock.deadline() == 5_000 + FIRST_MOVE_MS
    assert clock.grace() == 0


def test_a_clock_can_wait_for_black_first() -> None:
    clock = Clock.start(180, 2, now=0, first=BLACK)

    assert clock.to_move is BLACK
    assert clock.to_dict()["to_move"] == 1
    clock, _ = clock.charge(1_000, 0)
    assert clock.to_move is WHITE


def test_first_moves_are_free_and_earn_no_increment() -> None:
    clock = Clock.start(180, 2, now=0)

    clock, credit = clock.charge(12_000, 500)
    assert (credit, clock.to_move, clock.turn_start, clock.ply) == (0, BLACK, 12_000, 1)
    assert clock.remaining(WHITE, 20_000) == 180_000
    assert not clock.running

    clock, credit = clock.charge(29_000, 500)
    assert credit == 0
    assert clock.running
    assert (clock.white_ms, clock.black_ms) == (180_000, 180_000)
    assert clock.quota(WHITE) == clock.quota(BLACK) == 3000
    assert clock.remaining(WHITE, 31_000) == 178_000
    assert clock.remaining(BLACK, 31_000) == 180_000


@pytest.mark.parametrize("ply", [0, 1])
def test_a_missed_first_move_aborts_the_game(ply: int) -> None:
    clock = Clock.start(180, 2, now=0)
    if ply == 1:
        clock, _ = clock.charge(1000, 0)
    too_late = clock.turn_start + FIRST_MOVE_MS

    assert clock.timeout(too_late - 1) is None
    assert clock.timeout(too_late) is Timeout.ABORTED
    assert not clock.flagged(too_late + 10**9)
    with pytest.raises(LateMoveError, match="first move") as refused:
        clock.charge(too_late, 0)
    assert (refused.value.side, refused.value.timeout) == (clock.to_move, Timeout.ABORTED)


def test_a_move_without_lag_pays_its_time_and_earns_the_increment() -> None:
    clock = _blitz(at=10_000)

    after, credit = clock.charge(14_000, 0)

    assert credit == 0
    assert after.white_ms == 180_000 - 4000 + 2000
    assert after.black_ms == 180_000
    assert after.quota(WHITE) == 3000 + 140
    assert (after.to_move, after.turn_start, after.ply) == (BLACK, 14_000, 3)


def test_lag_within_the_quota_is_given_back() -> None:
    clock = _blitz(at=10_000)

    after, credit = clock.charge(14_000, 300)

    assert credit == 300
    assert after.white_ms == 180_000 - 3700 + 2000
    assert after.quota(WHITE) == 3000 + 440 - 300


def test_lag_beyond_the_quota_is_paid_for() -> None:
    clock = _opened(Clock.start(60, 0, 0), at=10_000)  # 1+0: quota 1170, gain at most 390

    after, credit = clock.charge(15_000, 2000)

    assert credit == 1170
    assert after.white_ms == 60_000 - 5000 + 1170
    assert after.quota(WHITE) == 390  # emptied, then refilled by one max gain


def test_the_credit_never_exceeds_the_time_the_move_took() -> None:
    clock = _blitz(at=10_000)

    after, credit = clock.charge(10_250, 900)

    assert credit == 250
    assert after.white_ms == 180_000 + 2000
    assert after.quota(WHITE) == 3000 + 1000 - 250


def test_the_quota_stops_growing_at_seven_gains() -> None:
    clock = _opened(Clock.start(60, 0, 0), at=0)  # 1+0: quota 1170, max 2730
    quotas = []
    now = 0
    for _ in range(13):
        now += 1000
        mover = clock.to_move
        clock, _ = clock.charge(now, 0)
        quotas.append(clock.quota(mover))

    whites = quotas[0::2]
    assert whites == [1310, 1450, 1590, 1730, 1870, 2010, 2150]
    for _ in range(20):
        now += 1000
        clock, _ = clock.charge(now, 0)
    assert clock.quota(WHITE) == clock.quota(BLACK) == 2730


def test_no_increment_when_the_move_used_all_the_time() -> None:
    clock = replace(_blitz(at=10_000), white_ms=1000)

    after, _ = clock.charge(10_999, 0)
    assert after.white_ms == 1 + 2000

    with pytest.raises(LateMoveError, match="white ran out of time") as refused:
        clock.charge(11_000, 0)
    assert (refused.value.side, refused.value.timeout) == (WHITE, Timeout.TIME_FORFEIT)


def test_lag_credit_can_save_a_move_that_arrives_after_zero() -> None:
    clock = replace(_blitz(at=10_000), white_ms=1000)

    after, credit = clock.charge(11_200, 300)

    assert credit == 300
    assert after.white_ms == 1000 - 900 + 2000
    assert clock.remaining(WHITE, 11_200) == 0


def test_the_side_to_move_flags_after_the_grace() -> None:
    clock = replace(_blitz(at=10_000), white_ms=5000)  # quota 3000, so 2 s of grace

    assert clock.deadline() == 15_000
    assert clock.grace() == MAX_GRACE_MS
    assert clock.timeout_at() == 17_000
    assert clock.remaining(WHITE, 15_000) == 0
    assert not clock.flagged(16_999)
    assert clock.flagged(17_000)
    assert clock.timeout(17_000) is Timeout.TIME_FORFEIT
    with pytest.raises(LateMoveError):
        clock.charge(17_000, 5000)


def test_a_small_quota_gives_a_small_grace() -> None:
    clock = replace(_blitz(at=10_000), white_ms=5000, white_quota_ms=700)

    assert clock.timeout_at() == 15_700
    assert not clock.flagged(15_699)
    assert clock.flagged(15_700)


def test_a_bot_gets_a_flat_allowance_whatever_its_lag() -> None:
    bot = LagPolicy.for_bot(180, 2)
    clock = _opened(Clock.start(180, 2, 0, black=bot), at=10_000)
    clock, _ = clock.charge(11_000, 0)
    assert clock.quota(BLACK) == 200

    for lag in (0, 50, 5000):
        after, credit = clock.charge(15_000, lag)
        assert credit == 200
        assert after.black_ms == 180_000 - 3800 + 2000
        assert after.quota(BLACK) == 200

    quick, credit = clock.charge(11_120, 0)
    assert credit == 120
    assert quick.black_ms == 180_000 + 2000
    assert replace(clock, black_ms=1000).timeout_at() == 11_000 + 1000 + 200


def test_a_bot_never_gets_more_than_a_human_could_gain() -> None:
    assert LagPolicy.for_bot(180, 2) == LagPolicy(200, flat=True)
    assert LagPolicy.for_bot(0, 0) == LagPolicy(150, flat=True)


def test_a_clock_that_ran_backwards_charges_nothing() -> None:
    clock = _blitz(at=10_000)

    after, credit = clock.charge(9_990, 100)

    assert credit == 0
    assert after.white_ms == 182_000
    assert clock.remaining(WHITE, 9_990) == 180_000


def test_negative_lag_is_refused() -> None:
    with pytest.raises(ValueError, match="lag"):
        _blitz().charge(11_000, -1)


def test_storage_is_plain_ints() -> None:
    clock = _opened(Clock.start(180, 2, 0, black=LagPolicy.for_bot(180, 2)), at=10_000)

    assert clock.to_dict() == {
        "white_ms": 180_000,
        "black_ms": 180_000,
        "to_move": 0,
        "turn_start": 10_000,
        "ply": 2,
        "increment_ms": 2000,
        "first_move_ms": FIRST_MOVE_MS,
        "white_quota_ms": 3000,
        "black_quota_ms": 200,
        "white_max_gain_ms": 1000,
        "white_flat": 0,
        "black_max_gain_ms": 200,
        "black_flat": 1,
    }


def test_a_clock_reads_back_from_redis_strings() -> None:
    clock, _ = _blitz().charge(12_345, 67)
    stored: dict[str, int | str | bytes] = {
        key: str(value).encode() for key, value in clock.to_dict().items()
    }

    assert Clock.from_dict(stored) == clock


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"to_move": 2}, "to_move"),
        ({"white_flat": 7}, "white_flat"),
        ({"black_ms": -1}, "black_ms"),
        ({"white_quota_ms": "lots"}, "white_quota_ms"),
    ],
)
def test_a_corrupt_stored_clock_is_refused(change: dict[str, int | str], message: str) -> None:
    stored: dict[str, int | str | bytes] = {**_blitz().to_dict(), **change}

    with pytest.raises(ValueError, match=message):
        Clock.from_dict(stored)


def test_a_stored_clock_missing_a_field_is_refused() -> None:
    stored: dict[str, int | str | bytes] = dict(_blitz().to_dict())
    del stored["turn_start"]

    with pytest.raises(ValueError, match="turn_start"):
        Clock.from_dict(stored)


time_controls = st.sampled_from([(15, 0), (60, 0), (60, 1), (180, 2), (300, 0), (0, 3)])
# Quick moves, and long thinks with the seconds drawn on their own so that flags and missed
# first moves come up often.
think_times = st.integers(0, 3_000) | st.builds(
    lambda s, ms: s * 1000 + ms, st.integers(0, 40), st.integers(0, 999)
)
moves = st.lists(
    st.tuples(
        think_times,
        st.integers(0, 3_000),  # measured lag, ms
        st.integers(0, 4_000),  # when to look at the clock during the think, ms
    ),
    max_size=60,
)


@given(time_controls, st.booleans(), st.booleans(), moves)
def test_random_games_keep_the_clock_consistent(
    time_control: tuple[int, int],
    white_is_bot: bool,
    black_is_bot: bool,
    played: list[tuple[int, int, int]],
) -> None:
    base_s, increment_s = time_control
    policies = {
        side: LagPolicy.for_bot(base_s, increment_s)
        if bot
        else LagPolicy.for_time_control(base_s, increment_s)
        for side, bot in ((WHITE, white_is_bot), (BLACK, black_is_bot))
    }
    now = 1_000_000
    clock = Clock.start(base_s, increment_s, now, white=policies[WHITE], black=policies[BLACK])
    for think, lag, look in played:
        mover = clock.to_move
        for probe in (now + look, now + think, clock.deadline(), clock.timeout_at() - 1):
            assert Clock.from_dict(clock.to_dict()) == clock
            assert clock.remaining(WHITE, probe) >= 0
            assert clock.remaining(BLACK, probe) >= 0
            assert (clock.timeout(probe) is None) == (probe < clock.timeout_at())
            flags = clock.running and probe >= clock.deadline() + clock.grace()
            assert clock.flagged(probe) == flags
            if clock.running and probe >= clock.deadline():
                assert clock.remaining(mover, probe) == 0
        now += think
        before = clock.remaining(mover, now)
        refused: LateMoveError | None = None
        try:
            after, credit = clock.charge(now, lag)
        except LateMoveError as error:
            refused = error
        if refused is not None:
            assert refused.side is mover
            assert refused.timeout is (Timeout.TIME_FORFEIT if clock.running else Timeout.ABORTED)
            # A move is refused only when the mover's clock reads zero (or its first-move time
            # is up), and always once the server could have timed it out.
            if clock.running:
                assert before == 0
            else:
                assert clock.timeout(now) is Timeout.ABORTED
            return
        assert clock.timeout(now) is None
        assert after.to_move is mover.other
        assert after.remaining(mover.other, now) == clock.remaining(mover.other, now)
        assert 0 <= credit <= min(clock.elapsed(now), clock.quota(mover))
        if not policies[mover].flat:
            assert credit <= lag
        assert after.quota(mover) <= policies[mover].max_quota_ms
        if clock.running:
            paid = clock.elapsed(now) - credit
            had = clock.remaining(mover, clock.turn_start)
            assert after.remaining(mover, now) == had - paid + increment_s * 1000
            assert after.remaining(mover, now) > increment_s * 1000
        else:
            assert credit == 0
            assert after.remaining(mover, now) == base_s * 1000
