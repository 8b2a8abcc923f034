"""A player's page in the terminal: who the player is, its rating in each pool, and every game it
finished, a page at a time (the profile's first page, then `player_games`), older with `n` and
newer with `p`. The cursor each page was asked with is kept, so a newer page comes back as it
was whatever has ended since. The lobby opens it by name (`i`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Label, Static

from clients.connection import ArenaError
from clients.tui.help import QUIT_UNSHOWN, refresh_keys
from clients.tui.labels import player_text
from server.protocol import (
    PlayedGame,
    PlayerGamePage,
    PlayerGames,
    PlayerInfo,
    PlayerKind,
    PlayerProfile,
    PoolRating,
)

if TYPE_CHECKING:
    from clients.tui.app import ArenaApp

__all__ = ["NameForm", "PlayerScreen", "rating_text"]

KINDS = {
    PlayerKind.HUMAN: "player",
    PlayerKind.GUEST: "guest",
    PlayerKind.BOT: "bot",
    PlayerKind.HOUSE: "house bot",
}
COLUMNS = ("result", "opponent", "as", "game", "rated", "ended by", "ended (UTC)")


@dataclass(frozen=True)
class Page:
    """A page of games as shown: the cursor it was asked with (None: the first page), how many
    newer games come before it, its games and the cursor of the page after it."""

    before: str | None
    offset: int
    games: tuple[PlayedGame, ...]
    next: str | None


class NameForm(ModalScreen[str | None]):
    """Asks for a player's name; Enter opens the page, Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="name-form"):
            yield Label("A player's page", classes="pane-title")
            yield Input(placeholder="name", id="player-name", max_length=32)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        self.dismiss(name or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PlayerScreen(Screen[None]):
    """The page of the player called `name` (any case)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "older", "Older", tooltip="the page of older games"),
        Binding("p", "newer", "Newer", tooltip="the page of newer games"),
        Binding("escape", "leave", "Lobby", tooltip="back to the lobby"),
        QUIT_UNSHOWN,
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.player = name
        self.page = Page(None, 0, (), None)
        self.trail: list[Page] = []  # the pages before the one shown, the first first

    def compose(self) -> ComposeResult:
        yield Static(self.player, id="player-name-line")
        yield Label("Ratings", classes="pane-title")
        yield Static("", id="player-ratings")
        yield Label("Games", classes="pane-title")
        yield Static("", id="player-range")
        yield DataTable(id="player-games", cursor_type="row", zebra_stripes=True)
        yield Static("", id="player-error")
        yield Footer(compact=True)

    @property
    def arena(self) -> ArenaApp:
        return cast("ArenaApp", self.app)

    def on_mount(self) -> None:
        self.query_one("#player-games", DataTable).add_columns(*COLUMNS)
        self._load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "older":
            return self.page.next is not None
        if action == "newer":
            return bool(self.trail)
        return True

    @work(exclusive=True, group="player")
    async def _load(self) -> None:
        try:
            profile = await self.arena.request(PlayerInfo(self.player), PlayerProfile)
        except (ArenaError, ConnectionError) as error:
            self._refused(error)
            return
        kind = KINDS.get(profile.kind, str(profile.kind))
        owner = f", owned by {profile.owner}" if profile.owner else ""
        self.query_one("#player-name-line", Static).update(f"{profile.name} · {kind}{owner}")
        self.query_one("#player-ratings", Static).update(
            "\n".join(rating_text(pool) for pool in profile.ratings) or "no rated games yet"
        )
        self.player = profile.name
        self.trail = []
        self._show(Page(None, 0, profile.games, profile.next))

    def action_older(self) -> None:
        if self.page.next is not None:
            self._turn(Page(self.page.next, self.page.offset + len(self.page.games), (), None))

    def action_newer(self) -> None:
        if self.trail:
            self._turn(self.trail[-1], back=True)

    def action_leave(self) -> None:
        self.dismiss(None)

    @work(exclusive=True, group="player")
    async def _turn(self, to: Page, back: bool = False) -> None:
        try:
            reply = await self.arena.request(
                PlayerGames(self.player, before=to.before), PlayerGamePage
            )
        except (ArenaError, ConnectionError) as error:
            self._refused(error)
            return
        if back:
            self.trail.pop()
        else:
            self.trail.append(self.page)
        self._show(Page(to.before, to.offset, reply.games, reply.next))

    def _show(self, page: Page) -> None:
        self.page = page
        self.query_one("#player-error", Static).update("")
        table = self.query_one("#player-games", DataTable)
        table.clear()
        for game in page.games:
            table.add_row(*_game_cells(game), key=game.game_id)
        if page.games:
            shown = f"games {page.offset + 1} to {page.offset + len(page.games)}"
        else:
            shown = "no finished games yet" if not self.trail else "no more games"
        turns = [words for words, can in (("n older", page.next), ("p newer", self.trail)) if can]
        self.query_one("#player-range", Static).update(
            shown + (f"  ({', '.join(turns)})" if turns else "")
        )
        refresh_keys(self)

    def _refused(self, error: Exception) -> None:
        words = error.reply.message if isinstance(error, ArenaError) else str(error)
        self.query_one("#player-error", Static).update(words)


def rating_text(pool: PoolRating) -> str:
    """`amazons  1562 ± 290 (provisional), 12 rated games` and the like."""
    if pool.ladder is not None:
        where = f"ladder {pool.ladder}"
    elif pool.strength is not None:
        where = f"{pool.game} at strength {pool.strength}"
    else:
        where = pool.game
    provisional = " (provisional)" if pool.provisional else ""
    count = len(pool.history)
    games = f", {count} rated game{'s' if count != 1 else ''}" if count else ""
    return f"{where}  {pool.rating} ± {pool.deviation}{provisional}{games}"


def _game_cells(game: PlayedGame) -> tuple[str, ...]:
    if game.winner is None:
        result = "drawn" if game.termination == "ply_cap" else "aborted"
    else:
        result = "won" if game.winner == game.colour else "lost"
    what = game.game if game.setup is None else f"{game.game} {game.setup}"
    ended = (
        ""
        if game.ended is None
        else time.strftime("%Y-%m-%d %H:%M", time.gmtime(game.ended / 1000))
    )
    return (
        result,
        player_text(game.opponent),
        str(game.colour),
        what,
        "rated" if game.rated else "casual",
        str(game.termination).replace("_", " "),
        ended,
    )
