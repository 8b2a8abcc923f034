"""Where live games are kept in Redis: the keys of a game, all under the game's hash tag
{g:ID} (one cluster slot), and the one Lua script that commits a change to a game. A commit
checks the game's event version (optimistic concurrency), stores the game, appends its new events
and publishes them on the game's channel (sharded pub/sub on a Redis Cluster), all or nothing, in
one round trip. The indexes that follow the games (server/game_index.py) are written around the
commit, not in it. An ended game stays only until its hand-over, and then for
ENDED_WINDOW_SECONDS (`GameStorage.let_go`).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Sequence
from typing import Final, NamedTuple

import redis.asyncio as aioredis

from server.game_index import GameIndex, house_ply
from server.lane import LaneCluster, LaneRedis, LaneScript, clustered, sharded
from server.protocol import ErrorCode, GameEvent, GameStatus, ProtocolError
from server.stored_game import StoredGame

__all__ = [
    "ARCHIVE",
    "COMMIT",
    "ENDED_WINDOW_SECONDS",
    "CommitArgs",
    "CommitKeys",
    "GameStorage",
    "channel",
    "events_key",
    "game_key",
    "game_of",
    "online_key",
    "open_redis",
]

# Sorted set: game id -> server ms when it ended, every ended game, kept by servers before the
# history store; now only read, by the move of an older data folder's games (server/db/).
ARCHIVE = "games:archive"
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


def channel(game_id: str) -> str:
    """The pub/sub channel a game's events are published on: under the game's tag, a shard
    channel on a Redis Cluster."""
    return f"{{g:{game_id}}}:channel"


def game_of(channel_name: str) -> str | None:
    """The game whose events `channel_name` carries (see `channel`), or None."""
    if channel_name.startswith("{g:") and channel_name.endswith("}:channel"):
        return channel_name[3 : -len("}:channel")]
    return None


class CommitKeys(NamedTuple):
    """The keys a commit touches, in the order the script gets them as KEYS: the game's own."""

    game: str  # hash: doc (the stored game), version
    events: str  # list: the game's events, as frames
    online: str  # hash: the game's attendance (server/presence.py), deleted at its end
    channel: str  # where the events are published


class CommitArgs(NamedTuple):
    """The values of a commit, in the order the script gets them as ARGV; the events to append
    and publish follow them."""

    expected_version: int  # the version the change was made on
    expected_epoch: int  # and the epoch (`StoredGame.epoch`)
    doc: bytes  # the stored game after the change
    version: int  # its version
    epoch: int  # and its epoch
    live: str  # '1' while the game is played, '0' once it ended
    publish: str  # 'SPUBLISH' on a Redis Cluster, else 'PUBLISH'


def _names(table: str, fields: Sequence[str], array: str) -> str:
    """A Lua table giving the script's KEYS or ARGV by name."""
    entries = ", ".join(f"{name} = {array}[{index}]" for index, name in enumerate(fields, 1))
    return f"local {table} = {{{entries}}}\n"


# One commit: check the version and epoch, store the game, append and publish its new events, all or
# nothing, touching only the game's own keys.
COMMIT: Final = (
    _names("keys", CommitKeys._fields, "KEYS")
    + _names("args", CommitArgs._fields, "ARGV")
    + f"local first_event = {len(CommitArgs._fields) + 1}\n"
    + """
local stored = redis.call('HMGET', keys.game, 'version', 'epoch')
if tonumber(stored[1] or '0') ~= tonumber(args.expected_version) then return 0 end
if tonumber(stored[2] or '0') ~= tonumber(args.expected_epoch) then return 0 end
redis.call('HSET', keys.game, 'doc', args.doc, 'version', args.version, 'epoch', args.epoch)
if args.live ~= '1' then
  redis.call('DEL', keys.online)
end
for i = first_event, #ARGV do
  redis.call('RPUSH', keys.events, ARGV[i])
  redis.call(args.publish, keys.channel, ARGV[i])
end
return 1
"""
)


class GameStorage:
    """The games of one Redis: read one, commit a change to one, read its event log; and the
    indexes that follow them (`index`)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self.index = GameIndex(redis)
        self._commit_script = redis.register_script(COMMIT)
        self._publish = "SPUBLISH" if sharded(redis) else "PUBLISH"
        # Commits that ended a game, by whether a replica acknowledged them before the reply.
        self.endings: collections.Counter[str] = collections.Counter()

    async def load(self, game_id: str) -> StoredGame:
        data = await self.redis.hget(game_key(game_id), "doc")
        if data is None:
            raise ProtocolError(ErrorCode.NOT_FOUND, f"no game {game_id}")
        return StoredGame.from_bytes(data)

    async def load_many(self, game_ids: Sequence[str]) -> dict[str, StoredGame | None]:
        """The games `game_ids` as Redis has them now, None for one it has not."""
        docs = await asyncio.gather(*(self.redis.hget(game_key(g), "doc") for g in game_ids))
        return {
            game_id: None if data is None else StoredGame.from_bytes(data)
            for game_id, data in zip(game_ids, docs, strict=True)
        }

    async def commit(
        self,
        expected: int,
        game: StoredGame,
        events: Sequence[GameEvent],
        also: Sequence[str] = (),
        before: StoredGame | None = None,
    ) -> bool:
        """Store `game` and log `events` if the stored game is still at version `expected`
        (and at the epoch of `before`, or else of `game`); False when another process changed
        it first. The events are published on the game's
        channel, and then on the channels `also` names. The indexes are written around it
        (server/game_index.py says in which order, and why); `before`, the game at `expected`
        when the caller has it, spares the writes the change leaves as they were."""
        live = game.status is GameStatus.PLAYING
        game_id = game.game_id
        keys = CommitKeys(
            game=game_key(game_id),
            events=events_key(game_id),
            online=online_key(game_id),
            channel=channel(game_id),
        )
        args = CommitArgs(
            expected_version=expected,
            expected_epoch=game.epoch if before is None else before.epoch,
            doc=game.to_bytes(),
            version=game.version,
            epoch=game.epoch,
            live="1" if live else "0",
            publish=self._publish,
        )
        frames = [event.to_wire() for event in events]
        writes = self.index.additions(game, new=expected == 0, before=before)
        if len(writes) == 1:
            await writes[0]  # a move's: no tasks for one command
        elif writes:
            await asyncio.gather(*writes)
        ply = house_ply(game)
        if ply is not None:
            await self.index.ask_house(game_id, ply)
        script = self._commit_script
        if live or not sharded(self.redis) or not isinstance(script, LaneScript):
            done = await script(keys=keys, args=[*args, *frames])
        else:
            # An ending is what a player must never see undone: on a Redis Cluster it is
            # answered once a replica has it too (docs/server.md, "What a failover keeps").
            done, acked = await script.replicated(keys, [*args, *frames])
            if done:
                self.endings["acknowledged" if acked else "unacknowledged"] += 1
        if not done:
            return False
        if not live:
            await self.index.ended(game)
        if also:
            await asyncio.gather(*(self.redis.publish(name, f) for name in also for f in frames))
        return True

    async def publish(self, game_id: str, frame: bytes) -> None:
        """Publish `frame` on the game's channel, outside a commit."""
        await self.redis.execute_command(self._publish, channel(game_id), frame)

    async def events_since(self, game_id: str, version: int) -> list[bytes]:
        """The logged events after `version`, as frames."""
        frames: list[bytes] = await self.redis.lrange(events_key(game_id), version, -1)
        return frames

    async def let_go(self, game_id: str, window_ms: int) -> None:
        """Take an ended game, now in the history store, off the hand-over set, and let its
        document and event log expire `window_ms` later. The set last: a process that stops
        before it leaves the game there, and the next hand-over lets it go."""
        await asyncio.gather(
            self.redis.pexpire(game_key(game_id), window_ms),
            self.redis.pexpire(events_key(game_id), window_ms),
        )
        await self.index.handed_over(game_id)
