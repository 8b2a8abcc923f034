"""`?`: every key of the screen underneath, with what it does."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label

__all__ = ["HelpScreen", "keys_of"]


def keys_of(screen: Screen[object]) -> list[tuple[str, str]]:
    """The keys that act on `screen` (its own, its focused widget's and the application's),
    each once, as (key, what it does)."""
    keys: dict[str, str] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.description and key not in keys:
            keys[key] = binding.tooltip or binding.description
    return [(screen.app.get_key_display(_binding(key)), text) for key, text in keys.items()]


def _binding(key: str) -> Binding:
    return Binding(key, "", key_display="?" if key == "question_mark" else None)


class HelpScreen(ModalScreen[None]):
    """A table of keys; any of Escape, `?` or `q` closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", key_display="Esc"),
    ]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.keys = keys_of(under)

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Label("Keys", id="help-title")
            table: DataTable[str] = DataTable(show_cursor=False, id="help-keys")
            table.add_columns("key", "what it does")
            for key, text in self.keys:
                table.add_row(key, text)
            yield table
            yield Label("Esc closes", id="help-hint")

    def action_close(self) -> None:
        self.dismiss(None)
