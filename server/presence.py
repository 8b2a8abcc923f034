"""Who is at a live game: each connection of a player attends the game until it leaves or its
process stops renewing it, and the game hears `presence` when a player's last connection goes
(the opponent may claim after a grace period) or the first comes back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import redis.asyncio as aioredis

from server import referee
from server.game_index import GameIndex
from server.protocol import Colour, GameEvent, GameStatus
from server.storage import online_key
from server.stored_game import StoredGame

__all__ = ["Attendance"]

# Renews a connection's attendance only while it is there: an attendance that lapsed stays
# lapsed, and a game that ended (its commit deletes the hash) is not given one again.
RENEW = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
"""

# Attendances renewed, or games' attendances read, in one pipeline (see `keep_attending`).
BATCH = 256

Load = Callable[[str], Awaitable[StoredGame]]
Commit = Callable[[int, StoredGame, Sequence[GameEvent], int], Awaitable[bool]]


class Attendance:
    """The connections attending the live games of one Redis: a hash per game of
    `colour:connection` -> server ms when the attendance lapses."""

    # Attempts at a commit: each retry means another process changed the game meanwhile.
    ATTEMPTS = 8

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        load: Load,
        commit: Commit,
        attendance_ms: int,
        claim_grace_ms: int,
    ) -> None:
        self.redis = redis
        self._load = load
        self._commit = commit
        self.attendance_ms = attendance_ms
        self.claim_grace_ms = claim_grace_ms

    async def attend(
        self, game_id: str, colour: Colour, connection: str, *, present: bool, now: int
    ) -> None:
        """Record a connection of the player of `colour` coming or going; the game hears
        `presence` when the player's last connection goes or the first comes back. Each
        connection's attendance lapses unless its process renews it (`keep_attending`), so the
        connections of a process that died stop counting."""
        key = online_key(game_id)
        field = f"{colour}:{connection}"
        if present:
            await self.redis.hset(key, field, now + self.attendance_ms)
        else:
            await self.redis.hdel(key, field)
        online = any(
            name.startswith(f"{colour}:") and until > now
            for name, until in (await self._attendance(game_id)).items()
        )
        await self._presence(game_id, colour, online=online, now=now)

    async def keep_attending(self, entries: Sequence[tuple[str, Colour, str]], now: int) -> None:
        """Renew the attendance of this process's connections: (game id, colour, connection).
        Those of games that have ended are not renewed, as no attendance of theirs is left.
        A pipeline of BATCH at a time, the event loop serving moves in between: one pipeline
        of a process's every connection held it up for a quarter of a second at 3,000 games
        (`python -m bench.presence_sweep`)."""
        until = now + self.attendance_ms
        for start in range(0, len(entries), BATCH):
            async with self.redis.pipeline(transaction=False) as pipe:
                for game_id, colour, connection in entries[start : start + BATCH]:
                    pipe.eval(RENEW, 1, online_key(game_id), f"{colour}:{connection}", until)
                await pipe.execute()

    async def lapse_attendance(self, now: int) -> None:
        """Drop attendances no process renewed (their server died); a player left with none
        is away."""
        live = await GameIndex(self.redis).live()
        for start in range(0, len(live), BATCH):  # as `keep_attending`, a batch at a time
            batch = live[start : start + BATCH]
            async with self.redis.pipeline(transaction=False) as pipe:
                for game_id in batch:
                    pipe.hgetall(online_key(game_id))
                tables = await pipe.execute()
            for game_id, fields in zip(batch, tables, strict=True):
                await self._lapse(game_id, fields, now)

    async def _lapse(self, game_id: str, fields: dict[bytes, bytes], now: int) -> None:
        attendance = {name.decode(): int(until) for name, until in fields.items()}
        lapsed = [name for name, until in attendance.items() if until <= now]
        if not lapsed:
            return
        await self.redis.hdel(online_key(game_id), *lapsed)
        for colour in {Colour(name.split(":")[0]) for name in lapsed}:
            if not any(
                name.startswith(f"{colour}:") and until > now for name, until in attendance.items()
            ):
                await self._presence(game_id, colour, online=False, now=now)

    async def _attendance(self, game_id: str) -> dict[str, int]:
        fields = await self.redis.hgetall(online_key(game_id))
        return {name.decode(): int(until) for name, until in fields.items()}

    async def _presence(self, game_id: str, colour: Colour, *, online: bool, now: int) -> None:
        for _ in range(self.ATTEMPTS):
            game = await self._load(game_id)
            if game.status is not GameStatus.PLAYING:
                # Ended while a connection came: what it wrote is not left after the end.
                await self.redis.delete(online_key(game_id))
                return
            change = referee.presence(
                game, colour, online=online, now=now, grace_ms=self.claim_grace_ms
            )
            if change is None:
                return
            changed, event = change
            if await self._commit(game.version, changed, [event], now):
                return
