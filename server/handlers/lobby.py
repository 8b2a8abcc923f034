"""The lobby: what is offered, seeks, challenges (to users and to house bots), the
quick-pairing pools and the list of live games. A game started here is followed by the
connection that started it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn, Protocol

import redis.asyncio as aioredis

from server import identity
from server.clock import now_ms
from server.games import GameStore
from server.hub import LOBBY
from server.ladder.scheduler import GameStarter
from server.lobby import MAX_SEEKS, Lobby
from server.offers import Offered
from server.protocol import (
    AcceptChallenge,
    AcceptSeek,
    CancelChallenge,
    CancelQuickPair,
    CancelSeek,
    Challenge,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    DeclineChallenge,
    ErrorCode,
    Event,
    GameEvent,
    GameList,
    ListGames,
    ListOffers,
    ListSeeks,
    OfferList,
    Offers,
    Ok,
    Player,
    PlayerKind,
    ProtocolError,
    QuickPair,
    Request,
    Seek,
    SeekAdded,
    SeekList,
    SeekRemoved,
    TimeControl,
)
from server.readiness import house_bots, want

from .route import Route, on

__all__ = ["ROUTES", "LobbyConnection", "LobbyServices", "Matchmaker"]

# When a challenge to a house bot still being prepared is to ask again: it may be ready any
# second, and a client shows the wait meanwhile.
PREPARING_RETRY_SECONDS = 2


class Matchmaker(GameStarter, Protocol):
    """What starts games between players, as the ladders' scheduler does, and more (the server
    process: server.app's Arena)."""

    def new_id(self) -> str: ...

    def house_bot(self, name: str) -> Player | None: ...

    def house_spec(self, name: str, strength: int | None) -> str: ...

    def wake_pairing(self) -> None: ...


@dataclass(frozen=True)
class LobbyServices:
    """What the lobby's requests use."""

    lobby: Lobby
    store: GameStore  # the live games
    redis: aioredis.Redis  # guests to challenge (server.identity), workers ready
    offered: Offered  # game by game: setups, time controls, house bots
    offers: Offers  # what `welcome` shows, which `list_offers` completes
    matchmaker: Matchmaker


class LobbyConnection(Protocol):
    """The connection as the lobby sees it."""

    seek_ids: set[str]  # this connection's open seeks

    def me(self) -> Player: ...

    def reply(self, event: Event) -> None: ...

    async def follow(self, name: str) -> None: ...

    async def started(self, started: GameEvent, request: Request) -> None: ...


def _check_terms(
    services: LobbyServices,
    connection: LobbyConnection,
    game: str,
    setup: str | None,
    time: TimeControl,
    rated: bool,
) -> str:
    """The setup to play (the game's default when none is named), once the game, setup and
    time control are found offered and a guest asks for no rated game."""
    chosen = services.offered.terms(game).check(setup, time)
    if rated and connection.me().kind is PlayerKind.GUEST:
        raise ProtocolError(ErrorCode.FORBIDDEN, "guests play casual games only")
    return chosen


async def list_offers(
    services: LobbyServices, connection: LobbyConnection, request: ListOffers
) -> None:
    offers = services.offered.every_game_offers(services.offers)
    connection.reply(OfferList(offers, id=request.id))


async def seek(services: LobbyServices, connection: LobbyConnection, request: Seek) -> None:
    setup = _check_terms(
        services, connection, request.game, request.setup, request.time, request.rated
    )
    # Seeks taken by others or expired no longer count.
    connection.seek_ids = await services.lobby.open_seeks(connection.seek_ids)
    if len(connection.seek_ids) >= MAX_SEEKS:
        raise ProtocolError(ErrorCode.CONFLICT, f"at most {MAX_SEEKS} open seeks at a time")
    seek = await services.lobby.add_seek(
        connection.me(),
        game=request.game,
        setup=setup,
        time=request.time,
        rated=request.rated,
        colour=request.colour,
        now=now_ms(),
    )
    connection.seek_ids.add(seek.seek_id)
    connection.reply(SeekAdded(seek, id=request.id))


async def cancel_seek(
    services: LobbyServices, connection: LobbyConnection, request: CancelSeek
) -> None:
    seek = await services.lobby.peek_seek(request.seek_id, now_ms())
    if seek is None:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no open seek {request.seek_id}")
    if seek.player.name != connection.me().name:
        raise ProtocolError(ErrorCode.FORBIDDEN, "that seek is not yours")
    await services.lobby.take_seek(request.seek_id)
    connection.seek_ids.discard(request.seek_id)
    connection.reply(SeekRemoved(request.seek_id, id=request.id))


async def list_seeks(
    services: LobbyServices, connection: LobbyConnection, request: ListSeeks
) -> None:
    await connection.follow(LOBBY)
    seeks = await services.lobby.seeks(now_ms())
    connection.reply(SeekList(tuple(seeks[:500]), id=request.id))


async def accept_seek(
    services: LobbyServices, connection: LobbyConnection, request: AcceptSeek
) -> None:
    me, lobby = connection.me(), services.lobby
    seek = await lobby.peek_seek(request.seek_id, now_ms())
    if seek is None:
        await _seek_gone(services, request.seek_id)
    if seek.player.name == me.name:
        raise ProtocolError(ErrorCode.FORBIDDEN, "you cannot accept your own seek")
    if seek.rated and me.kind is PlayerKind.GUEST:
        raise ProtocolError(ErrorCode.FORBIDDEN, "guests play casual games only")
    if await lobby.take_seek(request.seek_id, taker=me.name) is None:
        await _seek_gone(services, request.seek_id)
    started = await services.matchmaker.start_game(
        seek.player,
        me,
        seek.colour,
        game=seek.game,
        setup=seek.setup,
        time=seek.time,
        rated=seek.rated,
    )
    await connection.started(started, request)


async def _seek_gone(services: LobbyServices, seek_id: str) -> NoReturn:
    """Refuse a seek that is not open: `conflict` if someone accepted it, else
    `not_found` (never made, cancelled, or lapsed)."""
    if await services.lobby.taker(seek_id) is not None:
        raise ProtocolError(ErrorCode.CONFLICT, f"seek {seek_id} was already taken")
    raise ProtocolError(ErrorCode.NOT_FOUND, f"no open seek {seek_id}")


async def challenge(
    services: LobbyServices, connection: LobbyConnection, request: Challenge
) -> None:
    me = connection.me()
    setup = _check_terms(
        services, connection, request.game, request.setup, request.time, request.rated
    )
    house = services.matchmaker.house_bot(request.opponent)
    if house is not None:
        services.offered.terms(request.game).check_house_bot(house.name)
        await _house_bot_ready(services, house.name)
        started = await services.matchmaker.start_game(
            me,
            house,
            request.colour,
            game=request.game,
            setup=setup,
            time=request.time,
            rated=request.rated,
            house_spec=services.matchmaker.house_spec(request.opponent, request.strength),
        )
        await connection.started(started, request)
        return
    if request.strength is not None:
        raise ProtocolError(
            ErrorCode.BAD_FIELD, "strength is for house bots only", field="strength"
        )
    account = await identity.find(services.redis, services.store.database, request.opponent)
    if account is None:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no user or house bot {request.opponent}")
    if account.name.lower() == me.name.lower():
        raise ProtocolError(ErrorCode.FORBIDDEN, "you cannot challenge yourself")
    opponent = Player(account.name, PlayerKind(account.kind), account.rating)
    if request.rated and opponent.kind is PlayerKind.GUEST:
        raise ProtocolError(ErrorCode.FORBIDDEN, "guests play casual games only")
    info = ChallengeInfo(
        services.matchmaker.new_id(),
        me,
        opponent,
        setup,
        request.time,
        request.rated,
        request.colour,
        request.game,
    )
    info = await services.lobby.add_challenge(info)
    connection.reply(ChallengeAdded(info, id=request.id))


async def _house_bot_ready(services: LobbyServices, bot: str) -> None:
    """Refuse, with `unavailable` and when to ask again, a house bot no worker plays yet: one
    still being prepared (compiled after an install), or none running."""
    bots = await house_bots(services.redis, now_ms())
    if bot in bots.ready:
        return
    if bot in bots.preparing:
        await want(services.redis, bot, now_ms())
        total = len(bots.ready) + len(bots.preparing)
        raise ProtocolError(
            ErrorCode.UNAVAILABLE,
            f"{bot} is still being prepared ({len(bots.ready)} of {total} house bots ready)",
            retry_after=PREPARING_RETRY_SECONDS,
        )
    raise ProtocolError(
        ErrorCode.UNAVAILABLE,
        "no house-bot worker is ready (one may still be starting); try again soon",
        retry_after=10,
    )


async def accept_challenge(
    services: LobbyServices, connection: LobbyConnection, request: AcceptChallenge
) -> None:
    lobby = services.lobby
    info = await lobby.challenge(request.challenge_id)
    if info.opponent.name.lower() != connection.me().name.lower():
        raise ProtocolError(ErrorCode.FORBIDDEN, "that challenge is not addressed to you")
    if (
        await lobby.close_challenge(
            request.challenge_id, ChallengeOutcome.ACCEPTED, by=connection.me().name
        )
        is None
    ):
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no open challenge {request.challenge_id}")
    started = await services.matchmaker.start_game(
        info.challenger,
        connection.me(),
        info.colour,
        game=info.game,
        setup=info.setup,
        time=info.time,
        rated=info.rated,
    )
    await connection.started(started, request)


async def decline_challenge(
    services: LobbyServices, connection: LobbyConnection, request: DeclineChallenge
) -> None:
    await _close_challenge(
        services,
        connection,
        request.challenge_id,
        ChallengeOutcome.DECLINED,
        request,
        request.reason,
    )


async def cancel_challenge(
    services: LobbyServices, connection: LobbyConnection, request: CancelChallenge
) -> None:
    await _close_challenge(
        services, connection, request.challenge_id, ChallengeOutcome.CANCELLED, request
    )


async def _close_challenge(
    services: LobbyServices,
    connection: LobbyConnection,
    challenge_id: str,
    outcome: ChallengeOutcome,
    request: Request,
    reason: str | None = None,
) -> None:
    lobby = services.lobby
    info = await lobby.challenge(challenge_id)
    mine = info.challenger if outcome is ChallengeOutcome.CANCELLED else info.opponent
    if mine.name.lower() != connection.me().name.lower():
        whose = "yours" if outcome is ChallengeOutcome.CANCELLED else "addressed to you"
        raise ProtocolError(ErrorCode.FORBIDDEN, f"that challenge is not {whose}")
    closed = await lobby.close_challenge(
        challenge_id, outcome, by=connection.me().name, reason=reason
    )
    if closed is None:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no open challenge {challenge_id}")
    connection.reply(ChallengeRemoved(challenge_id, outcome, reason, id=request.id))


async def quick_pair(
    services: LobbyServices, connection: LobbyConnection, request: QuickPair
) -> None:
    setup = _check_terms(
        services, connection, request.game, request.setup, request.time, request.rated
    )
    await services.lobby.join_pool(
        connection.me(), request.game, setup, request.time, request.rated, now_ms()
    )
    connection.reply(Ok(id=request.id))
    services.matchmaker.wake_pairing()


async def cancel_quick_pair(
    services: LobbyServices, connection: LobbyConnection, request: CancelQuickPair
) -> None:
    if not await services.lobby.leave_pools(connection.me().name):
        raise ProtocolError(ErrorCode.NOT_FOUND, "not waiting for quick pairing")
    connection.reply(Ok(id=request.id))


async def list_games(
    services: LobbyServices, connection: LobbyConnection, request: ListGames
) -> None:
    games = await services.store.live_games(now_ms())
    connection.reply(GameList(tuple(games[:500]), id=request.id))


ROUTES: tuple[Route[LobbyServices, LobbyConnection], ...] = (
    on(Seek, seek),
    on(CancelSeek, cancel_seek),
    on(ListSeeks, list_seeks),
    on(AcceptSeek, accept_seek),
    on(Challenge, challenge),
    on(AcceptChallenge, accept_challenge),
    on(DeclineChallenge, decline_challenge),
    on(CancelChallenge, cancel_challenge),
    on(QuickPair, quick_pair),
    on(CancelQuickPair, cancel_quick_pair),
    on(ListOffers, list_offers),
    on(ListGames, list_games),
)
