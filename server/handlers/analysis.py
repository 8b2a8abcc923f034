"""Analysis on request: the combinatorial value of a position given as text, or of a game's
position after some ply, from the process's analyst; never of a player's own game while it
is played.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from server.analysis import Analyst
from server.games import GameStore
from server.protocol import (
    DEFAULT_GAME,
    Analyze,
    ErrorCode,
    Event,
    GameStatus,
    Player,
    ProtocolError,
)

from .route import Route, on

__all__ = ["ROUTES", "AnalysisConnection", "AnalysisServices"]


@dataclass(frozen=True)
class AnalysisServices:
    """What analysis uses."""

    store: GameStore  # the games whose positions are asked about
    analyst: Analyst


class AnalysisConnection(Protocol):
    """The connection as analysis sees it."""

    def me(self) -> Player: ...

    def reply(self, event: Event) -> None: ...


async def analyze(
    services: AnalysisServices, connection: AnalysisConnection, request: Analyze
) -> None:
    if (request.position is None) == (request.game_id is None):
        raise ProtocolError(
            ErrorCode.BAD_FIELD, "analyze takes either position or game_id", field="position"
        )
    if request.position is not None:
        text, game_name = request.position, DEFAULT_GAME
    else:
        assert request.game_id is not None
        game = await services.store.load(request.game_id)
        if game.status is GameStatus.PLAYING and game.colour_of(connection.me().name):
            # Players get no engine help in their own game while it is played.
            raise ProtocolError(
                ErrorCode.FORBIDDEN,
                f"no analysis of your own game {game.game_id} while it is played",
            )
        ply = game.ply if request.ply is None else request.ply
        if ply > game.ply:
            raise ProtocolError(
                ErrorCode.BAD_FIELD,
                f"ply {ply} is past the end of game {game.game_id} ({game.ply} moves)",
                field="ply",
            )
        text, game_name = game.state_at(ply).text(), game.game
    analysis = await services.analyst.analyze(text, game_name)
    connection.reply(replace(analysis, id=request.id))


ROUTES: tuple[Route[AnalysisServices, AnalysisConnection], ...] = (on(Analyze, analyze),)
