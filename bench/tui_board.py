"""The terminal board's redraw time on 10x10: from a keystroke (a cursor move, a square
picked, a step back) or a new state set by the game screen, to the board drawn again on the
screen, under Textual's pilot (headless, 80x24). The baseline, timed the same way in the same
run: a one-line label beside the board given new text, which is Textual's own refresh cycle
with next to nothing to draw; the board's cost is what it adds to that.

Run from the repository root: python -m bench.tui_board [--repeats N]. Prints figures only. A
time runs from the key handed to the app's driver, as a terminal's would be (or `set_state`
called), until the screen has been composed again with the board drawn anew and handed to the
driver for display (`App._display`), on Textual's own refresh schedule.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult, RenderResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from engine.jit import run_as_python

run_as_python()  # the engine's kernels as `arena play` runs them: plain Python (engine/jit.py)

from clients.tui.amazons_board import AmazonsBoard  # noqa: E402
from engine.game import GameState, get_game  # noqa: E402

# A middle game: moves that leave every amazon free, so the board has many targets to mark.
BOARD = "10x10 board, "
OPENING = ("d1-d7/g7", "j7-h7/h2", "g1-g6/e4", "a7-a6/b7", "a4-c2/c7", "d10-d8/f8")


class CountingBoard(AmazonsBoard):
    """The Amazons board, counting its renders so each timing is known to include one."""

    renders = 0

    def render(self) -> Text:
        CountingBoard.renders += 1
        return super().render()


class CountingLabel(Static):
    """The baseline: a label counting its renders."""

    renders = 0

    def render(self) -> RenderResult:
        CountingLabel.renders += 1
        return super().render()


class Host(App[None]):
    """Sets `drawn` each time the screen is composed and handed over for display."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield CountingBoard(id="board")
        yield CountingLabel("", id="label")

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        super()._display(screen, renderable)
        if renderable is not None:
            self.drawn.set()


def press(app: Host, key: str) -> Callable[[], Awaitable[None]]:
    """A key as the terminal driver delivers it."""

    async def act() -> None:
        event = events.Key(key, None)
        event.set_sender(app)
        assert app._driver is not None
        app._driver.send_message(event)

    return act


async def timed(
    pilot: Pilot[None],
    act: Callable[[], Awaitable[None]],
    drawn: type[CountingBoard | CountingLabel] = CountingBoard,
) -> float:
    """Milliseconds from `act` to the screen shown with the widget `drawn` drawn again."""
    app = pilot.app
    assert isinstance(app, Host)
    await pilot.pause()
    before = drawn.renders
    start = time.perf_counter()
    await act()
    while True:
        app.drawn.clear()
        await asyncio.wait_for(app.drawn.wait(), timeout=5)
        if drawn.renders != before:
            return (time.perf_counter() - start) * 1000


async def measure(repeats: int) -> dict[str, list[float]]:
    game = get_game("amazons")
    states: list[GameState[object]] = [game.new_state("10x10")]
    for text in OPENING:
        state = states[-1].clone()
        state.apply(state.parse_move(text))
        states.append(state)
    figures: dict[str, list[float]] = {
        "baseline, a label's new text": [],
        BOARD + "cursor key": [],
        BOARD + "pick and step back": [],
        BOARD + "new state": [],
    }
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.query_one(CountingBoard)
        board.player = 0
        board.set_state(states[-1], OPENING[-1])
        board.focus()
        await pilot.pause()
        label = app.query_one(CountingLabel)
        for round_ in range(repeats):

            async def relabel(text: str = f"label {round_}") -> None:
                label.update(text)

            figures["baseline, a label's new text"].append(
                await timed(pilot, relabel, CountingLabel)
            )
        for round_ in range(repeats):
            key = "right" if round_ % 2 == 0 else "left"
            figures[BOARD + "cursor key"].append(await timed(pilot, press(app, key)))
        board.cursor = board.cursor._replace(file=3, rank=6)  # d7, a white amazon
        for _ in range(repeats // 2):
            figures[BOARD + "pick and step back"].append(await timed(pilot, press(app, "enter")))
            figures[BOARD + "pick and step back"].append(await timed(pilot, press(app, "escape")))
        for round_ in range(repeats):
            index = len(states) - 1 - round_ % 2

            async def set_state(i: int = index) -> None:
                board.set_state(states[i], OPENING[i - 1])

            figures[BOARD + "new state"].append(await timed(pilot, set_state))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=100, help="timings of each kind")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    for kind, times in asyncio.run(measure(args.repeats)).items():
        times.sort()
        p90 = times[int(len(times) * 0.9)]
        print(
            f"{kind}: median {statistics.median(times):.1f} ms, "
            f"90th percentile {p90:.1f} ms, {len(times)} timings"
        )


if __name__ == "__main__":
    main()
