"""`arena tutorial`: the rules of Amazons in short steps, then endgame exercises, on a 6x6
board with no server. Each step asks for a move of the kind it teaches (`clients.tui.lessons`
judges it); each exercise accepts only the moves the exact solver says win and answers any
other with the reply that refutes it (`clients.tui.exercises`, solved in a worker thread
while the rules are read).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import get_current_worker

from clients.tui.board import BoardWidget, MoveChosen, board_for
from clients.tui.exercises import EXERCISES, Exercise, Solution, solve
from clients.tui.help import APP_BINDINGS, show_keys
from clients.tui.lessons import STEPS, Step
from clients.tui.move_input import MoveInput
from engine.game import GameState, get_game

__all__ = ["REPLY_SECONDS", "TutorialApp", "TutorialScreen"]

REPLY_SECONDS: Final = 0.8  # the user's losing move stays on the board this long before the reply
Page = Step | Exercise


def _state(text: str) -> GameState[object]:
    return get_game("amazons").parse_state(text)


class TutorialScreen(Screen[None]):
    """The pages, rules first, one at a time: the page's words beside its board, and under
    them what was made of the user's last move."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "turn(1)", "Next", tooltip="the next step"),
        Binding("ctrl+p", "turn(-1)", "Back", tooltip="the step before"),
        Binding("ctrl+r", "restart", "Again", tooltip="start this step again"),
        Binding("ctrl+t", "type_move", "Type", tooltip="type a move"),
        Binding("ctrl+b", "to_board", "Board", show=False, tooltip="pick a move on the board"),
    ]

    def __init__(self, *, ascii: bool = False) -> None:
        super().__init__()
        self.pages: tuple[Page, ...] = (*STEPS, *EXERCISES)
        self.page = 0
        self.solutions: dict[Exercise, Solution] = {}
        self.board: BoardWidget = board_for("amazons")(ascii=ascii, id="board")

    def compose(self) -> ComposeResult:
        with Horizontal(id="tutorial"):
            with Vertical(id="tutorial-board"):
                yield self.board
                yield MoveInput(self.board, id="move-input")
            with Vertical(id="tutorial-side"):
                yield Static(id="tutorial-title", markup=False)
                yield Static(id="tutorial-text", markup=False)
                yield Static(id="verdict", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._show_page()
        self.board.focus()
        self._solve()

    @property
    def verdict(self) -> str:
        """What the tutorial says of the user's last move (or that it is thinking)."""
        return str(self.query_one("#verdict", Static).content)

    # The pages

    def _show_page(self) -> None:
        page = self.pages[self.page]
        if isinstance(page, Step):
            title = f"Rules {self.page + 1} of {len(STEPS)}: {page.title}"
        else:
            number = self.page - len(STEPS) + 1
            title = f"Exercise {number} of {len(EXERCISES)}: {page.title}"
        self.query_one("#tutorial-title", Static).update(title)
        self.query_one("#tutorial-text", Static).update(page.text)
        state = _state(page.position)
        ready = isinstance(page, Step) or page in self.solutions
        self.board.player = state.current_player if ready else None
        self.board.set_state(state)
        self._say("" if ready else "thinking: the solver is working out this endgame...")

    def _say(self, text: str, mood: str = "") -> None:
        verdict = self.query_one("#verdict", Static)
        verdict.update(text)
        verdict.set_classes(mood)

    def action_turn(self, pages: int) -> None:
        page = self.page + pages
        if page >= len(self.pages):
            self._say("That was the last exercise. ctrl+q quits; arena play finds a game.")
        elif page >= 0:
            self.page = page
            self._show_page()

    def action_restart(self) -> None:
        self._show_page()

    def action_type_move(self) -> None:
        self.query_one("#move-text", Input).focus()

    def action_to_board(self) -> None:
        self.board.focus()

    # The user's moves

    def on_move_chosen(self, message: MoveChosen) -> None:
        message.stop()
        page = self.pages[self.page]
        if isinstance(page, Step):
            self._judge_step(page, message.text)
        else:
            self._judge_exercise(page, self.solutions[page], message.text)

    def _judge_step(self, step: Step, move: str) -> None:
        refusal = step.refusal(move)
        if refusal is not None:
            self._say(f"Not that one: {refusal}.", "-wrong")
            return
        self._play(_state(step.position), move)
        self._say(f"Yes. {step.done} ctrl+n: next.", "-right")

    def _judge_exercise(self, exercise: Exercise, solution: Solution, move: str) -> None:
        state = self._play(_state(exercise.position), move)
        if move in solution.winners:
            self._say(f"Right: {move} wins: {exercise.why}. ctrl+n: next.", "-right")
            return
        reply = solution.replies[move]
        self._say(f"{move} loses. Watch the reply...", "-wrong")

        def answer() -> None:
            if self.board.state is None or self.board.state.text() != state.text():
                return  # the user has gone on
            self.board.set_state(_state(reply.position), reply.move)
            self._say(f"{move} loses to {reply.move}: {reply.why}. ctrl+r: try again.", "-wrong")

        self.set_timer(REPLY_SECONDS, answer)

    def _play(self, state: GameState[object], move: str) -> GameState[object]:
        """Show `move` played in `state`, with the board closed to moves."""
        state.apply(state.parse_move(move))
        self.board.player = None
        self.board.set_state(state, move)
        return state

    # The solver

    @work(thread=True, group="solve")
    def _solve(self) -> None:
        # A search cannot be stopped halfway: a tutorial closed early stops between exercises
        # (and its event loop, closing, waits for the one being solved).
        worker = get_current_worker()
        for exercise in EXERCISES:
            if worker.is_cancelled:
                return
            solution = solve(exercise)
            self.app.call_from_thread(self._solved, exercise, solution)

    def _solved(self, exercise: Exercise, solution: Solution) -> None:
        self.solutions[exercise] = solution
        if self.pages[self.page] is exercise and self.board.player is None:
            self._show_page()


class TutorialApp(App[None]):
    """`arena tutorial`: the tutorial screen, with `?` for its keys; no server."""

    TITLE = "Amazons Arena tutorial"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS
    CSS_PATH = "arena.tcss"

    def __init__(self, *, ascii: bool = False) -> None:
        super().__init__()
        self.ascii = ascii

    def on_mount(self) -> None:
        self.push_screen(TutorialScreen(ascii=self.ascii))

    def action_help(self) -> None:
        show_keys(self)
