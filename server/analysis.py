"""The engine's judgement of a position (`engine.judge`) as the protocol's `analysis` event,
and an `Analyst` that judges positions in a child process of its own, one at a time, for a
program with no workers (`arena review FILE`). A server's analyses come from the workers
instead (`server.analysis_queue`).
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from typing import Any

from engine.errors import NotationError
from engine.game import get_game
from engine.judge import Judgement, judge
from server.protocol import (
    DEFAULT_GAME,
    Analysis,
    Colour,
    ErrorCode,
    ProtocolError,
    RegionValue,
)
from server.protocol.limits import MAX_LINE, MAX_LISTED, MAX_MESSAGE_LENGTH, MAX_VALUE_LENGTH
from server.readiness import children_leave_interrupts

__all__ = [
    "JUDGED_GAMES",
    "Analyst",
    "analysis_event",
    "judgement_from_json",
    "permille",
    "position_text",
]

JUDGED_GAMES = ("amazons", "bao")  # the games engine.judge judges


def position_text(game: str, text: str) -> str:
    """The position `text` of `game` as the engine writes it; a `bad_field` naming what is
    wrong when the game is unknown or the position unreadable, `unavailable` for a game the
    engine does not judge."""
    try:
        rules = get_game(game)
    except NotationError as error:
        raise ProtocolError(ErrorCode.BAD_FIELD, str(error), field="game") from None
    if game not in JUDGED_GAMES:
        raise ProtocolError(
            ErrorCode.UNAVAILABLE,
            f"analysis covers {' and '.join(JUDGED_GAMES)}; there is none for {game}",
        )
    try:
        return rules.parse_state(text).text()
    except NotationError as error:
        raise ProtocolError(ErrorCode.BAD_FIELD, str(error), field="position") from None


def permille(chance: float) -> int:
    """A chance from 0 to 1 in whole thousandths."""
    return min(1000, max(0, round(chance * 1000)))


def judgement_from_json(data: dict[str, Any]) -> Judgement:
    """A judgement back from `dataclasses.asdict`'s map (as JSON keeps it)."""
    return Judgement(**{**data, "line": tuple(data["line"])})


def _text(value: object) -> str:
    text = str(value)
    return text if 0 < len(text) <= MAX_VALUE_LENGTH else "?"


def _colour(name: object) -> Colour | None:
    return None if name is None else Colour(str(name))


def analysis_event(
    judgement: Judgement, game_id: str | None = None, ply: int | None = None
) -> Analysis:
    """The `analysis` event of `judgement`, about `ply` of game `game_id` when asked so."""
    data: dict[str, Any] = judgement.regions or {}
    regions = data.get("regions", [])
    best = data.get("best_moves")
    winner = data.get("winner", {})
    return Analysis(
        judgement.position,
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
            for r in regions
        ),
        _text(data["sum"]["value"]) if "sum" in data else "?",
        black_first=_colour(winner.get("black_to_move")),
        white_first=_colour(winner.get("white_to_move")),
        best_moves=None if best is None else tuple(best[:MAX_LISTED]),
        game_id=game_id,
        ply=ply,
        game=judgement.game,
        white_wins=permille(judgement.white_wins),
        line=judgement.line[:MAX_LINE],
        depth=judgement.depth,
        playouts=judgement.playouts,
        exact=judgement.exact,
        note=judgement.note[:MAX_MESSAGE_LENGTH] or None,
    )


def _judge(game: str, text: str) -> dict[str, Any]:
    return asdict(judge(game, text))


class Analyst:
    """The child process that judges positions for one program with no workers."""

    def __init__(self) -> None:
        # Spawned, not forked: the parent may hold sockets and an event loop.
        self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        self._busy = asyncio.Lock()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def analyze(self, text: str, game: str = DEFAULT_GAME) -> Analysis:
        """The analysis of position `text` of `game`; refused for an unknown game, a bad
        position, or while the engine is busy."""
        text = position_text(game, text)
        if self._busy.locked():
            raise ProtocolError(
                ErrorCode.UNAVAILABLE, "the analysis engine is busy; try again", retry_after=1
            )
        async with self._busy:
            loop = asyncio.get_running_loop()
            with children_leave_interrupts():  # the child starts on the first request
                future = loop.run_in_executor(self._pool, _judge, game, text)
            data = await future
        return analysis_event(judgement_from_json(data))
