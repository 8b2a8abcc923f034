"""The ladders' live state in Redis: the members connected now, the colours its pairs have had,
its games under way (until they are handed over to the database), and the lease that lets one
server process at a time schedule. What lasts is the database's (`server.db.ladders`): the
ladders' definitions, their bots' ratings with their histories, their results and their finished
games; `LadderStore` reads both. docs/ladder.md lists the keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import redis.asyncio as aioredis

from server import identity
from server.clock import now_ms
from server.glicko import Rating
from server.ladder.anchors import ANCHOR_OWNER, anchors_of, fixed_ratings
from server.ladder.definition import DEFAULT_LADDERS, Ladder, LadderError, parse_time
from server.ladder.pairing import PairHistory, Pairing
from server.ladder.results import Result, cross_table
from server.ladder.standing import Table, standings
from server.rating_history import RatingPoint
from server.worker import workers_ready

if TYPE_CHECKING:
    from server.db import Database

__all__ = [
    "DEFAULT_LADDERS",
    "LADDER_OF_GAME",
    "LEASE",
    "MEMBERSHIP_MS",
    "RECENT_GAMES",
    "Ladder",
    "LadderError",
    "LadderStore",
    "ladder_of",
    "parse_time",
]

LEASE = "ladder:scheduler"  # string, with an expiry: the token of the process that schedules
# Hash: game id -> name of the ladder that started it, until the game is handed over to the
# database with it (`ladder_of`) and the scheduler sees it was.
LADDER_OF_GAME = "ladder:game"

# A member's place lapses this long after its server process last renewed it, so the bots of a
# process that died stop being paired; a connected member's process renews it every third.
MEMBERSHIP_MS = 15_000
RECENT_GAMES = 20  # the ladder's last games its standings show

# Releases or renews the lease only for the process holding it (its token in ARGV[1]).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Takes a bot off a ladder (KEYS: members, limits, connections; ARGV: the bot, and the
# connection that joined it, or '' for any): a connection that closes after the bot joined again
# on another leaves the new membership alone.
_LEAVE = """
if ARGV[2] ~= '' and redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


def members_key(ladder: str) -> str:
    """Sorted set: bot name -> server ms when its membership lapses."""
    return f"ladder:{{{ladder}}}:members"


def limits_key(ladder: str) -> str:
    """Hash: bot name -> games it plays at once on this ladder."""
    return f"ladder:{{{ladder}}}:limits"


def connections_key(ladder: str) -> str:
    """Hash: bot name -> id of the connection that joined (the one whose end ends it)."""
    return f"ladder:{{{ladder}}}:connections"


def whites_key(ladder: str) -> str:
    """Hash: `white black` (two bot names) -> games the first had White against the second."""
    return f"ladder:{{{ladder}}}:whites"


def unrated_key(ladder: str) -> str:
    """Set: the ids of the ladder's games not rated yet: those under way, and those ended and
    not yet seen handed over (which rates them)."""
    return f"ladder:{{{ladder}}}:unrated"


def engines_key(ladder: str) -> str:
    """Hash: bot name -> the engine it said it plays with when it last joined."""
    return f"ladder:{{{ladder}}}:engines"


def seen_key(ladder: str) -> str:
    """Hash: bot name -> server ms when it was last a member (joined or renewed)."""
    return f"ladder:{{{ladder}}}:seen"


class LadderStore:
    """The ladders of one Redis and one database (server/db/): the definitions and what the
    ladders' games leave are the database's, the bots' owners too. A store without a database
    (a test's server) has no ladders."""

    def __init__(self, redis: aioredis.Redis, database: Database | None = None) -> None:
        self.redis = redis
        self.database = database
        self._release = redis.register_script(_RELEASE)
        self._renew = redis.register_script(_RENEW)
        self._leave = redis.register_script(_LEAVE)

    @property
    def db(self) -> Database:
        if self.database is None:
            raise LadderError("the ladders are kept in a database, and this server has none")
        return self.database

    # Definitions

    async def create(self, ladder: Ladder) -> bool:
        """Add `ladder` unless one of its name is there (names compare case-insensitively);
        whether it was added."""
        from server.db.ladders import create_ladder

        return await create_ladder(self.db, ladder, now_ms())

    async def ensure_defaults(self) -> list[Ladder]:
        """Create the default ladders that are missing, never changing one that is there;
        the ones created."""
        return [ladder for ladder in DEFAULT_LADDERS if await self.create(ladder)]

    async def remove(self, name: str) -> Ladder:
        """Remove the ladder `name` and its members (its ratings, results and games stay, and a
        ladder of that name made again takes them up). LadderError if there is none."""
        from server.db.ladders import remove_ladder

        ladder = await self.get(name)
        await remove_ladder(self.db, ladder.name)
        await self.redis.delete(
            members_key(ladder.name), limits_key(ladder.name), connections_key(ladder.name)
        )
        return ladder

    async def find(self, name: str) -> Ladder | None:
        from server.db.ladders import find_ladder

        return None if self.database is None else await find_ladder(self.database, name)

    async def get(self, name: str) -> Ladder:
        ladder = await self.find(name)
        if ladder is None:
            raise LadderError(f"no ladder {name}{await self._listing()}")
        return ladder

    async def ladders(self) -> list[Ladder]:
        """Every ladder, by name."""
        from server.db.ladders import ladders

        return [] if self.database is None else await ladders(self.database)

    async def _listing(self) -> str:
        names = [ladder.name for ladder in await self.ladders()]
        return f"; the ladders are {', '.join(names)}" if names else "; there are no ladders"

    # Members

    async def join(
        self,
        ladder: str,
        bot: str,
        games: int,
        now: int,
        connection: str = "",
        engine: str | None = None,
    ) -> None:
        """Make `bot` a member playing up to `games` at once, until MEMBERSHIP_MS after `now`
        unless renewed, joined by `connection` (an id), playing with `engine` when it says."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(members_key(ladder), {bot: now + MEMBERSHIP_MS})
            pipe.hset(limits_key(ladder), bot, games)
            pipe.hset(connections_key(ladder), bot, connection)
            pipe.hset(seen_key(ladder), bot, now)
            if engine is not None:
                pipe.hset(engines_key(ladder), bot, engine)
            await pipe.execute()

    async def leave(self, ladder: str, bot: str, connection: str = "") -> bool:
        """Take `bot` off the ladder, if `connection` joined it (any connection when empty);
        whether it was a member."""
        keys = [members_key(ladder), limits_key(ladder), connections_key(ladder)]
        return bool(await self._leave(keys=keys, args=[bot, connection]))

    async def renew(self, memberships: Sequence[tuple[str, str]], now: int) -> None:
        """Keep each (ladder, bot) a member for MEMBERSHIP_MS more; a bot the ladder no longer
        lists (it left on another connection, or the ladder went) stays off."""
        if not memberships:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for ladder, bot in memberships:
                pipe.zadd(members_key(ladder), {bot: now + MEMBERSHIP_MS}, xx=True)
                pipe.hset(seen_key(ladder), bot, now)
            await pipe.execute()

    async def members(self, ladder: str, now: int) -> dict[str, int]:
        """The members whose membership has not lapsed, each with its game limit."""
        await self.redis.zremrangebyscore(members_key(ladder), "-inf", now)
        names = [_text(name) for name in await self.redis.zrange(members_key(ladder), 0, -1)]
        if not names:
            return {}
        limits = await self.redis.hmget(limits_key(ladder), names)
        return {name: int(limit or 1) for name, limit in zip(names, limits, strict=True)}

    # Games

    async def history(self, ladder: str) -> PairHistory:
        """How often each bot had White against each other on the ladder."""
        found = await self.redis.hgetall(whites_key(ladder))
        history = PairHistory()
        for pair, count in found.items():
            white, _, black = _text(pair).partition(" ")
            history.white_games[(white, black)] = int(count)
        return history

    async def started(self, ladder: str, pairing: Pairing, game_id: str) -> None:
        """Count a game the ladder started in its history, and keep it as under way: its
        hand-over records it with its ladder (`ladder_of`), which rates it."""
        # `ladder:game` is read by game id, not under the ladder's tag, so it is written by
        # itself, first: a process stopped in between leaves the game known as the ladder's to
        # its hand-over (which rates it), not on the ladder without it.
        await self.redis.hset(LADDER_OF_GAME, game_id, ladder)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(whites_key(ladder), f"{pairing.white} {pairing.black}", 1)
            pipe.sadd(unrated_key(ladder), game_id)
            await pipe.execute()

    async def unrated(self, ladder: str) -> list[str]:
        """The ids of the ladder's games not rated yet: those under way, and those ended and
        not yet seen handed over."""
        return sorted(_text(game_id) for game_id in await self.redis.smembers(unrated_key(ladder)))

    async def handed_over(self, ladder: str, game_id: str) -> None:
        """Forget the ladder's game `game_id`, handed over to the database (which rated it) or
        gone: Redis keeps only the games under way."""
        # `ladder:game` first: a process stopped in between leaves the game on the unrated set,
        # and the scheduler forgets it again.
        await self.redis.hdel(LADDER_OF_GAME, game_id)
        await self.redis.srem(unrated_key(ladder), game_id)

    async def ratings(self, ladder: str) -> dict[str, Rating]:
        """The ladder rating of each bot (by its name in lower case) that has played a rated
        ladder game, the anchors' at their fixed ratings."""
        from server.db.ladders import ladder_ratings

        return await ladder_ratings(self.db, ladder)

    async def rating_history(self, ladder: str, bot: str) -> list[RatingPoint]:
        """`bot`'s ladder rating after each of its last rated games on `ladder`, oldest first."""
        from server.db.ladders import rating_history

        return await rating_history(self.db, ladder, bot)

    async def rating_of(self, ladder: str, bot: str) -> Rating | None:
        """`bot`'s ladder rating (any case), or None before its first rated game there."""
        from server.db.ladders import rating_of

        return await rating_of(self.db, ladder, bot)

    async def results(self, ladder: str) -> list[Result]:
        """The ladder's rated games with a winner, in the order they ended."""
        from server.db.ladders import ladder_results

        return await ladder_results(self.db, ladder)

    async def table(self, ladder: str, now: int) -> Table:
        """The standings of `ladder` (a LadderError when there is none): every bot with a
        result or connected now, on the rating list of the ladder's results, the anchors that
        have played held at their fixed ratings; each bot's owner (`house` for an anchor),
        engine (an anchor's strength) and when it was last seen, on the ladder or in its last
        game there; the ladder's RECENT_GAMES last games and its cross table. Online are the
        members connected now and, while a house-bot worker is ready, the anchors."""
        found_ladder = await self.get(ladder)
        name, game = found_ladder.name, found_ladder.game
        members = await self.members(name, now)
        results = await self.results(name)
        anchors = {anchor.bot: anchor for anchor in anchors_of(name, game)}
        rows = standings(results, fixed_ratings(name, game, results), members=members)
        # An anchor is on the ladder while a house-bot worker is ready to play it.
        online = set(members)
        if await workers_ready(self.redis, now):
            online |= {row.name for row in rows if row.name in anchors}
        bots = [row.name for row in rows if row.name not in anchors]
        owners = {bot: ANCHOR_OWNER for bot in anchors} | await identity.owners(self.database, bots)
        engines = {bot: anchor.spec for bot, anchor in anchors.items()}
        glicko = await self.ratings(name)
        found = await self.redis.hgetall(engines_key(name))
        engines |= {_text(bot): _text(engine) for bot, engine in found.items()}
        found = await self.redis.hgetall(seen_key(name))
        seen = {_text(bot): int(ms) for bot, ms in found.items()}
        for result in results:
            if result.ended is not None:
                for bot in (result.white, result.black):
                    seen[bot] = max(seen.get(bot, 0), result.ended)
        return Table(
            name,
            rows,
            {row.name: glicko[row.name.lower()] for row in rows if row.name.lower() in glicko},
            frozenset(online),
            owners=owners,
            engines=engines,
            seen=seen,
            games=results[::-1][:RECENT_GAMES],
            cross=cross_table(results),
        )

    async def games(self, ladder: str) -> list[str]:
        """The ids of the games the ladder started: those handed over to the database, oldest
        first, then those under way."""
        from server.db.ladders import ladder_games

        finished = await ladder_games(self.db, ladder)
        recorded = set(finished)
        return finished + [
            game_id for game_id in await self.unrated(ladder) if game_id not in recorded
        ]

    async def ladder_of(self, game_id: str) -> str | None:
        """The ladder that started the game, while it is not handed over."""
        return await ladder_of(self.redis, game_id)

    # The scheduler's lease

    async def take_lease(self, token: str, lease_ms: int) -> bool:
        """Hold the lease as `token` for `lease_ms`: renewed if `token` holds it, taken if
        nobody does; whether `token` holds it now."""
        if await self._renew(keys=[LEASE], args=[token, lease_ms]):
            return True
        return bool(await self.redis.set(LEASE, token, nx=True, px=lease_ms))

    async def release_lease(self, token: str) -> None:
        """Give the lease up, if `token` holds it."""
        await self._release(keys=[LEASE], args=[token])

    async def lease_holder(self) -> str | None:
        token = await self.redis.get(LEASE)
        return None if token is None else _text(token)


async def ladder_of(redis: aioredis.Redis, game_id: str) -> str | None:
    """The ladder that started the game `game_id`, until the scheduler sees it handed over; None
    for a game no ladder started."""
    name = await redis.hget(LADDER_OF_GAME, game_id)
    return None if name is None else _text(name)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
