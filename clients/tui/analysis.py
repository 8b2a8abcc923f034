"""The analysis panel: what a position holds, for spectators and reviewers (players never see
it for their own live game). A game's own notes come at once from `notes_for(game)` (for
Amazons, `amazons_analysis.py`); the combinatorial values follow from an `Analyst`, the
server's `analyze` (`ServerAnalyst`) or one in a child process, without ever blocking the app.

Use: `panel = AnalysisPanel(game, analyst)` in a screen, then `panel.show(state)` for every
position shown (None: nothing). The notes change at once; the analyst is asked once the user
has stayed on the position for a moment, asked again when it answers busy, and its answer is
dropped if another position is shown by then.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from clients.connection import ArenaError
from clients.tui.labels import in_ascii
from engine.game import GameState
from server.protocol import Analysis, Analyze, ErrorCode, ProtocolError, Request

__all__ = [
    "AnalysisPanel",
    "Analyst",
    "PositionNotes",
    "ServerAnalyst",
    "notes_for",
]

SETTLE_SECONDS = 0.3  # on a position before the analyst is asked: stepping through asks nothing
# How long the panel keeps asking about a position while the analyst answers busy: the first
# analysis of a server starts its analyst's child process, which may take many seconds before
# its own 3 s of work on a loaded machine, and every position asked for meanwhile waits.
BUSY_SECONDS = 120.0
KEPT_ANALYSES = 500  # positions whose analysis is kept, so stepping back shows it at once


class Analyst(Protocol):
    """Whatever analyses positions: `analyze` answers the `analysis` event for position text
    `text` of `game`, or raises ProtocolError (`unavailable` with `retry_after` while busy)."""

    async def analyze(self, text: str, game: str) -> Analysis: ...


class ServerAnalyst:
    """The server's analysis, asked by `analyze` through `request` (`ArenaApp.request` or an
    `ArenaClient`'s): a refusal becomes the ProtocolError an `Analyst` raises."""

    def __init__(self, request: Callable[[Request, type[Analysis]], Awaitable[Analysis]]) -> None:
        self._request = request

    async def analyze(self, text: str, game: str) -> Analysis:
        try:
            return await self._request(Analyze(position=text), Analysis)
        except ArenaError as error:
            reply = error.reply
            raise ProtocolError(error.code, reply.message, retry_after=reply.retry_after) from None


class PositionNotes(Protocol):
    """A game's notes on one position, worked out when made: `lines` says them, with the
    analyst's findings woven in once known."""

    def lines(self, analysis: Analysis | None) -> list[str]: ...


# A game's notes by game name, "module:class" (the class is made from a state), imported on
# first use: a new game adds its own here, as it adds its board in board.py.
_NOTES: dict[str, str] = {
    "amazons": "clients.tui.amazons_analysis:AmazonsNotes",
}


def notes_for(game: str) -> Callable[[GameState[object]], PositionNotes] | None:
    """What makes the notes on a position of `game`; None for a game without analysis."""
    entry = _NOTES.get(game)
    if entry is None:
        return None
    module, attribute = entry.split(":")
    notes: Callable[[GameState[object]], PositionNotes] = getattr(
        importlib.import_module(module), attribute
    )
    return notes


class AnalysisPanel(VerticalScroll):
    """The analysis of the position shown, in a scrolling pane: the game's notes, then the
    analyst's values, or a line saying why there are none (yet)."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()

    def __init__(
        self,
        game: str,
        analyst: Analyst | None,
        *,
        ascii: bool = False,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """With `ascii` the notes' marks are written in ASCII (`arena play --ascii`)."""
        super().__init__(id=id, classes=classes)
        self.game = game
        self.ascii = ascii
        self.analyst = analyst
        self.border_title = "Analysis"
        self._notes_of = notes_for(game)
        self._notes: PositionNotes | None = None
        self._shown = 0  # how many positions have been shown: a late answer's is older
        self._known: dict[str, Analysis] = {}
        # Held, not queried: an answer may come as the screen closes, with the text unmounted.
        self._text = Static(id="analysis-text", markup=False)

    def compose(self) -> ComposeResult:
        yield self._text

    @property
    def text(self) -> str:
        """What the panel says now, as plain text."""
        return str(self._text.content)

    def show(self, state: GameState[object] | None) -> None:
        """Analyse `state` (None: show nothing): the notes at once, the values when known."""
        self._shown += 1
        self.workers.cancel_group(self, "analysis")
        if state is None:
            self._notes = None
            self._say([])
            return
        if self._notes_of is None:
            self._notes = None
            self._say([f"There is no analysis of {self.game} positions."])
            return
        self._notes = self._notes_of(state)
        text = state.text()
        known = self._known.get(text)
        if known is not None:
            self._say(self._notes.lines(known))
        elif self.analyst is None:
            self._say([*self._notes.lines(None), "", "No analyst: values not shown."])
        else:
            self._say([*self._notes.lines(None), "", "Values: working..."])
            self._ask(text, self._shown)

    def _say(self, lines: list[str]) -> None:
        text = "\n".join(lines)
        self._text.update(in_ascii(text) if self.ascii else text)

    @work(exclusive=True, group="analysis")
    async def _ask(self, text: str, shown: int) -> None:
        """Ask the analyst about position `text`, shown as number `shown`; say what comes of
        it unless another position is shown by then."""
        assert self.analyst is not None
        await asyncio.sleep(SETTLE_SECONDS)
        why = ""
        deadline = asyncio.get_running_loop().time() + BUSY_SECONDS
        attempt = 0
        while asyncio.get_running_loop().time() < deadline:
            attempt += 1
            try:
                analysis = await self.analyst.analyze(text, self.game)
            except ProtocolError as error:
                if error.code != ErrorCode.UNAVAILABLE or error.retry_after is None:
                    why = f"No values: {error}"
                    break
                why = f"No values: the analyst stayed busy ({error})"
                self._tell(shown, f"Values: the analyst is busy; asking again ({attempt})")
                await asyncio.sleep(error.retry_after)
            except ConnectionError as error:
                why = f"No values: {error}"
                break
            except RuntimeError as error:
                # The analyst's child process died (BrokenProcessPool is a RuntimeError).
                why = f"No values: the analyst stopped ({error})"
                break
            else:
                if len(self._known) >= KEPT_ANALYSES:
                    self._known.clear()
                self._known[text] = analysis
                if shown == self._shown and self._notes is not None:
                    self._say(self._notes.lines(analysis))
                return
        self._tell(shown, why)

    def _tell(self, shown: int, line: str) -> None:
        """The notes with `line` under them, if position number `shown` is still shown."""
        if shown == self._shown and self._notes is not None:
            self._say([*self._notes.lines(None), "", line])
