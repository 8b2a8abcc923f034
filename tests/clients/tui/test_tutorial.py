"""`arena tutorial`: each rules step takes the kind of move it asks for and says why another is
not; each exercise has winning and losing moves by the exact solver, accepts only the
winners and answers a loser with a reply after which the user's side loses; all at 80x24."""

from __future__ import annotations

import threading

import pytest
from textual.pilot import Pilot
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from clients.tui import tutorial
from clients.tui.amazons_board import AmazonsBoard
from clients.tui.exercises import EXERCISES, Exercise, Solution, solve
from clients.tui.help import HelpScreen
from clients.tui.lessons import STEPS, Step
from clients.tui.move_input import MoveInput
from clients.tui.tutorial import REPLY_SECONDS, TutorialApp, TutorialScreen
from engine.amazons import Position, Side
from engine.cgt.analysis import analyze
from server.cli import main
from tests.clients.tui.test_app import until

# For each step: a move of the kind it asks for, and one that is not, with a part of why not.
STEP_MOVES = {
    "How an amazon moves": ("c1-e3/e4", "c1-c4/c5", "c1-c4 goes straight along its file"),
    "Nothing jumps": ("a1-a4/b4", "a1-a3/a2", "it can go further than a3: up to a4"),
    "The arrow": ("b2-b4/b2", "b2-b4/b3", "the arrow landed on b3"),
    "Walls": ("b2-b5/e5", "b2-b4/e4", "can still move"),
    "Regions": ("c5-d5/f3", "c5-d5/e5", "still shares a region with your amazon on d5"),
    "How the game ends": ("c4-d3/e2", "c4-c2/e4", "black can still move"),
    "Counting": ("a1-c1/a1", "a1-c1/b1", "it has 3 left to move to, not 4"),
}


def test_every_step_is_listed_here() -> None:
    assert [step.title for step in STEPS] == list(STEP_MOVES)


@pytest.mark.parametrize("step", STEPS, ids=lambda step: step.title)
def test_a_step_takes_its_kind_of_move_and_says_why_another_is_not(step: Step) -> None:
    good, bad, why = STEP_MOVES[step.title]
    assert step.refusal(good) is None
    refusal = step.refusal(bad)
    assert refusal is not None
    assert why in refusal
    # An illegal move is refused in the engine's own words.
    assert step.refusal("f6-f1/f2") == "no white amazon on f6"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda exercise: exercise.title)
def test_an_exercise_has_winners_and_losers_and_each_loser_a_refutation(
    exercise: Exercise,
) -> None:
    position = Position.parse(exercise.position)
    user = position.side_to_move
    best = analyze(position).best_moves
    assert best
    legal = {str(move) for move in position.legal_moves}
    solution = solve(exercise)
    assert solution.winners == {str(move) for move in best}
    assert solution.replies.keys() == legal - solution.winners
    assert solution.replies, "every move wins: nothing to learn"
    for losing, reply in solution.replies.items():
        after = Position.parse(exercise.position)
        after.apply(after.parse_move(losing))
        after.apply(after.parse_move(reply.move))
        assert after.text() == reply.position
        assert analyze(after).winner(user) is user.other, (losing, reply.move)


def _screen(app: TutorialApp) -> TutorialScreen:
    screen = app.screen
    assert isinstance(screen, TutorialScreen)
    return screen


def _text(app: TutorialApp, part: str) -> str:
    return str(app.screen.query_one(part, Static).content)


async def _type(pilot: Pilot[None], move: str) -> None:
    await pilot.press("ctrl+t", *move, "enter")
    await pilot.pause()


@pytest.mark.asyncio
async def test_the_first_step_refuses_a_straight_move_then_takes_a_diagonal_one() -> None:
    app = TutorialApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _screen(app)
        assert _text(app, "#tutorial-title") == "Rules 1 of 7: How an amazon moves"
        # The cursor starts on a1: c1 up to c4, shooting at c5.
        await pilot.press("right", "right", "enter", "up", "up", "up", "enter", "up", "enter")
        await pilot.pause()
        assert "c1-c4 goes straight along its file" in screen.verdict
        board = app.screen.query_one(AmazonsBoard)
        assert board.state is not None
        assert board.state.text() == STEPS[0].position
        # Now (from c5, where the cursor shot) c1 to e3, shooting back at c1.
        await pilot.press("down", "down", "down", "down", "enter", "right", "right", "up", "up")
        await pilot.press("enter")
        await pilot.press("left", "left", "down", "down", "enter")
        await pilot.pause()
        assert screen.verdict.startswith("Yes.")
        assert board.last_move == "c1-e3/c1"
        await pilot.press("ctrl+n")
        assert _text(app, "#tutorial-title") == "Rules 2 of 7: Nothing jumps"
        await _type(pilot, "a1-a3/a2")
        assert "it can go further than a3" in screen.verdict
        await pilot.press("ctrl+p")
        assert _text(app, "#tutorial-title") == "Rules 1 of 7: How an amazon moves"


@pytest.mark.asyncio
async def test_an_exercise_refutes_a_losing_move_then_accepts_a_winning_one() -> None:
    exercise = EXERCISES[0]
    start = Position.parse(exercise.position)
    user = start.side_to_move
    app = TutorialApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _screen(app)
        await pilot.press(*["ctrl+n"] * len(STEPS))
        assert _text(app, "#tutorial-title") == f"Exercise 1 of 3: {exercise.title}"
        await app.workers.wait_for_complete()
        await pilot.pause()
        board = screen.query_one(AmazonsBoard)
        assert board.player == user
        best = {str(move) for move in analyze(start).best_moves or ()}
        losing = "a6-b6/a6"
        assert losing not in best
        await _type(pilot, losing)
        # The losing move is shown first, then the reply.
        assert board.last_move == losing
        await pilot.pause(REPLY_SECONDS + 0.2)
        reply = board.last_move
        assert reply is not None
        assert reply != losing
        assert f"{losing} loses to {reply}" in screen.verdict
        after = Position.parse(exercise.position)
        after.apply(after.parse_move(losing))
        after.apply(after.parse_move(reply))
        assert board.state is not None
        assert board.state.text() == after.text()
        assert analyze(after).winner(user) is Side(user).other
        await pilot.press("ctrl+r")
        assert board.state is not None
        assert board.state.text() == start.text()
        assert board.player == user
        winning = "a3-b3/a3"
        assert winning in best
        await _type(pilot, winning)
        assert screen.verdict.startswith(f"Right: {winning} wins")
        assert board.last_move == winning


@pytest.mark.asyncio
async def test_an_exercise_says_it_is_thinking_until_the_solver_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    go = threading.Event()

    def slow_solve(exercise: Exercise) -> Solution:
        go.wait(timeout=30)
        return solve(exercise)

    monkeypatch.setattr(tutorial, "solve", slow_solve)
    app = TutorialApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _screen(app)
        await pilot.press(*["ctrl+n"] * len(STEPS))
        board = screen.query_one(AmazonsBoard)
        assert screen.verdict.startswith("thinking")
        assert board.player is None
        await _type(pilot, "a3-b3/a3")
        assert screen.query_one(MoveInput).reason == (
            "there is no move of yours to make on this board"
        )
        go.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.verdict == ""
        assert board.player == Side.WHITE


@pytest.mark.asyncio
async def test_the_tutorial_fits_80x24_without_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = TutorialApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _screen(app)
        whole = screen.region
        for part in (AmazonsBoard, MoveInput, Footer):
            region = screen.query_one(part).region
            assert region.area > 0, part
            assert whole.contains_region(region), part
        for name in ("#tutorial-title", "#tutorial-text", "#verdict"):
            region = screen.query_one(name, Static).region
            assert whole.contains_region(region), name
        lines = screen.query_one(AmazonsBoard).render().plain.splitlines()
        assert lines[0] == "    a  b  c  d  e  f    "
        # Dark squares are dotted without colour; the cursor is on a1.
        assert lines[6] == " 1 [·]    ♕     ·     1 "
        # The footer shows the screen's keys, every one whole on the screen. Textual fills the
        # footer in a later refresh, and on a busy machine one pause may come before it.
        wanted = {"Next", "Back", "Again", "Quit", "Keys"}
        await until(
            pilot,
            lambda: {key.description for key in screen.query(FooterKey)} >= wanted,
            "the footer's keys",
        )
        footer_keys = list(screen.query(FooterKey))
        for key in footer_keys:
            assert whole.contains_region(key.region), key.description
        # Every step's words fit beside the board in four lines.
        text = screen.query_one("#tutorial-text", Static)
        for _ in range(len(STEPS) + len(EXERCISES)):
            assert text.region.height <= 4, _text(app, "#tutorial-title")
            assert whole.contains_region(text.region)
            await pilot.press("ctrl+n")
            await pilot.pause()
        # ? lists every key.
        await pilot.press("ctrl+b", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.keys)
        assert {"^n", "^p", "^r", "^t", "^b", "^q", "?"} <= keys.keys()


def test_arena_tutorial_runs_the_app_with_its_options(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[bool] = []

    def run(app: TutorialApp) -> None:
        runs.append(app.ascii)

    monkeypatch.setattr(TutorialApp, "run", run)
    assert main(["tutorial", "--ascii"]) == 0
    assert main(["tutorial"]) == 0
    assert runs == [True, False]
