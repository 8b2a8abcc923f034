"""The lobby: open seeks and live games as they change, the challenges to and from the user,
the user's own games, and the keys to seek, accept, challenge (a house bot or a user), pair and
watch a live game. Seeks and challenges come pushed by the server; live games are asked for
every few seconds, since the protocol pushes no changes to that list.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from clients.changes import (
    ChallengeClosed,
    ChallengeOpened,
    GameChange,
    GameFollowed,
    News,
    SeekClosed,
    SeekOpened,
    SeeksListed,
)
from clients.connection import ArenaError
from clients.tui.account import AccountScreen
from clients.tui.forms import OfferForm, Offering
from clients.tui.game import GameScreen
from clients.tui.help import QUIT_UNSHOWN, refresh_keys
from clients.tui.labels import player_text, readiness_text, time_text
from clients.tui.lines import say
from clients.tui.messages import Reconnected, ServerChange
from clients.tui.player import NameForm, PlayerScreen
from clients.tui.status import ConnectionStatus
from clients.view import GameView
from server.protocol import (
    AcceptChallenge,
    AcceptSeek,
    CancelChallenge,
    CancelQuickPair,
    CancelSeek,
    Challenge,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    Colour,
    DeclineChallenge,
    ErrorCode,
    Event,
    GameList,
    GameSnapshot,
    GameStatus,
    GameSummary,
    HouseBots,
    ListGames,
    ListSeeks,
    Ok,
    PlayerKind,
    QuickPair,
    Request,
    SeekAdded,
    SeekInfo,
    SeekList,
    SeekRemoved,
    Termination,
    Unwatch,
    Watch,
)

if TYPE_CHECKING:
    from clients.tui.app import ArenaApp

__all__ = ["GAMES_POLL_SECONDS", "LobbyScreen"]

GAMES_POLL_SECONDS = 5.0  # between `list_games`, which the server does not push
# How long a house-bot challenge waits for a worker to start, when none is running; one that
# a worker is preparing is waited for as long as the server says it is preparing it.
HOUSE_BOT_WAIT_SECONDS = 180.0


class LobbyTable(DataTable[str]):
    """A table of the lobby, one row per seek, game or challenge, keyed by its id."""

    def __init__(self, columns: Iterable[str], *, id: str) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)
        self.add_columns(*columns)

    def show(self, rows: Iterable[tuple[str, tuple[str, ...]]]) -> None:
        """Replace the rows, keeping the cursor on the same row when it is still there."""
        chosen = self.chosen
        self.clear()
        for key, cells in rows:
            self.add_row(*cells, key=key)
        if chosen is not None and chosen in self.rows:
            self.move_cursor(row=self.get_row_index(chosen))
        refresh_keys(self.screen)  # the lobby's keys that apply depend on the rows

    @property
    def chosen(self) -> str | None:
        """The key of the row under the cursor, if any."""
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value


class LobbyScreen(Screen[None]):
    """Everything before a game. Each key works on the row under its table's cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "offer('seek')", "Seek", tooltip="make a seek"),
        Binding("a", "accept_seek", "Join", tooltip="accept the seek under the cursor"),
        Binding("d", "cancel_seek", "Unseek", tooltip="cancel your seek under the cursor"),
        Binding("b", "offer('house bot')", "Bot", tooltip="play a house bot"),
        Binding("c", "offer('user')", "Challenge", tooltip="challenge a user by name"),
        Binding("y", "accept_challenge", "Yes", tooltip="accept the challenge under the cursor"),
        Binding(
            "n",
            "decline_challenge",
            "No",
            tooltip="decline the challenge under the cursor, or cancel yours",
        ),
        Binding("p", "offer('quick pair')", "Pair", tooltip="quick pairing"),
        Binding("x", "cancel_quick_pair", "Stop", tooltip="stop quick pairing"),
        Binding("r", "list_games", "Refresh", tooltip="refresh the live games", show=False),
        Binding("o", "open_game", "Open", tooltip="open your game under the cursor"),
        Binding("w", "watch_game", "Watch", tooltip="watch the live game under the cursor"),
        Binding(
            "i", "player", "Player", tooltip="a player's page: ratings and every game", show=False
        ),
        Binding("u", "account", "Account", tooltip="your password, sessions and bots", show=False),
        QUIT_UNSHOWN,
    ]

    pairing: reactive[bool] = reactive(False)
    # Whether the seeks are listed and the server pushes their changes (until a drop).
    following: reactive[bool] = reactive(False)

    def __init__(self, watch: str | None = None) -> None:
        """`watch`: a game to open at once (`arena watch`)."""
        super().__init__()
        self._watch_first = watch
        self._waiting_for_bot = False  # a challenge's wait is shown under the tables
        # The games this connection watches as a spectator: the server counts it in each.
        self.watching: set[str] = set()
        # What each form sent last, for it to open with the same choices.
        self.offered: dict[Offering, Request] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="lobby-top"):
            yield Static("Amazons Arena", id="lobby-title")
            yield Static(self._me(), id="me")
            yield ConnectionStatus(id="connection")
        with Vertical(classes="pane"):
            yield Label("Open seeks", classes="pane-title")
            yield LobbyTable(("player", "game", "setup", "time", "rated", "colour"), id="seeks")
        with Vertical(classes="pane"):
            yield Label("Live games", classes="pane-title")
            yield LobbyTable(
                ("game", "white", "black", "setup", "time", "rated", "moves", "watching"),
                id="games",
            )
        with Horizontal(id="lobby-bottom"):
            with Vertical(classes="pane"):
                yield Label("Challenges", classes="pane-title")
                # Narrow enough for half of 80 columns: one of the two sides is the user, and a
                # setup names its game.
                yield LobbyTable(("with", "setup", "time", "rated"), id="challenges")
            with Vertical(classes="pane"):
                yield Label("Your games", classes="pane-title")
                # The state third: at 80 columns the half-width table shows three columns whole.
                yield LobbyTable(("opponent", "you", "state", "setup", "time"), id="mine")
        yield Static("", id="pairing")
        yield Static("", id="waiting", markup=False)
        yield Footer(compact=True)

    @property
    def arena(self) -> ArenaApp:
        return cast("ArenaApp", self.app)

    def on_mount(self) -> None:
        self._follow_lobby()
        self.set_interval(GAMES_POLL_SECONDS, self._poll_games)
        self._show_challenges()
        self._show_mine()
        self._show_house_bots()
        if self._watch_first is not None:
            self.watch_game(self._watch_first)

    # What the server says

    def on_server_change(self, message: ServerChange) -> None:
        change = message.change
        if isinstance(change, SeeksListed | SeekOpened | SeekClosed):
            self._show_seeks()
        elif isinstance(change, ChallengeOpened | ChallengeClosed):
            self._show_challenges()
            if isinstance(change, ChallengeOpened) and self._mine(change.challenge.opponent.name):
                c = change.challenge
                self.notify(
                    f"{player_text(c.challenger)} challenges you: {c.game} {c.setup} "
                    f"{time_text(c.time)}, {'rated' if c.rated else 'casual'} (y accepts, "
                    "n declines)",
                    title="Challenge",
                )
            if isinstance(change, ChallengeClosed):
                self._tell_declined(change)
        elif isinstance(change, GameChange):
            self._show_mine()
            if isinstance(change, GameFollowed):
                self._announce(change.view)
        elif isinstance(change, News) and isinstance(change.event, HouseBots):
            self._show_house_bots()

    def _tell_declined(self, change: ChallengeClosed) -> None:
        """Tell the challenger that their challenge was declined, and why when said."""
        challenge = change.challenge
        if (
            change.outcome is ChallengeOutcome.DECLINED
            and challenge is not None
            and self._mine(challenge.challenger.name)
        ):
            why = f": {change.reason}" if change.reason else ""
            self.notify(
                f"{player_text(challenge.opponent)} declined your challenge{why}",
                title="Declined",
                severity="warning",
            )

    def on_reconnected(self, message: Reconnected) -> None:
        self.following = False
        self._follow_lobby()
        self._watch_again()

    def _announce(self, view: GameView) -> None:
        me = self._colour_in(view)
        if me is None or view.status is not GameStatus.PLAYING:
            return
        self.pairing = False
        self._refresh_games()
        opponent = view.player(_other(me))
        # Said on the game screen's own line, where a notice would cover the user's clock; and
        # what the notices said before the game (a seek open, a challenge sent) is over.
        self.app.clear_notifications()
        started = f"Game started: you play {me} against {player_text(opponent)}"
        self.app.push_screen(GameScreen(view, me, started=started))

    @work(exclusive=True, group="lobby")
    async def _follow_lobby(self) -> None:
        """Ask for the seeks (which also has the server push their changes) and the games."""
        self.following = isinstance(await self._send(ListSeeks()), SeekList)
        await self._list_games()

    # Showing

    def _show_seeks(self) -> None:
        client = self.arena.client
        seeks = client.core.seeks.values() if client is not None else ()
        self._fill("#seeks", ((s.seek_id, self._seek_row(s)) for s in seeks))

    def _seek_row(self, seek: SeekInfo) -> tuple[str, ...]:
        who = player_text(seek.player) + (" (you)" if self._mine(seek.player.name) else "")
        rated = "rated" if seek.rated else "casual"
        return (who, seek.game, seek.setup, time_text(seek.time), rated, seek.colour)

    def _show_games(self, games: Iterable[GameSummary]) -> None:
        self._fill(
            "#games",
            (
                (
                    g.game_id,
                    (
                        g.game_id,
                        player_text(g.white),
                        player_text(g.black),
                        f"{g.game} {g.setup}",
                        time_text(g.time),
                        "rated" if g.rated else "casual",
                        str(g.ply),
                        str(g.spectators),
                    ),
                )
                for g in games
            ),
        )

    def _fill(self, table: str, rows: Iterable[tuple[str, tuple[str, ...]]]) -> None:
        """Show `rows` (key, cells) in `table`. Also shown as a reply comes back, perhaps as the
        lobby is being closed: then its tables are gone and nothing is shown."""
        for found in self.query(table).results(LobbyTable):
            found.show(rows)

    def _show_challenges(self) -> None:
        client = self.arena.client
        challenges = client.core.challenges.values() if client is not None else ()
        rows = ((c.challenge_id, self._challenge_row(c)) for c in challenges)
        self._fill("#challenges", rows)

    def _challenge_row(self, challenge: ChallengeInfo) -> tuple[str, ...]:
        """`from ann (1712)` for a challenge to the user, `to ann` for one of the user's."""
        if self._mine(challenge.challenger.name):
            with_ = f"to {player_text(challenge.opponent)}"
        else:
            with_ = f"from {player_text(challenge.challenger)}"
        rated = "rated" if challenge.rated else "casual"
        return (with_, challenge.setup, time_text(challenge.time), rated)

    def _show_mine(self) -> None:
        client = self.arena.client
        views = client.games.values() if client is not None else ()
        rows = []
        for view in views:
            me = self._colour_in(view)
            if me is None:
                continue
            opponent = player_text(view.player(_other(me)))
            rows.append(
                (
                    view.game_id,
                    (
                        opponent,
                        str(me),
                        _state(view, me),
                        f"{view.game} {view.setup or ''}".strip(),
                        time_text(view.time),
                    ),
                )
            )
        self._fill("#mine", rows)

    def _me(self) -> str:
        user = self.arena.user
        if user is None:
            return ""
        return f"Signed in as {player_text(user)}, {user.kind}"

    def _mine(self, name: str) -> bool:
        user = self.arena.user
        return user is not None and user.name.casefold() == name.casefold()

    def _colour_in(self, view: GameView) -> Colour | None:
        user = self.arena.user
        return view.colour_of(user.name) if user is not None else None

    # Keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that apply, so that the footer has room for them: accepting and
        cancelling seeks, answering challenges, opening and watching games only when there are
        such rows (the tables ask again when their rows change); stopping quick pairing only
        while pairing, and pairing only while not."""
        if action == "cancel_quick_pair":
            return self.pairing
        if action == "offer" and parameters == ("quick pair",):
            return not self.pairing
        client = self.arena.client
        if client is None or not self.is_mounted:
            return True
        if action in ("accept_seek", "cancel_seek"):
            mine = action == "cancel_seek"
            return any(self._mine(s.player.name) is mine for s in client.core.seeks.values())
        if action == "accept_challenge":
            return any(self._mine(c.opponent.name) for c in client.core.challenges.values())
        if action == "decline_challenge":
            return bool(client.core.challenges)
        if action == "open_game":
            return bool(self.query_one("#mine", LobbyTable).row_count)
        if action == "watch_game":
            return bool(self.query_one("#games", LobbyTable).row_count)
        return True

    def watch_pairing(self, pairing: bool) -> None:
        self.query_one("#pairing", Static).update(
            "Looking for an opponent... (x stops)" if pairing else ""
        )
        refresh_keys(self)

    def action_offer(self, offering: str) -> None:
        offers = self.arena.offers
        games = offers.games if offers is not None and offers.games else ()
        try:
            news = self.arena.house_bots
            kind = Offering(offering)
            preparing = news.preparing if news else ()
            form = OfferForm(kind, games, preparing, last=self.offered.get(kind))
        except ValueError as error:
            self.notify(str(error), severity="error")
            return
        self.app.push_screen(form, lambda request: self._offered(kind, request))

    def _offered(self, kind: Offering, request: Request | None) -> None:
        if request is not None:
            self.offered[kind] = request
            self._request(request)

    def action_accept_seek(self) -> None:
        seek = self._chosen_seek()
        if seek is None or self._mine(seek.player.name):
            self.notify("choose another player's seek to accept", severity="warning")
        else:
            self._request(AcceptSeek(seek.seek_id))

    def action_cancel_seek(self) -> None:
        seek = self._chosen_seek()
        if seek is None or not self._mine(seek.player.name):
            self.notify("choose one of your own seeks to cancel", severity="warning")
        else:
            self._request(CancelSeek(seek.seek_id))

    def _chosen_seek(self) -> SeekInfo | None:
        seek_id = self.query_one("#seeks", LobbyTable).chosen
        client = self.arena.client
        if seek_id is None or client is None:
            return None
        return client.core.seeks.get(seek_id)

    def action_accept_challenge(self) -> None:
        challenge = self._chosen_challenge()
        if challenge is None or not self._mine(challenge.opponent.name):
            self.notify("choose a challenge made to you", severity="warning")
        else:
            self._request(AcceptChallenge(challenge.challenge_id))

    def action_decline_challenge(self) -> None:
        challenge = self._chosen_challenge()
        if challenge is None:
            self.notify("no challenge to decline", severity="warning")
        elif self._mine(challenge.challenger.name):
            self._request(CancelChallenge(challenge.challenge_id))
        else:
            self._request(DeclineChallenge(challenge.challenge_id))

    def _chosen_challenge(self) -> ChallengeInfo | None:
        challenge_id = self.query_one("#challenges", LobbyTable).chosen
        client = self.arena.client
        if challenge_id is None or client is None:
            return None
        return client.core.challenges.get(challenge_id)

    def action_cancel_quick_pair(self) -> None:
        self._request(CancelQuickPair())

    def action_open_game(self) -> None:
        game_id = self.query_one("#mine", LobbyTable).chosen
        client = self.arena.client
        view = client.games.get(game_id) if client is not None and game_id else None
        if view is None:
            self.notify("choose one of your games to open", severity="warning")
        else:
            self.app.push_screen(GameScreen(view, self._colour_in(view)))

    def action_list_games(self) -> None:
        self._refresh_games()

    def _poll_games(self) -> None:
        """The live games again, while connected: without a connection the status says so
        already, where a refused poll would add a notice every few seconds."""
        client = self.arena.client
        if client is not None and not client.closed:
            self._refresh_games()

    @work(exclusive=True, group="games")
    async def _refresh_games(self) -> None:
        await self._list_games()

    async def _list_games(self) -> None:
        reply = await self._send(ListGames())
        if isinstance(reply, GameList):
            self._show_games(reply.games)

    # Watching

    def action_player(self) -> None:
        self.app.push_screen(NameForm(), self._open_player)

    def action_account(self) -> None:
        user = self.arena.user
        if user is None or user.kind != PlayerKind.HUMAN:
            self.app.notify("only a signed-in person has an account page, not a guest or a bot")
        else:
            self.app.push_screen(AccountScreen())

    def _open_player(self, name: str | None) -> None:
        if name is not None:
            self.app.push_screen(PlayerScreen(name))

    def action_watch_game(self) -> None:
        game_id = self.query_one("#games", LobbyTable).chosen
        if game_id is None:
            self.notify("no live game to watch", severity="warning")
        else:
            self.watch_game(game_id)

    @on(DataTable.RowSelected, "#games")
    def _watch_selected(self) -> None:
        self.action_watch_game()

    @work(exclusive=True, group="open-game")
    async def watch_game(self, game_id: str) -> None:
        """Open game `game_id`: as its player when it is the user's, else as a spectator,
        asking the server to `watch` it unless this connection does already; leaving the
        game screen then ends the watching."""
        client = self.arena.client
        view = client.games.get(game_id) if client is not None else None
        if view is None:
            if not isinstance(await self._send(Watch(game_id)), GameSnapshot):
                return
            client = self.arena.client
            view = client.games.get(game_id) if client is not None else None
            if view is None:
                return  # the connection dropped just after the reply: the lobby shows it
        me = self._colour_in(view)
        if me is not None:
            self.app.push_screen(GameScreen(view, me))
            return
        # A game followed that the user does not play is one this connection watches (`arena
        # watch` asks before the lobby opens).
        self.watching.add(game_id)
        self.app.push_screen(GameScreen(view, None), lambda _: self._stop_watching(game_id))

    def _stop_watching(self, game_id: str) -> None:
        """Unwatch the game on the connection that watches it, if that is still up (one that
        closed was uncounted as it went)."""
        client = self.arena.client
        if game_id in self.watching:
            self.watching.discard(game_id)
            if client is not None and not client.closed:
                self._request(Unwatch(game_id))

    @work(group="watch")
    async def _watch_again(self) -> None:
        """After a reconnect: the new connection resyncs the games watched but is not counted
        as their spectator until it watches them itself. A game that ended meanwhile has no
        spectators to count."""
        client = self.arena.client
        views = client.games.values() if client is not None else ()
        self.watching &= {v.game_id for v in views if v.status is GameStatus.PLAYING}
        for game_id in sorted(self.watching):
            await self._send(Watch(game_id))

    # Requests

    @work(group="requests")
    async def _request(self, request: Request) -> None:
        reply = await self._send(request)
        if isinstance(reply, SeekAdded):
            self.notify(f"Seek {reply.seek.seek_id} is open: waiting for someone to accept it")
        elif isinstance(reply, ChallengeAdded):
            name = player_text(reply.challenge.opponent)
            self.notify(f"Challenge sent to {name}: waiting for an answer")
        elif isinstance(reply, Ok) and isinstance(request, QuickPair):
            self.pairing = True
        elif isinstance(reply, Ok) and isinstance(request, CancelQuickPair):
            self.pairing = False
        elif isinstance(reply, SeekRemoved | ChallengeRemoved):
            self._show_seeks()
            self._show_challenges()

    async def _send(self, request: Request) -> Event | None:
        """The reply to `request`, or None after showing why there is none. A house bot that
        is not ready yet is asked again when the server says to, with a line under the tables
        saying so while it lasts: for as long as the server says it is preparing that bot
        (compiling it, after an install), or up to HOUSE_BOT_WAIT_SECONDS while no worker is
        running."""
        waited = 0.0
        try:
            while True:
                try:
                    return await self.arena.request(request, Event)
                except ArenaError as error:
                    retry = error.reply.retry_after
                    if (
                        error.code is ErrorCode.UNAVAILABLE
                        and isinstance(request, Challenge)
                        and retry is not None
                        and (
                            self._preparing(request.opponent)
                            or waited + retry <= HOUSE_BOT_WAIT_SECONDS
                        )
                    ):
                        self._waiting(_waiting_text(error.reply.message, retry))
                        await asyncio.sleep(retry)
                        waited += retry
                        continue
                    self.notify(error.reply.message, severity="error", title="Refused")
                except ConnectionError as error:
                    self.notify(str(error), severity="warning")
                return None
        finally:
            if waited:
                self._waiting("")
                self._show_house_bots()

    def _preparing(self, bot: str) -> bool:
        """Whether the server last said a worker is preparing house bot `bot`."""
        news = self.arena.house_bots
        return news is not None and bot.lower() in news.preparing

    def _show_house_bots(self) -> None:
        """Under the tables, until every house bot is ready: which are and which are still
        being prepared (unless a challenge's wait is shown there)."""
        news = self.arena.house_bots
        if self._waiting_for_bot or news is None:
            return
        ready = news.rules_ready and not news.preparing
        say(self, "#waiting", "" if ready else readiness_text(news).capitalize())

    def _waiting(self, text: str) -> None:
        """What the lobby waits for (a house bot still starting), under the tables; "" when
        nothing."""
        self._waiting_for_bot = bool(text)
        say(self, "#waiting", text)


def _waiting_text(message: str, retry: float) -> str:
    """`Waiting for the house bots: greedy is still being prepared (1 of 8 house bots ready);
    asking again every 2 s`: the server's words."""
    return f"Waiting for the house bots: {message}; asking again every {retry:g} s"


def _other(colour: Colour) -> Colour:
    return Colour.BLACK if colour is Colour.WHITE else Colour.WHITE


# How a game ended, for the user who won it and the one who lost it: short, so that the state
# shows whole in half of 80 columns.
_WON = {
    Termination.NO_LEGAL_MOVE: "won: no moves",
    Termination.TIME_FORFEIT: "won on time",
    Termination.RESIGNATION: "they resigned",
    Termination.ABANDONED: "won: they left",
}
_LOST = {
    Termination.NO_LEGAL_MOVE: "lost: no moves",
    Termination.TIME_FORFEIT: "lost on time",
    Termination.RESIGNATION: "you resigned",
    Termination.ABANDONED: "lost: you left",
}


def _state(view: GameView, me: Colour) -> str:
    if view.status is GameStatus.PLAYING:
        return "your move" if view.to_move is me else "their move"
    if view.termination is Termination.PLY_CAP:
        return "drawn"
    if view.winner is None or view.termination is None:
        return "aborted" if view.termination is Termination.ABORTED else "ended"
    return (_WON if view.winner is me else _LOST).get(view.termination, "ended")
