"""Signing in: as a guest, or with a name and password; or making an account with them, where
the server lets anyone. A refusal shows the server's words."""

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
        Binding(
            "ctrl+n",
            "sign_up",
            "Create account",
            tooltip="make an account with the name and password, and sign in to it",
        ),
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
                yield Button("Create account", id="sign-up-button")
            yield Label("", id="refusal")
            yield ConnectionStatus(id="connection")
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.app, "connection", self._offer_sign_up)

    def _offer_sign_up(self, _state: str) -> None:
        # Shown once the server's reply to hello has said that anyone may make an account.
        self.query_one("#sign-up-button").display = self.signups_open
        self.refresh_bindings()

    @property
    def signups_open(self) -> bool:
        client = self.arena.client
        return client is not None and client.signups

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.signups_open if action == "sign_up" else True

    @property
    def arena(self) -> ArenaApp:
        return cast("ArenaApp", self.app)

    @on(Button.Pressed, "#guest-button")
    def action_guest(self) -> None:
        self._sign_in(None, "")

    @on(Button.Pressed, "#sign-in-button")
    @on(Input.Submitted)
    def action_sign_in(self) -> None:
        self._with_name_and_password(new=False)

    @on(Button.Pressed, "#sign-up-button")
    def action_sign_up(self) -> None:
        self._with_name_and_password(new=True)

    def _with_name_and_password(self, *, new: bool) -> None:
        name = self.query_one("#name", Input).value.strip()
        password = self.query_one("#password", Input).value
        if not name:
            self._refuse("type a name (or play as a guest)")
            self.query_one("#name", Input).focus()
        elif not password:
            self._refuse("type a password" if new else "type the password")
            self.query_one("#password", Input).focus()
        else:
            self._sign_in(name, password, new=new)

    @work(exclusive=True)
    async def _sign_in(self, name: str | None, password: str, *, new: bool = False) -> None:
        self._refuse("")
        try:
            await self.arena.sign_in(name, password, new=new)
        except ArenaError as error:
            self._refuse(error.reply.message)
            for field in self.query("#password").results(Input):
                field.value = ""
        except ConnectionError as error:
            self._refuse(str(error))

    def _refuse(self, text: str) -> None:
        """Say why signing in failed ("" to clear it)."""
        say(self, "#refusal", text)
