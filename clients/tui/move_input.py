"""Typed moves: a text field under a board, with a move legal in the position shown as its
example, that reads the move in any spelling the game reads, checks it on the board's entry
state, and either posts it as the board's `MoveChosen` or shows the engine's own reason on the
line below, keeping the text for correction.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from clients.tui.board import BoardWidget, MoveChosen

__all__ = ["MoveInput"]


class MoveInput(Vertical):
    """A move typed for `board`: Enter checks it through `board.check_move` (the game's own
    `parse_move` on `board.entry_state`); a legal move is posted as `MoveChosen` and the field
    cleared, a malformed or illegal one refused with the reason shown and the text kept."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()

    def __init__(self, board: BoardWidget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.board = board

    def compose(self) -> ComposeResult:
        yield Input(placeholder="move", id="move-text")
        yield Static("", id="move-reason")

    def on_mount(self) -> None:
        self.watch(self.board, "move_example", self._show_example)

    def _show_example(self, example: str) -> None:
        """A move legal in the position shown as the example (the board's `move_example`)."""
        field = self.query_one("#move-text", Input)
        field.placeholder = f"move, e.g. {example}" if example else "move"

    @property
    def reason(self) -> str:
        """Why the last move typed was refused ("" once one is accepted)."""
        return str(self.query_one("#move-reason", Static).content)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        reason = self.query_one("#move-reason", Static)
        try:
            text = self.board.check_move(event.value)
        except ValueError as error:
            reason.update(str(error))
            return
        reason.update("")
        event.input.clear()
        self.post_message(MoveChosen(text))
