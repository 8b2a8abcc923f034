"""The request handlers by area (account, bots, lobby, play, analysis, ladder, players) and the
typed table a connection dispatches on: each request type that reaches a session has exactly one
handler, checked when this package is imported, and each area's handlers see only that area's
services and their view of the connection.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from server.protocol import REQUESTS, Hello, Ping, Request

from . import account, analysis, bots, ladder, lobby, play, players
from .account import AccountConnection, AccountServices
from .analysis import AnalysisConnection, AnalysisServices
from .bots import BotsConnection, BotsServices
from .ladder import LadderConnection, LadderServices
from .lobby import LobbyConnection, LobbyServices, Matchmaker
from .play import PlayConnection, PlayServices
from .players import PlayersConnection, PlayersServices
from .route import Route, bind, check

__all__ = [
    "ANSWERED_BY_PROTOCOL",
    "ROUTES",
    "AccountServices",
    "AnalysisServices",
    "BotsServices",
    "Connection",
    "Dispatch",
    "Handler",
    "LadderServices",
    "LobbyServices",
    "Matchmaker",
    "PlayServices",
    "PlayersServices",
    "dispatch",
]

# Requests the protocol's ServerConnection answers itself; a session never sees them.
ANSWERED_BY_PROTOCOL: tuple[type[Request], ...] = (Hello, Ping)


class Connection(
    AccountConnection,
    LobbyConnection,
    PlayConnection,
    AnalysisConnection,
    LadderConnection,
    PlayersConnection,
    BotsConnection,
    Protocol,
):
    """Everything a handler of any area may see of a connection (what a session offers)."""


Handler = Callable[[Connection, Request], Awaitable[None]]
Dispatch = Mapping[type[Request], Handler]

ROUTES: tuple[Route[Any, Any], ...] = (
    *account.ROUTES,
    *lobby.ROUTES,
    *play.ROUTES,
    *analysis.ROUTES,
    *ladder.ROUTES,
    *players.ROUTES,
    *bots.ROUTES,
)
check(ROUTES, (kind for kind in REQUESTS.values() if kind not in ANSWERED_BY_PROTOCOL))


def dispatch(
    account_services: AccountServices,
    lobby_services: LobbyServices,
    play_services: PlayServices,
    analysis_services: AnalysisServices,
    ladder_services: LadderServices,
    players_services: PlayersServices,
    bots_services: BotsServices,
) -> Dispatch:
    """The handler of every request type a session passes on, bound to its area's services."""
    table: dict[type[Request], Handler] = {}
    table.update(bind(account.ROUTES, account_services))
    table.update(bind(lobby.ROUTES, lobby_services))
    table.update(bind(play.ROUTES, play_services))
    table.update(bind(analysis.ROUTES, analysis_services))
    table.update(bind(ladder.ROUTES, ladder_services))
    table.update(bind(players.ROUTES, players_services))
    table.update(bind(bots.ROUTES, bots_services))
    return table
