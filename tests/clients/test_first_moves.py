"""The client core on the first moves and an aborted game's end: when each side's window for its
first move closes, from the server's offers or from what a `game_state` says is left, and why
an aborted game was aborted, as `game_ended` or a later `game_state` says."""

from __future__ import annotations

import pytest

from clients import ClientCore, GameView
from server.protocol import (
    AbortCause,
    Clocks,
    ClockUpdate,
    Colour,
    GameEnded,
    GameSnapshot,
    GameStatus,
    Offers,
    Termination,
    Watch,
    Welcome,
)
from tests.clients.test_core import ANN, BOB, MOVES, START, TIME, _played, _started

OFFERS = Offers(("6x6",), 15, 600, 30, first_move_ms=30_000, free_plies=2)


def _welcomed(offers: Offers | None = OFFERS) -> ClientCore:
    core = ClientCore()
    login_id = core.send(Watch("x"))
    core.receive(Welcome(1, "s" * 32, ANN, (), offers, id=login_id).to_wire())
    core.data_to_send()
    return core


def _snapshot(
    moves: int,
    version: int,
    *,
    first_move_left: int | None = None,
    cause: AbortCause | None = None,
    side: Colour | None = None,
) -> bytes:
    """`game_state` of g1 after `moves` moves; aborted, when it names a `cause`."""
    return GameSnapshot(
        "g1",
        version,
        ANN,
        BOB,
        START,
        TIME,
        False,
        tuple(MOVES[:moves]),
        Clocks(60_000, 60_000),
        Colour.WHITE if moves % 2 == 0 else Colour.BLACK,
        GameStatus.PLAYING if cause is None else GameStatus.ENDED,
        "6x6",
        termination=None if cause is None else Termination.ABORTED,
        abort_cause=cause,
        abort_side=side,
        first_move_left=first_move_left,
    ).to_wire()


def _view(core: ClientCore) -> GameView:
    return core.games["g1"]


def test_each_sides_first_move_window_runs_from_the_event_that_opens_it() -> None:
    core = _welcomed()
    core.receive(_started(), now=100.0)
    assert _view(core).first_move_by == 130.0
    assert _view(core).first_move_left(112.0) == 18.0
    assert _view(core).first_move_left(131.0) == 0.0
    core.receive(_played(0), now=110.0)  # Black's window opens with White's first move
    assert _view(core).first_move_left(115.0) == 25.0
    # After an outage the server starts the window again with a `clock` event.
    core.receive(ClockUpdate("g1", 3, Clocks(60_000, 60_000)).to_wire(), now=150.0)
    assert _view(core).first_move_by == 180.0
    core.receive(_played(1, version=4), now=160.0)  # both have moved: the clocks run
    assert (_view(core).first_move_by, _view(core).first_move_left(160.0)) == (None, None)
    core.receive(ClockUpdate("g1", 5, Clocks(50_000, 60_000)).to_wire(), now=170.0)
    assert _view(core).first_move_by is None


def test_a_client_not_told_the_window_knows_of_none_but_a_game_state_says_what_is_left() -> None:
    core = _welcomed(None)
    core.receive(_started(), now=100.0)
    assert _view(core).first_move_by is None
    core.receive(_snapshot(1, 2, first_move_left=21_500), now=101.0)
    view = _view(core)
    assert view.ply == 1
    assert view.first_move_by == pytest.approx(122.5)


def test_a_game_state_mid_window_is_counted_down_from_and_the_next_window_is_whole() -> None:
    core = _welcomed()
    core.receive(_snapshot(1, 2, first_move_left=4_000), now=200.0)
    assert _view(core).first_move_left(201.0) == pytest.approx(3.0)
    core.receive(_played(1, version=3), now=203.0)
    assert _view(core).first_move_by is None
    core = _welcomed()
    core.receive(_snapshot(0, 1, first_move_left=4_000), now=200.0)
    core.receive(_played(0, version=2), now=203.0)
    assert _view(core).first_move_by == 233.0


@pytest.mark.parametrize(
    ("cause", "side"),
    [(AbortCause.CALLED_OFF, Colour.BLACK), (AbortCause.NO_FIRST_MOVE, Colour.WHITE)],
)
def test_an_aborted_game_says_why_on_its_end_and_in_a_later_state(
    cause: AbortCause, side: Colour
) -> None:
    core = _welcomed()
    core.receive(_started(), now=100.0)
    ended = GameEnded(
        "g1", 2, Termination.ABORTED, Clocks(60_000, 60_000), abort_cause=cause, abort_side=side
    )
    core.receive(ended.to_wire(), now=130.0)
    view = _view(core)
    assert (view.status, view.abort_cause, view.abort_side, view.first_move_by) == (
        GameStatus.ENDED,
        cause,
        side,
        None,
    )
    later = _welcomed()
    later.receive(_snapshot(0, 2, cause=cause, side=side), now=300.0)
    view = _view(later)
    assert (view.termination, view.abort_cause, view.abort_side, view.first_move_by) == (
        Termination.ABORTED,
        cause,
        side,
        None,
    )


def test_a_game_aborted_by_a_server_that_does_not_say_why_has_no_cause() -> None:
    core = _welcomed()
    core.receive(_started(), now=100.0)
    core.receive(GameEnded("g1", 2, Termination.ABORTED, Clocks(1, 1)).to_wire(), now=110.0)
    assert (_view(core).abort_cause, _view(core).abort_side) == (None, None)
