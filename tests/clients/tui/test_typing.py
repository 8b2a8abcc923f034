"""Keys typed faster than the app draws, as a terminal delivers a fast typist's (or a paste's)
keys in one read: each lands in the field that has the focus after the keys before it."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input

from clients.tui import ArenaApp
from clients.tui.signin import SignInScreen
from tests.clients.tui.test_app import until


def type_at_once(app: ArenaApp, *keys: str) -> None:
    """Post `keys` (a character each, or a key name such as `tab`) to the app in one go, with
    no pause between them for the app to handle one before the next comes."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


@pytest.mark.asyncio
async def test_a_fast_tab_moves_to_the_password_before_what_follows_it() -> None:
    app = ArenaApp("ws://127.0.0.1:9")  # nothing listens: the sign-in shows all the same
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SignInScreen), "the sign-in")
        name = app.screen.query_one("#name", Input)
        password = app.screen.query_one("#password", Input)
        await until(pilot, lambda: name.has_focus, "the name field's focus")
        type_at_once(app, *"bob", "tab", *"bobpw")
        await until(pilot, lambda: len(name.value + password.value) == 8, "the keys typed")
        assert (name.value, password.value) == ("bob", "bobpw")
        assert password.has_focus
