"""The bot ladders: a bot joins a ladder for as long as its connection lasts, and leaves it;
anyone may ask for a ladder's standings. The games come from the scheduler
(server.ladder.scheduler), as `game_started`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from server.clock import now_ms
from server.ladder.store import Ladder, LadderError, LadderStore
from server.offers import Offered
from server.protocol import (
    ErrorCode,
    Event,
    JoinLadder,
    LadderMembership,
    LadderStandings,
    LeaveLadder,
    Player,
    PlayerKind,
    ProtocolError,
)

from .route import Route, on

__all__ = ["ROUTES", "LadderConnection", "LadderServices"]


@dataclass(frozen=True)
class LadderServices:
    """What the ladder's requests use."""

    ladders: LadderStore
    offered: Offered  # a ladder whose games this server does not offer cannot be joined here


class LadderConnection(Protocol):
    """The connection as the ladders see it."""

    ladders: dict[str, int]  # the ladders joined on this connection -> games at once
    connection_id: str

    def me(self) -> Player: ...

    def reply(self, event: Event) -> None: ...


async def _ladder(services: LadderServices, name: str) -> Ladder:
    try:
        return await services.ladders.get(name)
    except LadderError as error:
        raise ProtocolError(ErrorCode.NOT_FOUND, str(error)) from None


async def join_ladder(
    services: LadderServices, connection: LadderConnection, request: JoinLadder
) -> None:
    me = connection.me()
    if me.kind is not PlayerKind.BOT:
        raise ProtocolError(ErrorCode.FORBIDDEN, "only bot accounts play on ladders")
    ladder = await _ladder(services, request.ladder)
    refusal = ladder.refusal(services.offered)
    if refusal is not None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, f"this server does not play {refusal}")
    before = connection.ladders.get(ladder.name)
    await services.ladders.join(
        ladder.name, me.name, request.games, now_ms(), connection.connection_id, request.engine
    )
    connection.ladders[ladder.name] = request.games
    changed = before != request.games
    connection.reply(_membership(ladder, request.games, changed, request.id))


async def leave_ladder(
    services: LadderServices, connection: LadderConnection, request: LeaveLadder
) -> None:
    ladder = await _ladder(services, request.ladder)
    joined = connection.ladders.pop(ladder.name, None) is not None
    left = await services.ladders.leave(ladder.name, connection.me().name)
    connection.reply(_membership(ladder, 0, joined or left, request.id))


def _membership(ladder: Ladder, games: int, changed: bool, id: int | None) -> LadderMembership:
    """The reply to a join (`games` > 0) or a leave (0), with the ladder's terms."""
    return LadderMembership(
        ladder.name, games > 0, games, changed, ladder.game, ladder.setup, ladder.time, id=id
    )


async def ladder_standings(
    services: LadderServices, connection: LadderConnection, request: LadderStandings
) -> None:
    try:
        table = await services.ladders.table(request.ladder, now_ms())
    except LadderError as error:
        raise ProtocolError(ErrorCode.NOT_FOUND, str(error)) from None
    connection.reply(table.to_wire(request.id))


ROUTES: tuple[Route[LadderServices, LadderConnection], ...] = (
    on(JoinLadder, join_ladder),
    on(LeaveLadder, leave_ladder),
    on(LadderStandings, ladder_standings),
)
