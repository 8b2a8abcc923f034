"""The analysis panel: what a position holds, for spectators and reviewers (players never see
it for their own live game). A game's own notes come at once from `notes_for(game)` (for
Amazons, `amazons_analysis.py`); the analyst's answer follows, without ever blocking the app:
the engine's judgement (White's winning chance in words and as a bar, the best line, what the
estimate rests on, the exact values or the server's note) over the notes, and the
combinatorial values woven into them. The analyst is the server's `analyze`
(`ServerAnalyst`, asked by game and ply where the panel knows them) or one in a child process.

Use: `panel = AnalysisPanel(game, analyst, game_id=...)` in a screen, then
`panel.show(state, ply)` for every position shown (None: nothing). The notes change at once;
the analyst is asked once the user has stayed on the position for a moment (in a live game at
once), asked again when it answers busy (once in a live game: the next move comes soon), and
its answer is dropped if another position is shown by then. Each answer shown is posted as
`AnalysisPanel.Judged`, for the screen to draw its line on the board.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from clients.connection import ArenaError
from clients.evaluation import basis_text, chance_text, evaluation_bar
from clients.tui.labels import in_ascii
from engine.game import GameState
from server.protocol import (
    Analysis,
    Analyze,
    AnalyzeGame,
    ErrorCode,
    GameAnalysis,
    ProtocolError,
    Request,
)

__all__ = [
    "AnalysisPanel",
    "Analyst",
    "GameAnalyst",
    "PositionNotes",
    "ServerAnalyst",
    "analysed",
    "judgement_lines",
    "notes_for",
]

SETTLE_SECONDS = 0.3  # on a position before the analyst is asked: stepping through asks nothing
# How long the panel keeps asking about a position while the analyst answers busy: the first
# analysis of a server starts its analyst's child process, which may take many seconds before
# its own 3 s of work on a loaded machine, and every position asked for meanwhile waits.
BUSY_SECONDS = 120.0
KEPT_ANALYSES = 500  # positions whose analysis is kept, so stepping back shows it at once
BAR_CELLS = 24  # the evaluation bar's width, in cells
# The games the server's engine judges (engine.judge): a game with neither notes nor these has
# no panel.
JUDGED_GAMES = frozenset({"amazons", "bao"})
# The refusals that mean "busy, ask again after retry_after".
BUSY = frozenset({ErrorCode.UNAVAILABLE, ErrorCode.RATE_LIMITED})


Reply = TypeVar("Reply", Analysis, GameAnalysis)


class Analyst(Protocol):
    """Whatever analyses positions: `analyze` answers the `analysis` event for position text
    `text` of `game`, or raises ProtocolError (`unavailable` with `retry_after` while busy)."""

    async def analyze(self, text: str, game: str) -> Analysis: ...


@runtime_checkable
class GameAnalyst(Protocol):
    """An analyst that knows the server's games: a position by game and ply (so that the server
    refuses a player their own live game, and says which ply it answers), and a finished
    game's review, whose progress comes to the screen as `ReviewProgress` changes."""

    async def analyze_ply(self, game_id: str, ply: int) -> Analysis: ...

    async def review(self, game_id: str) -> GameAnalysis: ...


class ServerAnalyst:
    """The server's analysis, asked through `request` (`ArenaApp.request` or an
    `ArenaClient`'s): a refusal becomes the ProtocolError an `Analyst` raises."""

    def __init__(self, request: Callable[[Request, type[Any]], Awaitable[Any]]) -> None:
        self._request = request

    async def analyze(self, text: str, game: str) -> Analysis:
        return await self._asked(Analyze(position=text, game=game), Analysis)

    async def analyze_ply(self, game_id: str, ply: int) -> Analysis:
        return await self._asked(Analyze(game_id=game_id, ply=ply), Analysis)

    async def review(self, game_id: str) -> GameAnalysis:
        return await self._asked(AnalyzeGame(game_id), GameAnalysis)

    async def _asked(self, request: Request, expect: type[Reply]) -> Reply:
        try:
            reply: Reply = await self._request(request, expect)
        except ArenaError as error:
            refusal = error.reply
            raise ProtocolError(
                error.code, refusal.message, retry_after=refusal.retry_after
            ) from None
        return reply


class PositionNotes(Protocol):
    """A game's notes on one position, worked out when made: `lines` says them, with the
    analyst's findings woven in once known."""

    def lines(self, analysis: Analysis | None) -> list[str]: ...


# A game's notes by game name, "module:class" (the class is made from a state), imported on
# first use: a new game adds its own here, as it adds its board in board.py.
_NOTES: dict[str, str] = {
    "amazons": "clients.tui.amazons_analysis:AmazonsNotes",
}


def analysed(game: str) -> bool:
    """Whether positions of `game` have any analysis: the game's notes or the server's
    judgement."""
    return game in _NOTES or game in JUDGED_GAMES


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


def judgement_lines(analysis: Analysis, game: str) -> list[str]:
    """The engine's judgement in a few lines: the chance in words and what it rests on, a bar
    of White's share, the best line, and the exact values (Amazons) or the server's note. None
    of it from a server before the judgement (no `white_wins`), but the note or line it has."""
    lines = []
    if analysis.white_wins is not None:
        words = chance_text(analysis.white_wins, analysis.exact)
        basis = basis_text(analysis)
        lines.append(f"{words}  ({basis})" if basis else words)
        white, black = evaluation_bar(analysis.white_wins, BAR_CELLS)
        lines.append(f"○ {'█' * white}{'░' * black} ●")
    if analysis.line:
        lines.append("Best line: " + " ".join(analysis.line))
    if analysis.exact and game == "amazons" and analysis.regions:
        lines.append(f"Exact: sum {analysis.sum}" + (f"; {analysis.note}" if analysis.note else ""))
    elif analysis.note:
        lines.append(analysis.note)
    return lines


class AnalysisPanel(VerticalScroll):
    """The analysis of the position shown, in a scrolling pane: the engine's judgement, the
    game's notes with the analyst's values, or a line saying why there are none (yet)."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()

    class Judged(Message):
        """The analysis of the position shown has come (None: a new position, none yet)."""

        def __init__(self, analysis: Analysis | None) -> None:
            super().__init__()
            self.analysis = analysis

    def __init__(
        self,
        game: str,
        analyst: Analyst | None,
        *,
        game_id: str | None = None,
        live: bool = False,
        ascii: bool = False,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`game_id`: the server's game whose positions are shown, asked about by ply when the
        analyst knows the server's games; `live`: the game is being played (asked at once,
        busy retried once). With `ascii` the marks are written in ASCII (`arena play
        --ascii`)."""
        super().__init__(id=id, classes=classes)
        self.game = game
        self.game_id = game_id
        self.live = live
        self.ascii = ascii
        self.analyst = analyst
        self.border_title = "Analysis"
        self._notes_of = notes_for(game)
        self._notes: PositionNotes | None = None
        self._shown = 0  # how many positions have been shown: a late answer's is older
        self._known: dict[str, Analysis] = {}
        self.analysis: Analysis | None = None  # of the position shown, once it has come
        # Held, not queried: an answer may come as the screen closes, with the text unmounted.
        self._text = Static(id="analysis-text", markup=False)

    def compose(self) -> ComposeResult:
        yield self._text

    @property
    def text(self) -> str:
        """What the panel says now, as plain text."""
        return str(self._text.content)

    def show(self, state: GameState[object] | None, ply: int | None = None) -> None:
        """Analyse `state` (None: show nothing), the position after `ply` moves of the game
        when known: the notes at once, the judgement and values when known."""
        self._shown += 1
        self.workers.cancel_group(self, "analysis")
        self.analysis = None
        self.post_message(self.Judged(None))
        if state is None:
            self._notes = None
            self._say([])
            return
        if self._notes_of is None and self.game not in JUDGED_GAMES:
            self._notes = None
            self._say([f"There is no analysis of {self.game} positions."])
            return
        self._notes = self._notes_of(state) if self._notes_of is not None else None
        text = state.text()
        known = self._known.get(text)
        if known is not None:
            self._answered(known)
        elif self.analyst is None:
            self._say([*self._noted(None), "", "No analyst: values not shown."])
        else:
            self._say(["Analysing...", "", *self._noted(None)])
            self._ask(text, ply, self._shown)

    def _noted(self, analysis: Analysis | None) -> list[str]:
        return self._notes.lines(analysis) if self._notes is not None else []

    def _answered(self, analysis: Analysis) -> None:
        self.analysis = analysis
        judged = judgement_lines(analysis, self.game)
        self._say([*judged, *([""] if judged else []), *self._noted(analysis)])
        self.post_message(self.Judged(analysis))

    def _say(self, lines: list[str]) -> None:
        text = "\n".join(lines).strip("\n")
        self._text.update(in_ascii(text) if self.ascii else text)

    @work(exclusive=True, group="analysis")
    async def _ask(self, text: str, ply: int | None, shown: int) -> None:
        """Ask the analyst about position `text` (after `ply` moves of the game), shown as
        number `shown`; say what comes of it unless another position is shown by then."""
        analyst = self.analyst
        assert analyst is not None
        if not self.live:
            await asyncio.sleep(SETTLE_SECONDS)
        where = None if self.game_id is None or ply is None else (self.game_id, ply)
        why = ""
        deadline = asyncio.get_running_loop().time() + BUSY_SECONDS
        tries = 2 if self.live else None  # a live game's next move comes soon
        while asyncio.get_running_loop().time() < deadline and tries != 0:
            tries = None if tries is None else tries - 1
            try:
                if where is not None and isinstance(analyst, GameAnalyst):
                    analysis = await analyst.analyze_ply(*where)
                else:
                    analysis = await analyst.analyze(text, self.game)
            except ProtocolError as error:
                if error.code not in BUSY or error.retry_after is None:
                    why = f"No analysis: {error}"
                    break
                why = f"No analysis: the analyst stayed busy ({error})"
                self._tell(shown, "analysis busy, retrying")
                await asyncio.sleep(error.retry_after)
            except ConnectionError as error:
                why = f"No analysis: {error}"
                break
            except RuntimeError as error:
                # The analyst's child process died (BrokenProcessPool is a RuntimeError).
                why = f"No analysis: the analyst stopped ({error})"
                break
            else:
                if analysis.ply is not None and ply is not None and analysis.ply != ply:
                    return  # about another position than the one asked: not this one's
                if len(self._known) >= KEPT_ANALYSES:
                    self._known.clear()
                self._known[text] = analysis
                if shown == self._shown:
                    self._answered(analysis)
                return
        self._tell(shown, why)

    def _tell(self, shown: int, line: str) -> None:
        """`line` over the notes, if position number `shown` is still shown."""
        if shown == self._shown:
            self._say([line, "", *self._noted(None)])
