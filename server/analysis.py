"""Analysis for players and spectators: the combinatorial value of every region of a position,
their sum, who wins and the winning moves. The engine works in a child process, one request at
a time per server process and within a time limit, so the event loop never waits for it.
Analysis covers Amazons only: a position of another game is refused.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engine.errors import NotationError
from engine.game import get_game
from server.protocol import Analysis, Colour, ErrorCode, ProtocolError, RegionValue
from server.protocol.limits import MAX_VALUE_LENGTH
from server.readiness import children_leave_interrupts

__all__ = ["ANALYSED_GAME", "ANALYSIS_SECONDS", "Analyst"]

ANALYSIS_SECONDS = 3.0  # the engine's time for one request; regions not solved by then are "?"
ANALYSED_GAME = "amazons"  # the one game the combinatorial analysis knows


def _analyze(text: str, seconds: float) -> dict[str, Any]:
    from engine.cgt.analysis import analyze

    position: Any = get_game(ANALYSED_GAME).parse_state(text)
    return analyze(position, seconds=seconds).as_dict()


def _text(value: object) -> str:
    text = str(value)
    return text if 0 < len(text) <= MAX_VALUE_LENGTH else "?"


def _colour(name: object) -> Colour | None:
    return None if name is None else Colour(str(name))


class Analyst:
    """The child process that analyses positions for one server process."""

    def __init__(self, seconds: float = ANALYSIS_SECONDS) -> None:
        self.seconds = seconds
        # Spawned, not forked: the server process holds sockets and an event loop.
        self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        self._busy = asyncio.Lock()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def analyze(self, text: str, game: str = ANALYSED_GAME) -> Analysis:
        """The analysis of position `text` of `game`; refused for a game other than Amazons,
        a bad position, or while the engine is busy."""
        if game != ANALYSED_GAME:
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                f"analysis covers Amazons only; there is none for {game}",
            )
        try:
            position = get_game(ANALYSED_GAME).parse_state(text)
        except NotationError as error:
            raise ProtocolError(ErrorCode.BAD_FIELD, str(error), field="position") from None
        if self._busy.locked():
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the analysis engine is busy; try again", retry_after=1
            )
        async with self._busy:
            loop = asyncio.get_running_loop()
            with children_leave_interrupts():  # the child starts on the first request
                future = loop.run_in_executor(self._pool, _analyze, position.text(), self.seconds)
            data = await future
        best = data["best_moves"]
        return Analysis(
            position.text(),
            tuple(
                RegionValue(
                    str(r["kind"]),
                    int(r["squares"]),
                    int(r["white"]),
                    int(r["black"]),
                    _text(r["value"]),
                    _text(r["mean"]),
                    _text(r["temperature"]),
                )
                for r in data["regions"]
            ),
            _text(data["sum"]["value"]),
            black_first=_colour(data["winner"]["black_to_move"]),
            white_first=_colour(data["winner"]["white_to_move"]),
            best_moves=None if best is None else tuple(best[:500]),
        )
