"""Signing in: as a guest, or with a name and password. A refusal shows the server's words."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Static

from clients.connection import ArenaError
from clients.tui.lines import say
from clients.tui.status import ConnectionStatus

if TYPE_CHECKING:
    from clients.tui.app import ArenaApp

__all__ = ["SignInScreen"]


class SignInScreen(Screen[None]):
    """Name and password, or a guest with one key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "guest", "Guest", tooltip="play as a guest"),
        Binding("ctrl+s", "sign_in", "Sign in", tooltip="sign in with the name and password"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="sign-in"):
            yield Static("Amazons Arena", id="sign-in-title")
            yield Static(self.app.sub_title, id="server")
            yield Static("Sign in to play, or play as a guest (casual games).", id="welcome")
            yield Input(placeholder="name", id="name")
            yield Input(placeholder="password", password=True, id="password")
            with Horizontal(id="sign-in-buttons"):
                yield Button("Sign in", id="sign-in-button", variant="primary")
                yield Button("Play as a guest", id="guest-button")
            yield Label("", id="refusal")
            yield ConnectionStatus(id="connection")
        yield Footer()

    @property
    def arena(self) -> ArenaApp:
        return cast("ArenaApp", self.app)

    @on(Button.Pressed, "#guest-button")
    def action_guest(self) -> None:
        self._sign_in(None, "")

    @on(Button.Pressed, "#sign-in-button")
    @on(Input.Submitted)
    def action_sign_in(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        password = self.query_one("#password", Input).value
        if not name:
            self._refuse("type a name (or play as a guest)")
            self.query_one("#name", Input).focus()
        elif not password:
            self._refuse("type the password")
            self.query_one("#password", Input).focus()
        else:
            self._sign_in(name, password)

    @work(exclusive=True)
    async def _sign_in(self, name: str | None, password: str) -> None:
        self._refuse("")
        try:
            await self.arena.sign_in(name, password)
        except ArenaError as error:
            self._refuse(error.reply.message)
            for field in self.query("#password").results(Input):
                field.value = ""
        except ConnectionError as error:
            self._refuse(str(error))

    def _refuse(self, text: str) -> None:
        """Say why signing in failed ("" to clear it)."""
        say(self, "#refusal", text)
