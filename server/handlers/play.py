"""Games in play: moves, resigning, aborting and claiming (each committed while the
connection holds the game's published frames, see `Session.act`), watching and catching up.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

from server.clock import now_ms
from server.games import GameStore, StoredGame, channel
from server.metrics import ServerMetrics
from server.protocol import (
    Abort,
    ClaimVictory,
    ErrorCode,
    Event,
    GameEvent,
    GameStatus,
    Ok,
    Player,
    PlayMove,
    ProtocolError,
    Resign,
    Resync,
    Synced,
    Unwatch,
    Watch,
)

from .route import Route, on

__all__ = ["ROUTES", "PlayConnection", "PlayServices"]


@dataclass(frozen=True)
class PlayServices:
    """What games in play use."""

    store: GameStore
    metrics: ServerMetrics  # the time each move takes


class PlayConnection(Protocol):
    """The connection as games in play see it."""

    versions: dict[str, int]  # game id -> last event version sent
    tails: dict[str, bytes | GameEvent]  # game id -> that event as logged, when known
    watching: set[str]  # games this connection watches as a spectator

    def me(self) -> Player: ...

    def reply(self, event: Event) -> None: ...

    def push(self, frame: bytes) -> None: ...

    def lag_ms(self) -> int: ...

    async def follow(self, name: str) -> None: ...

    async def unfollow(self, name: str) -> None: ...

    async def send_state(self, game: StoredGame, request_id: int | None = None) -> None: ...

    async def act(
        self, request: PlayMove | Resign | Abort | ClaimVictory, action: Awaitable[list[GameEvent]]
    ) -> None: ...


async def watch(services: PlayServices, connection: PlayConnection, request: Watch) -> None:
    """Follow a game and send its state: a live one or one ended (from Redis in its window
    after the end, then from the history store). A spectator of a live game is counted."""
    game = await services.store.load(request.game_id)
    await connection.follow(channel(game.game_id))
    if game.colour_of(connection.me().name) is None and game.game_id not in connection.watching:
        connection.watching.add(game.game_id)
        if game.status is GameStatus.PLAYING:
            await services.store.count_spectator(game.game_id, +1)
    if game.status is GameStatus.PLAYING:
        game = await services.store.load(request.game_id)  # as it is now that it is followed
    await connection.send_state(game, request.id)


async def unwatch(services: PlayServices, connection: PlayConnection, request: Unwatch) -> None:
    if request.game_id not in connection.watching:
        raise ProtocolError(ErrorCode.NOT_FOUND, f"not watching game {request.game_id}")
    connection.watching.discard(request.game_id)
    await services.store.count_spectator(request.game_id, -1)
    await connection.unfollow(channel(request.game_id))
    connection.reply(Ok(id=request.id))


async def move(services: PlayServices, connection: PlayConnection, request: PlayMove) -> None:
    store, name = services.store, connection.me().name
    started = time.perf_counter()
    await connection.act(
        request,
        store.play(request.game_id, name, request.ply, request.move, now_ms(), connection.lag_ms()),
    )
    services.metrics.moved(time.perf_counter() - started)


async def resign(services: PlayServices, connection: PlayConnection, request: Resign) -> None:
    await connection.act(
        request, services.store.resign(request.game_id, connection.me().name, now_ms())
    )


async def abort(services: PlayServices, connection: PlayConnection, request: Abort) -> None:
    await connection.act(
        request, services.store.abort(request.game_id, connection.me().name, now_ms())
    )


async def claim(services: PlayServices, connection: PlayConnection, request: ClaimVictory) -> None:
    await connection.act(
        request, services.store.claim(request.game_id, connection.me().name, now_ms())
    )


async def resync(services: PlayServices, connection: PlayConnection, request: Resync) -> None:
    """Replay what the client misses after its version; a version past the game's (which
    the client has only if the store lost events it was sent, in a failover) gets the game's
    state under a new epoch instead, then anything newer."""
    game_id = request.game_id
    game = await services.store.load(game_id)
    await connection.follow(channel(game_id))
    ahead = request.version > game.version
    logged = None
    if ahead:
        game, logged = await services.store.rebase(game_id, now_ms())
        if logged is None:
            connection.push(game.snapshot(now_ms()).to_wire())
        elif connection.tails.get(game_id) != logged:  # not passed on from the channel yet
            connection.push(logged)
    since = game.version if ahead else request.version
    frames = await services.store.events_since(game_id, since)
    if not ahead and since + len(frames) < game.version:
        # The log is gone with the game's window in Redis (it was read from the history).
        ahead, since, frames = True, game.version, []
        connection.push(game.snapshot(now_ms()).to_wire())
    for frame in frames:
        connection.push(frame)
    last = since + len(frames)
    # After a state the client knows exactly `last`; after a replay, perhaps more already.
    if ahead or last > connection.versions.get(game_id, 0):
        connection.versions[game_id] = last
        tail = frames[-1] if frames else logged
        if tail is None:
            connection.tails.pop(game_id, None)
        else:
            connection.tails[game_id] = tail
    connection.reply(Synced(game_id, last, id=request.id))


ROUTES: tuple[Route[PlayServices, PlayConnection], ...] = (
    on(Watch, watch),
    on(Unwatch, unwatch),
    on(PlayMove, move),
    on(Resign, resign),
    on(Abort, abort),
    on(ClaimVictory, claim),
    on(Resync, resync),
)
