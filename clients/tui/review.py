"""Review of a finished game, given as a game record: its board at any move (no move can be
made), the move list to choose from, numbered by moves as the game screen numbers them (`10.`
for the first side's tenth, `10...` for the second side's), stepping back and forth, jumping
to the start, the end or move N, the game's id and terms, and the analysis panel for every
position, its best line drawn on the board on request. A game of the server can be analysed
whole (`analyze_game`): its progress, then the evaluation over the plies as a line of blocks
(a click on it goes to that ply), each move's mark (`?!`, `?`, `??`) in the move list, the
better move drawn on the board at a marked move, keys to the next and previous marked move, and
each side's summary. `ReviewScreen` is opened by the game screen once a game ends; `ReviewApp`
shows one alone, for `arena review`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static

from clients.changes import ReviewProgress
from clients.evaluation import MARK_SIGNS, evaluation_graph, summary_text
from clients.tui.analysis import BUSY, AnalysisPanel, Analyst, GameAnalyst, analysed
from clients.tui.board import BoardWidget, board_for
from clients.tui.help import APP_BINDINGS, show_keys
from clients.tui.labels import in_ascii
from clients.tui.messages import ServerChange
from engine.game import GameState
from engine.records import GameRecord
from server.protocol import GameAnalysis, MoveReview, ProtocolError

__all__ = ["EvaluationGraph", "MoveList", "ReviewApp", "ReviewScreen", "result_text"]

GLYPHS = ("○", "●")  # the side of each player index, as the game screen marks them
SIDES = ("white", "black")
GRAPH_WIDTH = 40  # the evaluation graph's blocks before the screen's layout says its width
REVIEW_TRIES = 10  # a whole game's review asked while the server says it is busy


def result_text(record: GameRecord) -> str:
    """`white wins: no legal move`, `no winner: aborted`, or `unfinished`."""
    if record.winner is not None:
        return f"{record.winner} wins: {record.termination or 'game over'}"
    return f"no winner: {record.termination}" if record.termination else "unfinished"


def _player(index: int, name: str, rating: int | None) -> str:
    rated = "" if rating is None else f" ({rating})"
    return f"{GLYPHS[index]} {SIDES[index]}: {name}{rated}"


class MoveList(OptionList, inherit_bindings=False):
    """The moves, one a line after the start; the one highlighted is the position shown. Its
    own keys only: Left and Right are the screen's, to step."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Show", show=False, tooltip="show the move highlighted"),
        Binding("up", "cursor_up", "Up", show=False, tooltip="the move before"),
        Binding("down", "cursor_down", "Down", show=False, tooltip="the next move"),
        Binding("home", "first", "Start", tooltip="the start"),
        Binding("end", "last", "End", tooltip="after the last move"),
        Binding("pageup", "page_up", "Page up", show=False, tooltip="a page of moves back"),
        Binding("pagedown", "page_down", "Page down", show=False, tooltip="a page of moves on"),
    ]


class EvaluationGraph(Static):
    """White's winning chance over the game's positions, a block each (averaged when they do
    not fit), under it a caret at the position shown; a click goes to the position under it."""

    class Chosen(Message):
        def __init__(self, ply: int) -> None:
            super().__init__()
            self.ply = ply

    def __init__(self, *, ascii: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.ascii = ascii
        self.white_wins: tuple[int, ...] = ()
        self.ply = 0

    def plot(self, white_wins: tuple[int, ...], ply: int) -> None:
        self.white_wins, self.ply = white_wins, ply
        self.display = bool(white_wins)
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _columns(self) -> int:
        return max(min(len(self.white_wins), self.content_size.width or GRAPH_WIDTH), 1)

    def _draw(self) -> None:
        if not self.white_wins:
            self.update("")
            return
        columns = self._columns()
        graph = evaluation_graph(self.white_wins, columns, ascii=self.ascii)
        caret = self.ply * columns // len(self.white_wins)
        self.update(f"{graph}\n{' ' * caret}^")

    def on_click(self, event: events.Click) -> None:
        if self.white_wins and event.y == 0:
            columns = self._columns()
            # The first position the block under the click stands for.
            self.post_message(
                self.Chosen(min(event.x, columns - 1) * len(self.white_wins) // columns)
            )


class ReviewScreen(Screen[None]):
    """Game `record`, finished, at any of its moves; `analyst` gives the analysis panel its
    values. `about` says where the game comes from (the file and its number)."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Back", tooltip="the move before"),
        Binding("right", "step(1)", "Forward", tooltip="the next move"),
        Binding("home", "jump(0)", "Start", tooltip="the start"),
        Binding("end", "jump(-1)", "End", tooltip="after the last move"),
        Binding(
            "g",
            "go",
            "Go to",
            tooltip="go to move N: g, the number (N... for the second side's), Enter",
        ),
        Binding("left_square_bracket", "step_last_move(-1)", show=False),
        Binding("right_square_bracket", "step_last_move(1)", show=False),
        Binding("a", "review", "Analyse", tooltip="analyse the whole game (the server's)"),
        Binding("n", "marked(1)", "Next ?", tooltip="the next marked move (?!, ?, ??)"),
        Binding("p", "marked(-1)", "Prev ?", tooltip="the previous marked move"),
        Binding("l", "best_line", "Line", tooltip="draw the best move on the board, or not"),
        Binding("escape", "back", "Leave", tooltip="close the move field, else leave the review"),
    ]

    def __init__(
        self, record: GameRecord, analyst: Analyst | None, about: str = "", *, ascii: bool = False
    ) -> None:
        super().__init__()
        self.record = record
        self.about = about
        self.states = _states(record)
        self.ply = len(self.states) - 1
        self.board: BoardWidget = board_for(record.game)(ascii=ascii, id="board")
        # Nothing is played here: the board takes no focus, so the arrow keys step.
        self.board.can_focus = False
        # A game with no analysis has no panel.
        self.ascii = ascii
        self.analyst = analyst
        self.panel: AnalysisPanel | None = None
        if analysed(record.game):
            self.panel = AnalysisPanel(
                record.game, analyst, game_id=record.game_id, ascii=ascii, id="analysis"
            )
        self.review: GameAnalysis | None = None  # the whole game's, once analysed
        self.reviewing = False  # asked, not yet answered
        self.best_line = False  # the best line's first move drawn on the board

    @property
    def moves(self) -> list[str]:
        return self.record.moves

    def compose(self) -> ComposeResult:
        record = self.record
        with Horizontal(id="review"):
            with Vertical(id="review-board-side"):
                yield self.board
                yield Static(id="review-at", markup=False)
                yield Static(id="review-notice", markup=False)
                yield Input(placeholder="move number (N... second side's), Enter", id="review-goto")
                yield MoveList(*self._entries(), id="review-moves")
            with Vertical(id="review-side"):
                white = _player(0, record.white, record.white_rating)
                black = _player(1, record.black, record.black_rating)
                yield Static(self._marked(white), markup=False)
                yield Static(self._marked(black), markup=False)
                yield Static(result_text(record), id="review-result", markup=False)
                yield Static(self._about(), id="review-about", markup=False)
                yield Static(id="review-progress", markup=False)
                yield EvaluationGraph(ascii=self.ascii, id="review-graph")
                yield Static(id="review-mark", markup=False)
                yield Static(id="review-summary", markup=False)
                if self.panel is not None:
                    yield self.panel
        yield Footer()

    def _entries(self) -> list[str]:
        return ["      start", *(self._numbered(ply) for ply in range(1, len(self.moves) + 1))]

    def _numbered(self, ply: int) -> str:
        """Move `ply` (from 1) as the move list shows it: `  5.  ○ d1-d7/g7`, `  5... ● ...`."""
        number, second = divmod(ply - 1, 2)
        mover = self.states[ply - 1].current_player
        text = f"{number + 1:>3}{'...' if second else '.  '} {GLYPHS[mover]} {self.moves[ply - 1]}"
        reviewed = self._move_review(ply)
        if reviewed is not None and reviewed.mark is not None:
            text += MARK_SIGNS[reviewed.mark]
        return self._marked(text)

    def _move_review(self, ply: int) -> MoveReview | None:
        """The review of move `ply` (from 1), once the game is analysed."""
        if self.review is None:
            return None
        return next((move for move in self.review.moves if move.ply == ply), None)

    def _marked(self, text: str) -> str:
        """`text` with its marks in ASCII under `--ascii`."""
        return in_ascii(text) if self.ascii else text

    def _about(self) -> str:
        record = self.record
        words = [
            f"Game {record.game_id}:" if record.game_id else "",
            record.game,
            record.setup or "",
        ]
        if record.time is not None:
            base, increment = record.time
            words.append(f"{base // 60}+{increment}" if base % 60 == 0 else f"{base}s+{increment}")
        if record.rated is not None:
            words.append("rated" if record.rated else "casual")
        if record.date:
            words.append(record.date[:10])
        if self.about:
            words.append(f"· {self.about}")
        return " ".join(w for w in words if w)

    def on_resize(self) -> None:
        for column in self.query("#review"):  # none until the screen is composed
            self.board.fit(column)

    def on_mount(self) -> None:
        self.query_one("#review-goto", Input).display = False
        for name in ("#review-progress", "#review-mark", "#review-summary", "#review-graph"):
            self.query_one(name).display = False
        self.goto(self.ply)
        self.query_one(MoveList).focus()

    # Where the review stands

    def goto(self, ply: int) -> None:
        """Show the position after `ply` moves (0: the start)."""
        self.ply = ply
        state = self.states[ply]
        self.board.set_state(state, self.moves[ply - 1] if ply else None)
        self.board.fit(self.query_one("#review"))
        moves = self.query_one(MoveList)
        if moves.highlighted != ply:
            moves.highlighted = ply
        self.query_one("#review-at", Static).update(self._at())
        if self.panel is not None:
            self.panel.show(state, ply)
        self._show_review()

    def _show_review(self) -> None:
        """The whole game's review where the review stands: the graph's caret, the mark of the
        move that made the position shown and the better move on the board."""
        review = self.review
        if review is None:
            return
        self.query_one(EvaluationGraph).plot(review.white_wins, self.ply)
        move = self._move_review(self.ply)
        mark = self.query_one("#review-mark", Static)
        said = ""
        if move is not None and move.mark is not None:
            said = (
                f"{move.move}{MARK_SIGNS[move.mark]} {move.mark}: {move.better} was better "
                f"({move.mover} lost {move.loss / 10:.1f}%)"
            )
        mark.update(said)
        mark.display = bool(said)
        self._show_hint()

    def _show_hint(self) -> None:
        """On the board: the better move at a marked move, else the best line's first move
        when asked for."""
        move = self._move_review(self.ply)
        hint = move.better if move is not None and move.mark is not None else None
        analysis = self.panel.analysis if self.panel is not None else None
        if hint is None and self.best_line and analysis is not None and analysis.line:
            hint = analysis.line[0]
        self.board.show_hint(hint)

    def on_analysis_panel_judged(self, message: AnalysisPanel.Judged) -> None:
        self._show_hint()

    def on_evaluation_graph_chosen(self, message: EvaluationGraph.Chosen) -> None:
        self.goto(min(max(message.ply, 0), len(self.moves)))

    def on_server_change(self, message: ServerChange) -> None:
        change = message.change
        if (
            isinstance(change, ReviewProgress)
            and change.game_id == self.record.game_id
            and self.reviewing
        ):
            self._progress(f"Analysing the game: {change.done} of {change.total} positions")

    def _progress(self, text: str) -> None:
        progress = self.query_one("#review-progress", Static)
        progress.update(text)
        progress.display = bool(text)

    def _at(self) -> str:
        state = self.states[self.ply]
        if self.ply == 0:
            where = f"start, {_moves(len(self.moves))} moves"
        else:
            where = " ".join(self._numbered(self.ply).split())
        if state.is_terminal():
            return f"{where}: the end"
        return f"{where}, {SIDES[state.current_player]} to move"

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        # Only where the list stands now: the message of a highlight set by `goto` may come
        # after the next step.
        if event.option_index == event.option_list.highlighted != self.ply:
            self.goto(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.goto(event.option_index)

    # What the user does

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The whole game is analysed by the server's analyst, of a game it has, once; the
        marked moves are there to step to once it is."""
        if action == "review":
            known = self.record.game_id is not None and isinstance(self.analyst, GameAnalyst)
            return known and self.review is None and not self.reviewing
        if action == "marked":
            return self.review is not None
        if action == "best_line":
            return self.panel is not None
        return True

    def action_review(self) -> None:
        self.reviewing = True
        self._progress("Analysing the game...")
        self.refresh_bindings()
        self._review()

    @work(exclusive=True, group="review")
    async def _review(self) -> None:
        assert isinstance(self.analyst, GameAnalyst)
        assert self.record.game_id is not None
        try:
            # Asked again while the server is busy: with this screen's own question about the
            # position shown, say.
            for _ in range(REVIEW_TRIES - 1):
                try:
                    review = await self.analyst.review(self.record.game_id)
                    break
                except ProtocolError as error:
                    if error.code not in BUSY or error.retry_after is None:
                        raise
                    await asyncio.sleep(error.retry_after)
            else:
                review = await self.analyst.review(self.record.game_id)
        except (ProtocolError, ConnectionError) as error:
            self._progress(f"No review: {error}")
        else:
            self.review = review
            self._progress("")
            moves = self.query_one(MoveList)
            highlighted = moves.highlighted
            for ply in range(1, len(self.moves) + 1):
                moves.replace_option_prompt_at_index(ply, self._numbered(ply))
            moves.highlighted = highlighted
            summary = self.query_one("#review-summary", Static)
            summary.update("\n".join(summary_text(side) for side in review.summary))
            summary.display = bool(review.summary)
            self._show_review()
        finally:
            self.reviewing = False
            self.refresh_bindings()

    def action_marked(self, direction: int) -> None:
        """Go to the next (1) or previous (-1) marked move, if there is one that way."""
        plies = [m.ply for m in self.review.moves if m.mark is not None] if self.review else []
        ahead = [p for p in plies if (p - self.ply) * direction > 0]
        if ahead:
            self.goto(min(ahead) if direction > 0 else max(ahead))

    def action_best_line(self) -> None:
        self.best_line = not self.best_line
        self._show_hint()

    def action_step_last_move(self, delta: int) -> None:
        """The move shown a part further on or back (Bao's sowing, lap by lap)."""
        self.board.step_last_move(delta)

    def action_step(self, plies: int) -> None:
        self.goto(min(max(self.ply + plies, 0), len(self.moves)))

    def action_jump(self, ply: int) -> None:
        self.goto(len(self.moves) if ply < 0 else ply)

    def action_go(self) -> None:
        field = self.query_one("#review-goto", Input)
        field.display = True
        field.clear()
        field.focus()

    def action_back(self) -> None:
        field = self.query_one("#review-goto", Input)
        if field.display:
            self._close_goto()
        else:
            self.dismiss()

    def _close_goto(self) -> None:
        self.query_one("#review-goto", Input).display = False
        self.query_one(MoveList).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        last = len(self.moves)
        text = event.value.strip()
        number, dots, rest = text.partition("...")
        notice = self.query_one("#review-notice", Static)
        ply = 2 * int(number) - (0 if dots else 1) if number.isdigit() and not rest else -1
        if number == "0" and not dots:
            ply = 0
        if not 0 <= ply <= last:
            notice.update(
                f"no move {text!r}: the moves run 0 (start) to {_moves(last)}, "
                "N... for the second side's"
            )
            return
        notice.update("")
        self._close_goto()
        self.goto(ply)


def _moves(plies: int) -> int:
    """How many moves `plies` plies make, a move being one of each side's."""
    return (plies + 1) // 2


def _states(record: GameRecord) -> list[GameState[object]]:
    """The state after each number of moves, from the start to the end; a ValueError names a
    move that cannot be played."""
    return [record.replay(ply) for ply in range(len(record.moves) + 1)]


class ReviewApp(App[None]):
    """`arena review`: one game's review alone; leaving it ends the app."""

    CSS_PATH = "arena.tcss"
    TITLE = "Amazons Arena"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    def __init__(self, record: GameRecord, analyst: Analyst | None, about: str = "") -> None:
        super().__init__()
        self.review = ReviewScreen(record, analyst, about)

    def on_mount(self) -> None:
        self.push_screen(self.review, lambda _: self.exit())

    def action_help(self) -> None:
        show_keys(self)
