"""A house bot's time waiting in the workers' queue is the server's, not the bot's: when a
worker takes a move request that waited, the house bot's turn is counted from then (its clock,
or its first-move window, given back what the request waited, with the game's `clock` event),
once a turn. docs/ladder.md ("Workers") says how the workers are shared so that requests seldom
wait at all.
"""

from __future__ import annotations

from dataclasses import replace

from server.games import GameStore, StoredGame
from server.protocol import ClockUpdate, GameStatus

__all__ = ["TAKEN", "WAIT_MS", "take_turn"]

# A request taken sooner than this after it was asked has not waited: the worker was free.
WAIT_MS = 100
# The game's `extra` entry naming the request that took the house bot's turn: [ply, request id].
TAKEN = "house_turn_taken"


async def take_turn(
    store: GameStore, game: StoredGame, request: str, now: int
) -> StoredGame | None:
    """Take the house bot's turn in `game` (its side to move, at `game.ply`) for the move
    request of stream id `request`, at server time `now` in ms: the game to think on, its clock
    given back what the request waited since it was asked or the turn began, whichever was
    later, when that is WAIT_MS or more. None when another request has taken this turn (the
    copy that a commit changing the clock asks again for: this one's, or an outage's)."""
    ply = game.ply
    for _ in range(store.ATTEMPTS):
        taken = game.extra.get(TAKEN)
        if taken is not None and taken[0] == game.ply:
            # A request retried (its worker died) goes on from the clock as it was given back.
            return game if taken[1] == request else None
        asked = int(request.partition("-")[0])  # a stream id starts with its ms
        waited = now - max(asked, game.clock.turn_start)
        if waited < WAIT_MS or game.status is not GameStatus.PLAYING:
            return game
        given = replace(
            game,
            clock=game.clock.delayed(waited),
            version=game.version + 1,
            extra={**game.extra, TAKEN: [game.ply, request]},
        )
        event = ClockUpdate(game.game_id, given.version, clocks=given.clocks(now))
        if await store.storage.commit(game.version, given, [event]):
            return given
        game = await store.load(game.game_id)  # changed meanwhile: look again
        if game.status is not GameStatus.PLAYING or game.ply != ply:
            return None
    return game
