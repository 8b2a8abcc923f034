"""Review of a finished game, given as a game record: its board at any move (no move can be
made), the move list to choose from, numbered by moves as the game screen numbers them (`10.`
for the first side's tenth, `10...` for the second side's), stepping back and forth, jumping
to the start, the end or move N, the game's id and terms, and the analysis panel for every
position. `ReviewScreen` is opened by the game screen
once a game ends; `ReviewApp` shows one alone, for `arena review`.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static

from clients.tui.analysis import AnalysisPanel, Analyst, notes_for
from clients.tui.board import BoardWidget, board_for
from clients.tui.help import APP_BINDINGS, show_keys
from clients.tui.labels import in_ascii
from engine.game import GameState
from engine.records import GameRecord

__all__ = ["MoveList", "ReviewApp", "ReviewScreen", "result_text"]

GLYPHS = ("○", "●")  # the side of each player index, as the game screen marks them
SIDES = ("white", "black")


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
        # A game with no analysis (notes_for gives none) has no panel.
        self.ascii = ascii
        self.panel: AnalysisPanel | None = None
        if notes_for(record.game) is not None:
            self.panel = AnalysisPanel(record.game, analyst, ascii=ascii, id="analysis")

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
        return self._marked(text)

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
            self.panel.show(state)

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
