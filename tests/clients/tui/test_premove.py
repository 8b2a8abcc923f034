"""A premove is sent on the user's turn while still legal, and cancelled with the engine's
reason when not."""

from __future__ import annotations

from clients.tui.premove import Premove
from tests.clients.tui.host import amazons


def test_a_premove_still_legal_is_sent_once_in_the_usual_spelling() -> None:
    premove = Premove()
    premove.queue("G10 G8 (C4)")  # Black's, queued while White thinks
    state = amazons("10x10")
    state.apply(state.parse_move("d1-d7/g7"))
    assert premove.on_turn(state) == "g10-g8/c4"
    assert premove.pending is None
    assert premove.on_turn(state) is None


def test_a_premove_made_illegal_by_the_opponents_move_is_cancelled_with_the_reason() -> None:
    premove = Premove()
    premove.queue("g10-g6/g9")
    state = amazons("10x10")
    state.apply(state.parse_move("j4-g4/g8"))  # White's arrow on g8 blocks the way
    assert premove.on_turn(state) is None
    assert premove.cancelled == "premove g10-g6/g9 cancelled: move path g10-g6 is blocked at g8"
    assert premove.pending is None


def test_a_premove_can_be_cancelled_by_the_user_and_replaced() -> None:
    premove = Premove()
    premove.queue("a7-b6/a7")
    premove.cancel()
    state = amazons("10x10")
    state.apply(state.parse_move("d1-d7/g7"))
    assert premove.on_turn(state) is None
    assert premove.cancelled is None
    premove.queue("a7-a6/a7")
    premove.queue("a7-b6/a7")
    assert premove.on_turn(state) == "a7-b6/a7"
