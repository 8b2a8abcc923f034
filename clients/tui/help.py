"""`?`: every key of the screen underneath, with what it does, and the application keys that
open it."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label

__all__ = ["APP_BINDINGS", "HelpScreen", "keys_of", "show_keys"]

# The keys of every app of the terminal client: its keys (`action_help`, which calls
# `show_keys`), and quitting.
APP_BINDINGS: list[BindingType] = [
    Binding("question_mark", "help", "Keys", key_display="?", tooltip="show every key"),
    # Where `?` is typed into a field (signing in, the forms).
    Binding("f1", "help", "Keys", show=False, tooltip="show every key"),
    Binding("ctrl+q", "quit", "Quit"),
]


def keys_of(screen: Screen[object]) -> list[tuple[str, str]]:
    """The keys that act on `screen`, each once, as (key, what it does): the screen's own
    first, then the application's, then those of the widget in focus (a table's cursor keys)."""
    own = {
        key
        for binding in type(screen).__dict__.get("BINDINGS", ())
        if isinstance(binding, Binding)
        for key in binding.key.split(",")
    }
    keys: dict[str, tuple[int, str]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.description and key not in keys:
            rank = 0 if key in own else 1 if active.node is screen.app else 2
            keys[key] = (rank, binding.tooltip or binding.description)
    ordered = sorted(keys.items(), key=lambda item: item[1][0])
    return [(screen.app.get_key_display(_binding(key)), text) for key, (_, text) in ordered]


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


def show_keys(app: App[None]) -> None:
    """Show the keys of `app`'s screen, unless they are shown already."""
    if not isinstance(app.screen, HelpScreen):
        app.push_screen(HelpScreen(app.screen))
