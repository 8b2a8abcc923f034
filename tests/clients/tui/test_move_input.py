"""Moves typed under the board: any spelling the engine reads, and the engine's own reason
for a move refused, with the text kept for correction."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from clients.tui.move_input import MoveInput
from tests.clients.tui.host import BoardHost, amazons


@pytest.mark.asyncio
async def test_a_typed_move_in_another_spelling_is_sent_in_the_usual_one() -> None:
    app = BoardHost(amazons("10x10"))
    async with app.run_test() as pilot:
        await pilot.click("#move-text")
        await pilot.press(*"D1 D7 G7", "enter")
        assert app.query_one("#move-text", Input).value == ""
        assert app.query_one(MoveInput).reason == ""
    assert app.chosen == ["d1-d7/g7"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("d1-d7/d10", "arrow path d7-d10 is blocked at d10"),
        ("d1-e3/e4", "move d1-e3 is not along a line (queen move)"),
        ("a7-a6/a5", "no white amazon on a7"),
        ("d1-d7", "cannot read move 'd1-d7': expected from-to/arrow such as d1-d7/g7"),
    ],
)
async def test_a_move_refused_shows_the_engines_reason_and_keeps_the_text(
    typed: str, reason: str
) -> None:
    app = BoardHost(amazons("10x10"))
    async with app.run_test() as pilot:
        await pilot.click("#move-text")
        await pilot.press(*typed, "enter")
        assert app.query_one(MoveInput).reason == reason
        assert app.query_one("#move-text", Input).value == typed
        # Corrected in place, it goes.
        await pilot.press(*["backspace"] * len(typed), *"d1-d7/g7", "enter")
        assert app.query_one(MoveInput).reason == ""
    assert app.chosen == ["d1-d7/g7"]


@pytest.mark.asyncio
async def test_a_spectator_is_told_there_is_no_move_to_make() -> None:
    app = BoardHost(amazons("10x10"), player=None)
    async with app.run_test() as pilot:
        await pilot.click("#move-text")
        await pilot.press(*"d1-d7/g7", "enter")
        assert app.query_one(MoveInput).reason == "there is no move of yours to make on this board"
    assert app.chosen == []


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("start", "example"),
    [
        ("10x10", "d1-d7/g7"),
        ("6x6", "b1-c1/d1"),
        ("8x8", "c1-d1/e1"),
        # Black to move, the usual example's squares gone: one of Black's.
        ("6/6/6/2W3/x5/B5 b", "a1-b1/c1"),
    ],
)
async def test_the_fields_example_is_a_legal_move_on_the_board_shown(
    start: str, example: str
) -> None:
    app = BoardHost(amazons(start), player=1 if start.endswith(" b") else 0)
    async with app.run_test() as pilot:
        await pilot.pause()
        field = app.query_one("#move-text", Input)
        assert field.placeholder == f"move, e.g. {example}"
        # The example follows the position: after the move, one the user may make next (a
        # premove, the other side being to move).
        state = amazons(start)
        state.apply(state.parse_move(example))
        app.board.set_state(state, example)
        await pilot.pause()
        entry = app.board.entry_state
        assert entry is not None
        entry.parse_move(field.placeholder.removeprefix("move, e.g. "))  # legal, else it raises
