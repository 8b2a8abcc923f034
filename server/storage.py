"""Where live games are kept in Redis: the keys of a game and of the indexes that follow it
(live games, deadlines, house-bot requests, players' games, the ended games not yet handed over
to the history store), and the one Lua script that commits a change to a game. A commit checks
the game's event version (optimistic concurrency), stores the game, appends and publishes its new
events and keeps every index in step, all or nothing, in one round trip. An ended game stays
only until its hand-over, and then for ENDED_WINDOW_SECONDS (`GameStorage.let_go`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

import redis.asyncio as aioredis

from server.lane import LaneCluster, LaneRedis, clustered
from server.protocol import ErrorCode, GameEvent, GameStatus, ProtocolError
from server.stored_game import COLOURS, StoredGame

__all__ = [
    "AI_STREAM",
    "ARCHIVE",
    "COMMIT",
    "DEADLINES",
    "ENDED_WINDOW_SECONDS",
    "HANDOVER",
    "LIVE",
    "SPECTATORS",
    "CommitArgs",
    "CommitKeys",
    "GameStorage",
    "channel",
    "events_key",
    "game_key",
    "game_of",
    "online_key",
    "open_redis",
    "user_games_key",
]

# Keys. Per-game keys share the hash tag {g:ID} so one game lives in one cluster slot.
LIVE = "games:live"  # set of live game ids
DEADLINES = "games:deadlines"  # sorted set: game id -> server ms when it must be looked at
# Sorted set: game id -> server ms when it ended, every ended game, kept by servers before the
# history store; now only read, by the move of an older data folder's games (server/db/).
ARCHIVE = "games:archive"
# Set: ended games not yet in the history store (server/db/), put there by the commit that ends
# a game and taken off once its record is written (`GameStore.hand_over`).
HANDOVER = "games:handover"
AI_STREAM = "ai:requests"  # stream of house-bot move requests
SPECTATORS = "games:spectators"  # hash: game id -> spectators connected
# An ended game stays in Redis this long after its hand-over, so that what follows its end at
# once (a rematch, a review, a watcher's catch-up) reads it there; then only the history store
# has it. `arena serve --ended-window` sets it.
ENDED_WINDOW_SECONDS = 300
REDIS_CONNECTIONS = 64  # a process's connections to Redis; more commands wait their turn
REDIS_WAIT_SECONDS = 10


def open_redis(url: str, connections: int = REDIS_CONNECTIONS) -> aioredis.Redis:
    """A client for the server's Redis: the short commands of the hot paths go through a lane
    of their own (server.lane), and the pool of the others makes a command wait for a free
    connection (up to REDIS_WAIT_SECONDS) rather than fail when all are busy. A node of a
    Redis Cluster at `url` gets a cluster client: a lane to each master, redis-py's routing
    for the rest (its pool to each node holds `connections`)."""
    if clustered(url):
        return LaneCluster.from_url(url, max_connections=connections, protocol=2)
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=connections, timeout=REDIS_WAIT_SECONDS, protocol=2
    )
    return LaneRedis.from_pool(pool)


def game_key(game_id: str) -> str:
    return f"{{g:{game_id}}}:game"


def events_key(game_id: str) -> str:
    return f"{{g:{game_id}}}:events"


def online_key(game_id: str) -> str:
    return f"{{g:{game_id}}}:online"


def user_games_key(name: str) -> str:
    return f"user-games:{name.lower()}"


def channel(game_id: str) -> str:
    """The pub/sub channel a game's events are published on."""
    return f"game:{game_id}"


def game_of(channel_name: str) -> str | None:
    """The game whose events `channel_name` carries (see `channel`), or None."""
    game_id = channel_name.removeprefix("game:")
    return game_id if game_id != channel_name else None


class CommitKeys(NamedTuple):
    """The keys a commit touches, in the order the script gets them as KEYS."""

    game: str  # hash: doc (the stored game), version
    events: str  # list: the game's events, as frames
    deadlines: str
    live: str
    ai_stream: str
    white_games: str  # set: the white player's live games
    black_games: str
    online: str  # hash: the game's attendance (server/presence.py), deleted at its end
    spectators: str
    handover: str  # set: ended games not yet handed over to the history store


class CommitArgs(NamedTuple):
    """The values of a commit, in the order the script gets them as ARGV; the events to append
    and publish follow them."""

    expected_version: int  # the version the change was made on
    doc: bytes  # the stored game after the change
    version: int  # its version
    game_id: str
    deadline: int | str  # server ms when the game must be looked at; '' for none
    live: str  # '1' while the game is played, '0' once it ended
    house_ply: int | str  # the ply a house bot is asked for; '' for none
    channels: str  # where the events are published, space-separated


def _names(table: str, fields: Sequence[str], array: str) -> str:
    """A Lua table giving the script's KEYS or ARGV by name."""
    entries = ", ".join(f"{name} = {array}[{index}]" for index, name in enumerate(fields, 1))
    return f"local {table} = {{{entries}}}\n"


# One commit: check the version, store the game, append and publish its new events, and keep
# the indexes in step, all or nothing.
COMMIT: Final = (
    _names("keys", CommitKeys._fields, "KEYS")
    + _names("args", CommitArgs._fields, "ARGV")
    + f"local first_event = {len(CommitArgs._fields) + 1}\n"
    + """
local current = tonumber(redis.call('HGET', keys.game, 'version') or '0')
if current ~= tonumber(args.expected_version) then return 0 end
redis.call('HSET', keys.game, 'doc', args.doc, 'version', args.version)
local game_id = args.game_id
if args.deadline == '' then
  redis.call('ZREM', keys.deadlines, game_id)
else
  redis.call('ZADD', keys.deadlines, args.deadline, game_id)
end
if args.live == '1' then
  redis.call('SADD', keys.live, game_id)
  redis.call('SADD', keys.white_games, game_id)
  redis.call('SADD', keys.black_games, game_id)
else
  redis.call('SREM', keys.live, game_id)
  redis.call('SREM', keys.white_games, game_id)
  redis.call('SREM', keys.black_games, game_id)
  redis.call('DEL', keys.online)
  redis.call('HDEL', keys.spectators, game_id)
  redis.call('SADD', keys.handover, game_id)
end
if args.house_ply ~= '' then
  redis.call('XADD', keys.ai_stream, '*', 'game_id', game_id, 'ply', args.house_ply)
end
for i = first_event, #ARGV do
  redis.call('RPUSH', keys.events, ARGV[i])
  for name in string.gmatch(args.channels, '%S+') do
    redis.call('PUBLISH', name, ARGV[i])
  end
end
return 1
"""
)


class GameStorage:
    """The games of one Redis: read one, commit a change to one, read its event log."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._commit_script = redis.register_script(COMMIT)

    async def load(self, game_id: str) -> StoredGame:
        data = await self.redis.hget(game_key(game_id), "doc")
        if data is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no game {game_id}")
        return StoredGame.from_bytes(data)

    async def commit(
        self,
        expected: int,
        game: StoredGame,
        events: Sequence[GameEvent],
        also: Sequence[str] = (),
    ) -> bool:
        """Store `game` and log `events` if the stored game is still at version `expected`;
        False when another process changed it first. The events are published on the game's
        channel and the channels `also` names."""
        live = game.status is GameStatus.PLAYING
        house_turn = live and game.house[COLOURS.index(game.to_move)] is not None
        keys = CommitKeys(
            game=game_key(game.game_id),
            events=events_key(game.game_id),
            deadlines=DEADLINES,
            live=LIVE,
            ai_stream=AI_STREAM,
            white_games=user_games_key(game.white.name),
            black_games=user_games_key(game.black.name),
            online=online_key(game.game_id),
            spectators=SPECTATORS,
            handover=HANDOVER,
        )
        args = CommitArgs(
            expected_version=expected,
            doc=game.to_bytes(),
            version=game.version,
            game_id=game.game_id,
            deadline=game.clock.timeout_at() if live else "",
            live="1" if live else "0",
            house_ply=game.ply if house_turn else "",
            channels=" ".join((channel(game.game_id), *also)),
        )
        done = await self._commit_script(
            keys=keys, args=[*args, *(event.to_wire() for event in events)]
        )
        return bool(done)

    async def events_since(self, game_id: str, version: int) -> list[bytes]:
        """The logged events after `version`, as frames."""
        frames: list[bytes] = await self.redis.lrange(events_key(game_id), version, -1)
        return frames

    async def let_go(self, game_id: str, window_ms: int) -> None:
        """Take an ended game, now in the history store, off the hand-over set, and let its
        document and event log expire `window_ms` later. The set last: a process that stops
        before it leaves the game there, and the next hand-over lets it go."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.pexpire(game_key(game_id), window_ms)
            pipe.pexpire(events_key(game_id), window_ms)
            pipe.srem(HANDOVER, game_id)
            await pipe.execute()
