"""Time the servers were away. While no server process is up (or none reaches Redis), no player
can move, so no clock may run: every server process writes a heartbeat to Redis each second, a
gap in it is an outage, and every live game is given back the part of the outage its clocks ran
through (docs/protocol.md, Clocks). A game records the last outage it was given, so any number
of processes may credit it, each in one versioned commit, and it gets each outage once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final, NamedTuple

import redis.asyncio as aioredis

from server.protocol import ClockUpdate, GameStatus
from server.stored_game import StoredGame

__all__ = [
    "CREDITED",
    "HEARTBEAT",
    "HEARTBEAT_MS",
    "OUTAGES",
    "OUTAGE_MS",
    "Heartbeat",
    "Outage",
    "resume",
]

# Both in one hash slot, as the beat is one script.
HEARTBEAT: Final = "{server}:heartbeat"  # server ms when a server process last beat
OUTAGES: Final = "{server}:outages"  # list of "start end", the newest first
OUTAGES_KEPT = 10  # outages the list keeps

HEARTBEAT_MS = 1000  # how often a server process beats
# A heartbeat older than this when the next beat comes is an outage: above the beats' own
# lateness on a loaded machine (a busy event loop, a garbage collection), so a shorter outage is
# charged as ever (docs/protocol.md says so).
OUTAGE_MS = 3000
# The game's `extra` field holding the end of the last outage it was given back.
CREDITED: Final = "outage_credited"

# Record the outage from `start` to `end` unless the newest one recorded reaches `start`: the
# first record of an outage stands (several processes see each, with their own bounds), so no
# game is given the same time back twice.
_RECORD: Final = """
local function record(start, stop)
  local newest = redis.call('LINDEX', KEYS[2], 0)
  if newest and tonumber(string.match(newest, ' (%d+)')) >= tonumber(start) then return end
  redis.call('LPUSH', KEYS[2], start .. ' ' .. stop)
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
end
"""
# Beat at ARGV[1] (server ms); a heartbeat older than ARGV[2] ms makes an outage from it to now.
# Returns the outages kept. A process whose clock is behind the last beat's leaves it be.
_BEAT: Final = (
    _RECORD
    + """
local last = redis.call('GET', KEYS[1])
if not last or tonumber(ARGV[1]) > tonumber(last) then
  redis.call('SET', KEYS[1], ARGV[1])
  if last and tonumber(ARGV[1]) - tonumber(last) > tonumber(ARGV[2]) then
    record(last, ARGV[1])
  end
end
return redis.call('LRANGE', KEYS[2], 0, -1)
"""
)
# An outage from ARGV[1] to ARGV[2] seen otherwise (a Redis Cluster's failover); the outages kept.
_STALL: Final = (
    _RECORD
    + """
record(ARGV[1], ARGV[2])
return redis.call('LRANGE', KEYS[2], 0, -1)
"""
)


class Outage(NamedTuple):
    """No server was up from `start` (the last heartbeat before) to `end` (the first after),
    server ms."""

    start: int
    end: int

    @classmethod
    def parse(cls, text: bytes | str) -> Outage:
        start, end = (text.decode() if isinstance(text, bytes) else text).split()
        return cls(int(start), int(end))

    def held(self, since: int) -> int:
        """How much of the outage a clock that has run from `since` ran through: what it is
        given back."""
        return max(0, self.end - max(self.start, since))


class Heartbeat:
    """A server process's heartbeat, and the outages Redis has recorded (`outages`, oldest
    first, as of this process's last beat). Only server processes beat: a worker that plays on
    while no server is up does not keep the players' clocks running."""

    def __init__(self, redis: aioredis.Redis, *, outage_ms: int = OUTAGE_MS) -> None:
        self._beat = redis.register_script(_BEAT)
        self._stall = redis.register_script(_STALL)
        self.outage_ms = outage_ms
        self.outages: tuple[Outage, ...] = ()
        self.beaten: int | None = None  # server ms of this process's last beat that reached Redis

    def due(self, now: int) -> bool:
        """Whether this process has not beaten for long enough that an outage (of the process,
        or of Redis) may have passed unnoticed: beat before deciding anything on a clock."""
        return self.beaten is None or now - self.beaten > self.outage_ms

    async def beat(self, now: int) -> None:
        found = await self._beat(
            keys=(HEARTBEAT, OUTAGES), args=(now, self.outage_ms, OUTAGES_KEPT)
        )
        self.outages = tuple(sorted(Outage.parse(text) for text in found))
        self.beaten = now

    async def stalled(self, start: int, end: int) -> None:
        """Redis answered none of this process's commands on some games from `start` to `end`
        (server ms): a Redis Cluster's master died and a replica took over. Past `outage_ms`,
        an outage, as if no server had been up: the games on the other masters went on
        meanwhile and are given the time back too (with `cluster-require-full-coverage yes`,
        Redis's default, no game could be played)."""
        if end - start <= self.outage_ms:
            return
        found = await self._stall(keys=(HEARTBEAT, OUTAGES), args=(start, end, OUTAGES_KEPT))
        self.outages = tuple(sorted(Outage.parse(text) for text in found))

    def owes(self, game: StoredGame) -> bool:
        """Whether `game` began before the last outage and has not been given it back yet.
        Cheap: every move asks."""
        outages = self.outages
        if not outages or game.created >= outages[-1].end:
            return False
        credited: int = game.extra.get(CREDITED, 0)
        return credited < outages[-1].end and game.status is GameStatus.PLAYING


def resume(
    game: StoredGame, outages: Sequence[Outage], now: int
) -> tuple[StoredGame, ClockUpdate] | None:
    """The game given back what the `outages` (oldest first) it has not been given yet held it:
    the side to move's clock and a player's time away, toward a claim, stand still through
    them, and a first move's window starts again whole at `now`, with the game's `clock` event
    (a client times that window from the event, as it does from the move before). None when it
    is owed nothing. The event carries the clocks as they read at `now`."""
    credited: int = game.extra.get(CREDITED, 0)
    owed = [outage for outage in outages if outage.end > credited]
    if game.status is not GameStatus.PLAYING or not owed:
        return None
    clock = game.clock
    away: dict[str, int] = dict(game.extra.get("away", {}))
    for outage in owed:
        clock = clock.delayed(outage.held(clock.turn_start))
        away = {side: since + outage.held(since) for side, since in away.items()}
    if not clock.running:
        clock = clock.delayed(max(0, now - clock.turn_start))
    extra = {**game.extra, CREDITED: owed[-1].end}
    if away:
        extra["away"] = away
    resumed = replace(game, clock=clock, version=game.version + 1, extra=extra)
    return resumed, ClockUpdate(game.game_id, resumed.version, clocks=resumed.clocks(now))
