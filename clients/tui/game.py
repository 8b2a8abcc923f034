"""The game screen: one game followed through the client core, as its player or as a
spectator. The board between its two players, each with their rating and clock (ticking here
between the server's updates), a typed-move field under it for a player; the game's id and
terms, whose turn (with the time left for a first move), the move list, how many watch, resign,
abort, claim victory when the opponent is away, the connection's state, and the result once
the game ends, with why an aborted game was called off. A spectator has the analysis panel:
the engine's judgement of each new position as it comes, its best move drawn on the board on
request.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, ClassVar, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from clients.changes import ClocksChanged, GameChange, GameDropped, PresenceChanged
from clients.connection import ArenaError
from clients.tui.analysis import AnalysisPanel, ServerAnalyst, analysed
from clients.tui.board import BoardWidget, MoveChosen, board_for
from clients.tui.help import QUIT_UNSHOWN, refresh_keys
from clients.tui.labels import in_ascii, player_text, time_text
from clients.tui.lines import say
from clients.tui.messages import Reconnected, ServerChange
from clients.tui.move_input import MoveInput
from clients.tui.premove import Premove
from clients.tui.review import ReviewScreen
from clients.tui.status import ConnectionStatus
from clients.view import COLOURS, GameView
from server.protocol import (
    Abort,
    AbortCause,
    ClaimVictory,
    Colour,
    Event,
    GameList,
    GameStatus,
    ListGames,
    PlayMove,
    Request,
    Resign,
    Termination,
)

if TYPE_CHECKING:
    from clients.tui.app import ArenaApp

__all__ = ["GameScreen", "clock_text"]

TICK_SECONDS = 0.1
LOW_SECONDS = 10.0  # a clock under this shows tenths and the warning style
FREE_PLIES = 2  # each side's first move is off the clock (docs/protocol.md, Server rules)
# How near the end of a first-move window an abort counts as the window running out: the
# server's sweep ends the game a moment after the window, seen here a round trip later still.
WINDOW_SLACK_SECONDS = 1.5
CONFIRM_SECONDS = 3.0  # to press a resign or abort key again to confirm
# Between `list_games` while the game goes on, for its spectator count (no event carries it).
AUDIENCE_POLL_SECONDS = 5.0
# The keys that make or take back moves, or end the game: a spectator has none of them.
PLAYERS_ACTIONS = frozenset({"resign", "abort", "claim", "cancel_premove", "type_move", "to_board"})


def clock_text(millis: float) -> str:
    """`m:ss`, or `s.t` (tenths) under LOW_SECONDS; never below zero."""
    millis = max(millis, 0.0)
    if millis < LOW_SECONDS * 1000:
        return f"{int(millis // 100) / 10:.1f}"
    seconds = int(millis // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


def _other(colour: Colour) -> Colour:
    return Colour.BLACK if colour is Colour.WHITE else Colour.WHITE


class GameScreen(Screen[None]):
    """Game `game_id`, which the client core follows: every state shown is
    `client.games[game_id]`, shown again at each of its changes. `me` is the user's colour,
    None for a spectator, who has no move field and no keys to move or end the game."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "resign", "Resign", tooltip="resign (press twice to confirm)"),
        Binding("ctrl+o", "abort", "Abort", tooltip="abort before both sides moved (twice)"),
        Binding("ctrl+y", "claim", "Claim", tooltip="claim victory: the opponent has left"),
        Binding("ctrl+p", "cancel_premove", "Unpremove", tooltip="cancel the queued premove"),
        Binding("ctrl+t", "type_move", "Type", tooltip="type a move"),
        Binding("ctrl+b", "to_board", "Board", tooltip="pick a move on the board"),
        Binding("ctrl+l", "lobby", "Lobby", tooltip="back to the lobby"),
        Binding("ctrl+g", "review", "Review", tooltip="review the game once it has ended"),
        Binding("l", "best_line", "Line", tooltip="draw the best move on the board, or not"),
        QUIT_UNSHOWN,
    ]

    def __init__(self, view: GameView, me: Colour | None, *, started: str = "") -> None:
        """`started`: the words announcing a game that has just begun, for the notice line."""
        super().__init__()
        self.game_id = view.game_id
        self.me = me
        self.view = view
        self._started = started
        # When the turn shown began, as this client saw it (monotonic seconds): a first move's
        # window runs from then. No event says when a turn began, so it is the moment the move
        # before it (or the game, or a `clock` event) came.
        self._turn_began = view.received
        self._aborted_by_me = False
        self._why_aborted = ""  # worked out as the game ends, while the window's time is known
        self.premove = Premove()
        self.board: BoardWidget = board_for(view.game)(ascii=self.arena.ascii, id="board")
        self.board.player = None if me is None else COLOURS.index(me)
        self.board.flipped = me is Colour.BLACK  # the user's side at the bottom
        self._confirming: tuple[str, float] | None = None
        self._claim_at: float | None = None  # monotonic time the opponent may be claimed from
        # Spectators only: a player never sees analysis of their own live game (nor asks for
        # it); a game with no analysis has no panel.
        self.panel: AnalysisPanel | None = None
        self.best_line = False  # the best line's first move drawn on the board
        if me is None and analysed(view.game):
            analyst = ServerAnalyst(self.arena.request)
            self.panel = AnalysisPanel(
                view.game,
                analyst,
                game_id=view.game_id,
                live=view.status is GameStatus.PLAYING,
                ascii=self.arena.ascii,
                id="analysis",
            )

    @property
    def arena(self) -> ArenaApp:
        return cast("ArenaApp", self.app)

    def compose(self) -> ComposeResult:
        # A player has the move field under the board and the move list beside it; a spectator
        # has the move list under the board and the analysis panel beside it, or the move
        # list beside it for a game without analysis.
        # Each player's name and clock next to their side of the board.
        with Horizontal(id="game", classes="-watching" if self.panel else ""):
            with Vertical(id="board-side"):
                yield self._player_line("top")
                yield self.board
                yield self._player_line("bottom")
                if self.me is not None:
                    yield MoveInput(self.board, id="move-input")
                elif self.panel is not None:
                    yield self._moves_pane()
            with Vertical(id="game-side"):
                yield Static(_title(self.view), id="game-title", markup=False)
                yield Static(id="turn", markup=False)
                yield self._moves_pane() if self.panel is None else self.panel
                yield Static(self._started, id="game-notice", markup=False)
                yield Static(id="audience", markup=False)
                yield ConnectionStatus(id="connection")
        yield Footer(compact=True)

    def _moves_pane(self) -> VerticalScroll:
        return VerticalScroll(Static(id="moves", markup=False), id="moves-pane")

    def _player_line(self, place: str) -> Horizontal:
        return Horizontal(
            Static(id=f"{place}-player", classes="player", markup=False),
            Static(id=f"{place}-clock", classes="clock", markup=False),
            classes="player-line",
        )

    def on_resize(self) -> None:
        for column in self.query("#game"):  # none until the screen is composed
            self.board.fit(column)

    def on_mount(self) -> None:
        self._show(self._latest())
        self.set_interval(TICK_SECONDS, self._tick)
        self._show_audience(None)
        self._count_spectators()
        self.set_interval(AUDIENCE_POLL_SECONDS, self._count_spectators)
        if self.me is None:
            # Nothing to pick on the board: the keys scroll the move list.
            self.query_one("#moves-pane", VerticalScroll).focus()
        else:
            self.query_one("#move-text", Input).focus()

    # What the server says

    def _latest(self) -> GameView:
        client = self.arena.client
        view = client.games.get(self.game_id) if client is not None else None
        return view if view is not None else self.view

    def on_server_change(self, message: ServerChange) -> None:
        change = message.change
        if isinstance(change, GameDropped) and change.game_id == self.game_id:
            self._notice(f"the game is no longer followed: {change.reason}")
            return
        if not isinstance(change, GameChange) or change.game_id != self.game_id:
            return
        if isinstance(change, PresenceChanged) and self.me is not None and change.side != self.me:
            if change.online or change.claim_after is None:
                self._claim_at = None
            else:
                self._claim_at = monotonic() + change.claim_after / 1000
        if isinstance(change, ClocksChanged):
            # The servers were away: a first move's window starts again (docs/protocol.md).
            self._turn_began = change.view.received
        self._show(self._latest())

    def on_reconnected(self, message: Reconnected) -> None:
        left = self._first_move_left()
        if left is not None and left < -WINDOW_SLACK_SECONDS:
            # The game outlived its first move's window: the servers were away, and started the
            # window again with a `clock` event that the resync's `game_state` went past.
            self._turn_began = self._latest().received
        self._show(self._latest())

    def _show(self, view: GameView) -> None:
        moved = view.ply != self.view.ply or view.status != self.view.status
        if view.ply != self.view.ply:
            self._turn_began = view.received
        if view.termination is Termination.ABORTED and (
            view.abort_cause is not None or self.view.status is GameStatus.PLAYING
        ):
            # The server says why; from one that does not, why is known only as it happens.
            self._why_aborted = self._abort_reason(view)
        self.view = view
        try:
            state = view.position()
        except ValueError as error:
            self._notice(str(error))
            state = None
        if moved or self.board.state is None:
            self.board.set_state(state, view.moves[-1] if view.moves else None)
            self.board.fit(self.query_one("#game"))
            if self.panel is not None:
                self.panel.live = view.status is GameStatus.PLAYING
                self.panel.show(state, view.ply)
        self._show_players()
        self.query_one("#moves", Static).update(_move_list(view.moves))
        self.query_one("#moves-pane", VerticalScroll).scroll_end(animate=False)
        if (
            view.status is GameStatus.PLAYING
            and self.me is not None
            and view.to_move is self.me
            and state is not None
        ):
            text = self.premove.on_turn(state)
            if text is not None:
                self._send(PlayMove(self.game_id, view.ply, text))
            elif self.premove.cancelled:
                self._notice(self.premove.cancelled)
                self.premove.cancelled = None
        self._show_turn()
        self._tick()

    def _show_players(self) -> None:
        """Both players, the user at the bottom; one who has left is marked away, with the
        time until the user may claim victory."""
        view = self.view
        bottom = self.me or Colour.WHITE
        for place, colour in (("top", _other(bottom)), ("bottom", bottom)):
            player = view.player(colour)
            you = " (you)" if colour is self.me else ""
            away = ""
            if colour in view.away:
                away = " (away)"
                if self._claim_at is not None and view.status is GameStatus.PLAYING:
                    left = self._claim_at - monotonic()
                    away = (
                        f" (away: claim in {left:.0f} s)" if left > 0 else " (away: ctrl+y claims)"
                    )
            text = f"{'○' if colour is Colour.WHITE else '●'} {player_text(player)}{you}{away}"
            self.query_one(f"#{place}-player", Static).update(
                in_ascii(text) if self.arena.ascii else text
            )

    def _show_turn(self) -> None:
        view = self.view
        self.board.show_premove(self.premove.pending)
        refresh_keys(self)  # the keys that apply change with the turn (check_action)
        turn = self.query_one("#turn", Static)
        self.board.ended = view.status is GameStatus.ENDED
        if view.status is GameStatus.ENDED:
            turn.update(_result(view, self.me, self._side, self._why_aborted))
            turn.add_class("-ended")
            for field in self.query(MoveInput):
                field.display = False  # nothing more to move: the keys say what comes next
            return
        who = view.to_move
        text = f"{self._side(who)} to move" + (" (you)" if who is self.me else "")
        left = self._first_move_left()
        if left is not None:
            text += f": first move within {max(left, 0):.0f} s, else the game is aborted"
        if self.premove.pending is not None:
            text += f"; premove {self.premove.pending}"
        turn.update(text)
        turn.set_class(left is not None and left < LOW_SECONDS, "-low")

    def _first_move_window(self) -> float | None:
        """The seconds each side has for its first move, as the server offers say."""
        offers = self.arena.offers
        if offers is None or offers.first_move_ms is None:
            return None
        return offers.first_move_ms / 1000

    def _first_move_left(self) -> float | None:
        """The seconds left for the side to move's first move (below zero once its window has
        passed); None once both have moved. The view has it as the server said (or as its
        offers have it from the turn's start), for a spectator or a player who comes in the
        middle of the window too; from a server that does not say, it is timed here from when
        this client saw the turn begin."""
        view = self.view
        if view.status is not GameStatus.PLAYING:
            return None
        if view.first_move_by is not None:
            return view.first_move_by - monotonic()
        window = self._first_move_window()
        offers = self.arena.offers
        free = offers.free_plies if offers is not None and offers.free_plies else FREE_PLIES
        if window is None or view.ply >= free:
            return None
        return window - (monotonic() - self._turn_began)

    def _abort_reason(self, ended: GameView) -> str:
        """Why the game `ended` was aborted: a side called it off, or the side to move made no
        first move in time, as the server says (`abort_cause`, `abort_side`). A server that
        does not say leaves it to be worked out here: the user's own abort is known, a first
        move's window is timed as the server times it, else the other player called it off."""
        cause, side = ended.abort_cause, ended.abort_side
        if cause is None or side is None:
            cause, side = self._abort_inferred(ended)
        if side is None:
            return "a player aborted it"
        if cause is AbortCause.CALLED_OFF and side is self.me:
            return "you aborted it"
        who = f"{self._side(side)} {player_text(ended.player(side))}"
        if cause is AbortCause.CALLED_OFF:
            return f"{who} aborted it"
        window = self._first_move_window()
        within = "in time" if window is None else f"within {window:g} s"
        return f"{who}{' (you)' if side is self.me else ''} made no first move {within}"

    def _abort_inferred(self, ended: GameView) -> tuple[AbortCause, Colour | None]:
        """Why the game `ended` was aborted, and by or for which side (None: not known), as
        this client saw it end."""
        if self._aborted_by_me:
            return AbortCause.CALLED_OFF, self.me
        left = self._first_move_left()
        if left is not None and left <= WINDOW_SLACK_SECONDS:
            return AbortCause.NO_FIRST_MOVE, ended.to_move
        return AbortCause.CALLED_OFF, None if self.me is None else _other(self.me)

    def _side(self, colour: Colour) -> str:
        """The side `colour` as the game's board names it: `white`, or `South (white)`."""
        return self.board.side_name(COLOURS.index(colour), str(colour))

    def _tick(self) -> None:
        """Both clocks as they stand now: the side to move's runs from when the view came."""
        view = self.view
        bottom = self.me or Colour.WHITE
        running = view.status is GameStatus.PLAYING and view.ply >= FREE_PLIES
        for place, colour in (("top", _other(bottom)), ("bottom", bottom)):
            millis = float(view.clocks.white if colour is Colour.WHITE else view.clocks.black)
            ticking = running and colour is view.to_move
            if ticking:
                millis -= (monotonic() - view.received) * 1000
            clock = self.query_one(f"#{place}-clock", Static)
            clock.update(clock_text(millis))
            clock.set_class(ticking, "-running")
            clock.set_class(millis < LOW_SECONDS * 1000, "-low")
        if self._claim_at is not None:
            self._show_players()
        if self._first_move_left() is not None:
            self._show_turn()

    def _notice(self, text: str) -> None:
        say(self, "#game-notice", text)

    @work(exclusive=True, group="audience")
    async def _count_spectators(self) -> None:
        """Ask for the live games and show this one's spectators; an ended game is no longer
        listed, so its last count stays."""
        if self.view.status is not GameStatus.PLAYING:
            return
        try:
            games = await self.arena.request(ListGames(), GameList)
        except (ArenaError, ConnectionError):
            return  # the connection's state shows why; the next poll asks again
        for summary in games.games:
            if summary.game_id == self.game_id:
                self._show_audience(summary.spectators)

    def _show_audience(self, spectators: int | None) -> None:
        counted = ""
        if spectators is not None:
            counted = f"{spectators} spectator{'' if spectators == 1 else 's'}"
        if self.me is None:
            counted = ", ".join(filter(None, ("watching", counted)))
        say(self, "#audience", counted)

    # What the user does

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that apply now, in the footer and on the keyboard: a spectator has
        none of a player's; a player has them while the game is on, abort only before both
        sides have moved, claim only while the opponent is away, unpremove only with a premove
        queued; review once the game has ended."""
        view = self.view
        on = view.status is GameStatus.PLAYING
        if action in PLAYERS_ACTIONS and (self.me is None or not on):
            return False
        if action == "abort":
            return view.ply < FREE_PLIES
        if action == "claim":
            return self.me is not None and _other(self.me) in view.away
        if action == "cancel_premove":
            return self.premove.pending is not None
        if action == "review":
            return not on
        if action == "best_line":
            return self.panel is not None
        return True

    def on_move_chosen(self, message: MoveChosen) -> None:
        message.stop()
        view = self.view
        if view.status is not GameStatus.PLAYING or self.me is None:
            self._notice("no move to make: " + ("the game is over" if self.me else "watching"))
        elif view.to_move is self.me:
            self._send(PlayMove(self.game_id, view.ply, message.text))
        else:
            self.premove.queue(message.text)
            self._notice(f"premove {message.text} queued: sent on your turn if still legal")
            self._show_turn()

    def _confirmed(self, action: str, what: str) -> bool:
        """Whether `action` was asked for twice within CONFIRM_SECONDS (else ask again)."""
        now = monotonic()
        confirming = self._confirming
        if (
            confirming is not None
            and confirming[0] == action
            and now - confirming[1] <= CONFIRM_SECONDS
        ):
            self._confirming = None
            return True
        self._confirming = (action, now)
        self._notice(f"press the key again to {what}")
        return False

    # check_action lets these run only while they apply.

    def action_resign(self) -> None:
        if self._confirmed("resign", "resign"):
            self._send(Resign(self.game_id))

    def action_abort(self) -> None:
        if self._confirmed("abort", "abort the game"):
            self._aborted_by_me = True
            self._send(Abort(self.game_id))

    def action_claim(self) -> None:
        self._send(ClaimVictory(self.game_id))

    def action_cancel_premove(self) -> None:
        self.premove.cancel()
        self._notice("premove cancelled")
        self._show_turn()

    def action_type_move(self) -> None:
        self.query_one("#move-text", Input).focus()

    def action_to_board(self) -> None:
        self.board.focus()

    def action_best_line(self) -> None:
        self.best_line = not self.best_line
        self._notice("the best move on the board" if self.best_line else "")
        self._show_hint()

    def on_analysis_panel_judged(self, message: AnalysisPanel.Judged) -> None:
        self._show_hint()

    def _show_hint(self) -> None:
        analysis = self.panel.analysis if self.panel is not None else None
        line = analysis.line if analysis is not None and analysis.line else ()
        self.board.show_hint(line[0] if self.best_line and line else None)

    def action_lobby(self) -> None:
        self.dismiss()

    def action_review(self) -> None:
        self.app.push_screen(
            ReviewScreen(
                self.view.record(), ServerAnalyst(self.arena.request), ascii=self.arena.ascii
            )
        )

    @work(group="game-requests")
    async def _send(self, request: Request) -> None:
        """Send `request`; a refusal is shown in one line. What it changes comes as changes."""
        try:
            await self.arena.request(request, Event)
        except ArenaError as error:
            self._notice(f"refused: {error.reply.message}")
        except ConnectionError as error:
            self._notice(str(error))
        else:
            self._notice("")


def _move_list(moves: tuple[str, ...]) -> str:
    """Numbered pairs, one a line: `1. d1-d7/g7  g10-g4/d4`."""
    lines = []
    for number, at in enumerate(range(0, len(moves), 2), 1):
        lines.append(f"{number:>3}. {'  '.join(moves[at : at + 2])}")
    return "\n".join(lines) or "no moves yet"


def _title(view: GameView) -> str:
    """`Game zBO959M6: amazons 6x6 5+3, casual`."""
    terms = " ".join(filter(None, (view.game, view.setup, time_text(view.time))))
    return f"Game {view.game_id}: {terms}, {'rated' if view.rated else 'casual'}"


def _result(
    view: GameView, me: Colour | None, side: Callable[[Colour], str], why_aborted: str
) -> str:
    why = str(view.termination).replace("_", " ") if view.termination else "ended"
    if view.termination is Termination.PLY_CAP:
        return "Game over: drawn at the ply cap. ctrl+g: review, ctrl+l: back to the lobby"
    if view.termination is Termination.ABORTED and why_aborted:
        why = f"aborted: {why_aborted}"
    if view.winner is None:
        return f"Game over: no winner ({why}). ctrl+g: review, ctrl+l: back to the lobby"
    winner = player_text(view.player(view.winner))
    you = " (you)" if view.winner is me else ""
    return (
        f"Game over: {side(view.winner)} {winner}{you} wins by {why}. ctrl+g: review, ctrl+l: back "
        "to the lobby"
    )
