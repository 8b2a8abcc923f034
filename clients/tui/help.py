"""`?`: every key of the screen underneath, with what it does, and the application keys that
open it."""

from __future__ import annotations

from typing import Any, ClassVar
from weakref import WeakKeyDictionary

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label

__all__ = ["APP_BINDINGS", "QUIT_UNSHOWN", "HelpScreen", "keys_of", "refresh_keys", "show_keys"]

# The keys of every app of the terminal client: its keys (`action_help`, which calls
# `show_keys`), and quitting.
# F1 too, for where `?` is typed into a field (the move field, signing in, the forms): the
# footer shows `? F1 Keys`, or `F1 Keys` while typing.
_KEYS = Binding.Group("Keys")
APP_BINDINGS: list[BindingType] = [
    Binding(
        "question_mark", "help", "Keys", key_display="?", tooltip="show every key", group=_KEYS
    ),
    Binding("f1", "help", "Keys", key_display="F1", tooltip="show every key", group=_KEYS),
    Binding("ctrl+q", "quit", "Quit"),
    # Moving the focus ahead of the keys that follow: without priority a Tab reaches the
    # screen only after the focused field has had it, by when the keys typed after it (a fast
    # typist's, all in one read) have been handed to that field too.
    Binding("tab", "focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "focus_previous", "Previous field", show=False, priority=True),
]

# Quitting, listed by `?` but not in the footer: for the screens with the most keys (the lobby,
# a game), whose footer at 80 columns has room for their own keys and `?` only.
QUIT_UNSHOWN = Binding("ctrl+q", "app.quit", "Quit", show=False)


# The keys each screen's footer shows, as of its last refresh (refresh_keys).
_SHOWN: WeakKeyDictionary[Screen[Any], tuple[tuple[str, bool], ...]] = WeakKeyDictionary()


def refresh_keys(screen: Screen[Any]) -> None:
    """Have the footer show the keys of `screen` that apply now (its check_action), if they
    changed: the footer builds every key anew on each refresh, which a screen that asks at each
    of its changes (a table's rows, a game's moves and clocks) would pay for every time."""
    shown = tuple((key, active.enabled) for key, active in screen.active_bindings.items())
    if _SHOWN.get(screen) != shown:
        _SHOWN[screen] = shown
        screen.refresh_bindings()


def keys_of(screen: Screen[object]) -> list[tuple[str, str]]:
    """The keys of `screen`, each once, as (key, what it does): every one of the screen's own
    first, those that do not apply now (check_action) marked so, then the application's that
    act now, then those of the widget in focus (a table's cursor keys)."""
    active = screen.active_bindings
    keys: dict[str, tuple[int, str]] = {}
    for binding in type(screen).__dict__.get("BINDINGS", ()):
        if not isinstance(binding, Binding) or not binding.description:
            continue
        for key in binding.key.split(","):
            text = binding.tooltip or binding.description
            keys.setdefault(key, (0, text if key in active else f"{text} (not now)"))
    for key, bound in active.items():
        binding = bound.binding
        if binding.description and key not in keys:
            keys[key] = (
                1 if bound.node is screen.app else 2,
                binding.tooltip or binding.description,
            )
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
