"""A person's account in the terminal, as the web page's Account and bots panels: its ratings,
the password changed (the current one asked for; the server ends the account's other sessions),
the account's live sessions with this connection's marked and another ended (`e`), and the
person's bots: one made by name, a token made for the bot under the cursor (`t`, shown this
once), its tokens listed (Enter) and one revoked (`v`); and the account deleted, its password
asked for and Enter pressed twice (the second time confirms, as the web page's dialog does).
Every refusal is one line in the server's words. The lobby opens it (`u`) for a signed-in
person, not a guest or a bot.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar, TypeVar, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Label, Static

from clients.connection import ArenaError
from clients.tui.help import QUIT_UNSHOWN
from clients.tui.player import rating_text
from server.protocol import Event, Ok, PlayerInfo, PlayerProfile, Request
from server.protocol.account import (
    ChangePassword,
    DeleteAccount,
    EndSession,
    ListSessions,
    SessionList,
)
from server.protocol.bots import (
    BotList,
    CreateBot,
    CreateToken,
    ListBots,
    ListTokens,
    RevokeToken,
    TokenCreated,
    TokenList,
)

if TYPE_CHECKING:
    from clients.tui.app import ArenaApp

__all__ = ["AccountScreen"]

E = TypeVar("E", bound=Event)


def _when(ms: int | None) -> str:
    return "" if ms is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(ms / 1000))


class AccountScreen(Screen[None]):
    """The signed-in person's account page."""

    DEFAULT_CSS = """
    AccountScreen VerticalScroll { height: 1fr; }
    AccountScreen Horizontal { height: auto; }
    AccountScreen .pane-title { margin: 1 0 0 0; }
    AccountScreen Input { background: $boost; }
    AccountScreen Horizontal Input { width: 1fr; margin: 0 1 0 0; }
    AccountScreen DataTable { height: auto; max-height: 8; }
    AccountScreen .said { height: auto; color: $error; display: none; }
    AccountScreen .said.ok { color: $success; }
    AccountScreen .what { height: auto; color: $text-muted; }
    #account-token { height: auto; color: $success; display: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "end_session", "End session", tooltip="end the session under the cursor"),
        Binding("t", "create_token", "Token", tooltip="make a token for the bot under the cursor"),
        Binding("v", "revoke_token", "Revoke", tooltip="revoke the token under the cursor"),
        Binding("escape", "leave", "Lobby", tooltip="back to the lobby"),
        QUIT_UNSHOWN,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.bot: str | None = None  # the bot whose tokens are listed
        self.deleting = False  # Enter pressed once on the deletion's password: the next confirms

    def compose(self) -> ComposeResult:
        user = self.arena.user
        with VerticalScroll():
            yield Static(f"Account · {user.name if user else ''}", id="account-name")
            yield Static("", id="account-ratings")
            yield Label("Password", classes="pane-title")
            with Horizontal():
                yield Input(
                    placeholder="current password", password=True, id="account-old", compact=True
                )
                yield Input(
                    placeholder="new password", password=True, id="account-new", compact=True
                )
            yield Static("", id="account-password-said", classes="said")
            yield Label("Sessions (e ends the one under the cursor)", classes="pane-title")
            yield DataTable(id="account-sessions", cursor_type="row")
            yield Static("", id="account-sessions-said", classes="said")
            yield Label("Your bots (t makes a token, Enter lists them)", classes="pane-title")
            yield Input(
                placeholder="a new bot's name, then Enter", id="account-bot-name", compact=True
            )
            yield DataTable(id="account-bots", cursor_type="row")
            yield Static("", id="account-token")
            yield Label("Tokens (v revokes the one under the cursor)", classes="pane-title")
            yield DataTable(id="account-tokens", cursor_type="row")
            yield Static("", id="account-bots-said", classes="said")
            yield Label("Delete account", classes="pane-title")
            yield Static(
                "Your finished games and ratings stay under your name, which nobody may take; "
                "your bots' tokens are revoked. Finish or resign your games first.",
                classes="what",
            )
            yield Input(
                placeholder="your password, then Enter twice, to delete this account",
                password=True,
                id="account-delete",
                compact=True,
            )
            yield Static("", id="account-delete-said", classes="said")
        yield Footer(compact=True)

    @property
    def arena(self) -> ArenaApp:
        return cast("ArenaApp", self.app)

    def on_mount(self) -> None:
        self.query_one("#account-sessions", DataTable).add_columns("session", "started", "from", "")
        self.query_one("#account-bots", DataTable).add_columns("bot", "tokens", "made")
        self.query_one("#account-tokens", DataTable).add_columns("token", "made")
        self._load()

    @work(group="account")
    async def _load(self) -> None:
        # Each part shown as its reply comes, in the order the server answers: a listing held
        # back until the last reply came could overwrite a newer one (a bot made meanwhile).
        try:
            self._show_sessions(await self.arena.request(ListSessions(), SessionList))
            self._show_bots(await self.arena.request(ListBots(), BotList))
            user = self.arena.user
            profile = await self.arena.request(PlayerInfo(user.name if user else ""), PlayerProfile)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-sessions-said", error)
            return
        self.query_one("#account-ratings", Static).update(
            "\n".join(rating_text(pool) for pool in profile.ratings) or "no rated games yet"
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        focused = self.focused
        if action == "end_session":
            return focused is self.query_one("#account-sessions", DataTable)
        if action == "create_token":
            return focused is self.query_one("#account-bots", DataTable)
        if action == "revoke_token":
            return focused is self.query_one("#account-tokens", DataTable)
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    # The password

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "account-bot-name":
            self._create_bot(event.value.strip())
        elif event.input.id == "account-delete":
            self._confirm_deletion()
        elif event.input.id == "account-old":
            self.query_one("#account-new", Input).focus()
        else:
            self._change_password()

    @work(exclusive=True, group="password")
    async def _change_password(self) -> None:
        old, new = self.query_one("#account-old", Input), self.query_one("#account-new", Input)
        if not old.value or not new.value:
            missing = "current" if not old.value else "new"
            self._say("#account-password-said", f"type your {missing} password first")
            (new if old.value else old).focus()
            return
        try:
            await self.arena.request(ChangePassword(old.value, new.value), Ok)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-password-said", error)
            return
        finally:
            old.value = new.value = ""
        self._say(
            "#account-password-said", "password changed; your other sessions have ended", ok=True
        )
        self._refresh_sessions()

    # Sessions

    @work(exclusive=True, group="sessions")
    async def _refresh_sessions(self) -> None:
        try:
            self._show_sessions(await self.arena.request(ListSessions(), SessionList))
        except (ArenaError, ConnectionError) as error:
            self._say("#account-sessions-said", error)

    def _show_sessions(self, reply: SessionList) -> None:
        table = self.query_one("#account-sessions", DataTable)
        table.clear()
        for session in reply.sessions:
            table.add_row(
                session.session_id,
                _when(session.started),
                session.address or "",
                "this one" if session.current else "",
                key=session.session_id,
            )

    def action_end_session(self) -> None:
        table = self.query_one("#account-sessions", DataTable)
        if not table.row_count:
            return
        row = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        if str(table.get_row(row)[3]) == "this one":
            self._say(
                "#account-sessions-said",
                "this is this connection's session: only another one is ended here",
            )
            return
        self._end_session(str(row.value))

    @work(exclusive=True, group="sessions")
    async def _end_session(self, session_id: str) -> None:
        try:
            reply = await self.arena.request(EndSession(session_id), SessionList)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-sessions-said", error)
            return
        self._say("#account-sessions-said", "")
        self._show_sessions(reply)

    # Bots and tokens

    @work(exclusive=True, group="bots")
    async def _create_bot(self, name: str) -> None:
        try:
            reply = await self.arena.request(CreateBot(name), BotList)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-bots-said", error)
            return
        self.query_one("#account-bot-name", Input).value = ""
        self._say("#account-bots-said", "")
        self._show_bots(reply)

    def _show_bots(self, reply: BotList) -> None:
        table = self.query_one("#account-bots", DataTable)
        table.clear()
        for bot in reply.bots:
            table.add_row(bot.name, str(bot.tokens), _when(bot.created), key=bot.name)

    def _chosen_bot(self) -> str | None:
        table = self.query_one("#account-bots", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "account-bots":
            self._list_tokens(str(event.row_key.value))

    @work(exclusive=True, group="tokens")
    async def _list_tokens(self, bot: str) -> None:
        try:
            reply = await self.arena.request(ListTokens(bot), TokenList)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-bots-said", error)
            return
        self._show_tokens(reply)

    def _show_tokens(self, reply: TokenList) -> None:
        self.bot = reply.bot
        self.query_one("#account-tokens", DataTable).clear()
        table = self.query_one("#account-tokens", DataTable)
        for token in reply.tokens:
            table.add_row(token.token_id, _when(token.created), key=token.token_id)
        self._say(
            "#account-bots-said", f"{len(reply.tokens)} live token(s) of {reply.bot}", ok=True
        )

    def action_create_token(self) -> None:
        bot = self._chosen_bot()
        if bot is not None:
            self._create_token(bot)

    @work(exclusive=True, group="tokens")
    async def _create_token(self, bot: str) -> None:
        try:
            made = await self.arena.request(CreateToken(bot), TokenCreated)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-bots-said", error)
            return
        shown = self.query_one("#account-token", Static)
        shown.update(
            f"{made.bot}'s token (id {made.token_id}): {made.token}\n"
            "copy it now: it will not be shown again"
        )
        shown.display = True
        # A listing that fails stops here, so its line is not overwritten by the next one's.
        if (bots := await self._ask(ListBots(), BotList)) is None:
            return
        self._show_bots(bots)
        if (tokens := await self._ask(ListTokens(made.bot), TokenList)) is not None:
            self._show_tokens(tokens)

    def action_revoke_token(self) -> None:
        table = self.query_one("#account-tokens", DataTable)
        if table.row_count:
            token_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            self._revoke_token(str(token_id))

    @work(exclusive=True, group="tokens")
    async def _revoke_token(self, token_id: str) -> None:
        try:
            reply = await self.arena.request(RevokeToken(token_id), TokenList)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-bots-said", error)
            return
        self._show_tokens(reply)
        if (bots := await self._ask(ListBots(), BotList)) is not None:
            self._show_bots(bots)

    async def _ask(self, request: Request, expect: type[E]) -> E | None:
        """The reply to a listing asked for after a change; None, said, if there is none."""
        try:
            return await self.arena.request(request, expect)
        except (ArenaError, ConnectionError) as error:
            self._say("#account-bots-said", error)
            return None

    def _say(self, where: str, what: Exception | str, ok: bool = False) -> None:
        """One line under a part of the page: a refusal in the server's words, or (`ok`) news."""
        words = what.reply.message if isinstance(what, ArenaError) else str(what)
        said = self.query_one(where, Static)
        said.set_class(ok, "ok")
        said.update(words)
        said.display = bool(words)

    # Deleting the account

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "account-delete" and self.deleting:
            self.deleting = False
            self._say("#account-delete-said", "")

    def _confirm_deletion(self) -> None:
        if not self.query_one("#account-delete", Input).value:
            self._say("#account-delete-said", "your password is needed to delete the account")
        elif not self.deleting:
            self.deleting = True
            name = self.arena.user.name if self.arena.user else ""
            self._say(
                "#account-delete-said",
                f"Enter again deletes the account {name} for good; Escape keeps it",
            )
        else:
            self._delete()

    @work(exclusive=True, group="delete")
    async def _delete(self) -> None:
        self.deleting = False
        password = self.query_one("#account-delete", Input)
        name = self.arena.user.name if self.arena.user else ""
        # Set first: the server ends every session of the account right after its reply, and
        # the app then shows the sign-in screen with these words instead of reconnecting.
        self.arena.farewell = f"the account {name} is deleted; its games stay under its name"
        try:
            await self.arena.request(DeleteAccount(password.value), Ok)
        except (ArenaError, ConnectionError) as error:
            self.arena.farewell = None
            self._say("#account-delete-said", error)
        finally:
            password.value = ""

    def action_leave(self) -> None:
        self.dismiss(None)
