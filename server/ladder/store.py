"""The ladders in Redis: each ladder's definition (game, setup, time control), its members
connected now, the colours its pairs have had, the games it started and its bots' Glicko-2
ratings, and the lease that lets one server process at a time schedule. docs/ladder.md lists
the keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from engine.game import game_names, get_game
from server import identity
from server.clock import now_ms
from server.glicko import Rating
from server.ladder.anchors import ANCHOR_OWNER, anchors_of, fixed_ratings
from server.ladder.pairing import PairHistory, Pairing
from server.ladder.rating import anchor_rating, rate_ladder_game
from server.ladder.results import Result, cross_table
from server.ladder.standing import Table, standings
from server.offers import Offered
from server.protocol import DEFAULT_GAME, ProtocolError, TimeControl
from server.protocol.limits import MAX_BASE_SECONDS, MAX_INCREMENT_SECONDS, MAX_NAME_LENGTH
from server.rating_history import RatingPoint, append_point, read_history
from server.worker import workers_ready

if TYPE_CHECKING:
    from server.db import Database

__all__ = [
    "DEFAULT_LADDERS",
    "LADDERS",
    "LEASE",
    "MEMBERSHIP_MS",
    "RECENT_GAMES",
    "Ladder",
    "LadderError",
    "LadderStore",
    "parse_time",
]

LADDERS = "ladders"  # hash: ladder name -> its definition (JSON: game, setup, base, increment)
LEASE = "ladder:scheduler"  # string, with an expiry: the token of the process that schedules
LADDER_OF_GAME = "ladder:game"  # hash: game id -> name of the ladder that started it

# A member's place lapses this long after its server process last renewed it, so the bots of a
# process that died stop being paired; a connected member's process renews it every third.
MEMBERSHIP_MS = 15_000
RECENT_GAMES = 20  # the ladder's last games its standings show

_NAME = re.compile(r"[A-Za-z0-9_-]+")

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
    """Set: the ids of the ladder's games not rated yet (those under way among them)."""
    return f"ladder:{{{ladder}}}:unrated"


def ratings_key(ladder: str) -> str:
    """Hash: bot name -> its ladder rating (JSON: rating, deviation, volatility)."""
    return f"ladder:{{{ladder}}}:ratings"


def results_key(ladder: str) -> str:
    """List: the ladder's games with a winner, in the order they were rated (JSON: game_id,
    white, black, white_won, and ended in server ms where known)."""
    return f"ladder:{{{ladder}}}:results"


def engines_key(ladder: str) -> str:
    """Hash: bot name -> the engine it said it plays with when it last joined."""
    return f"ladder:{{{ladder}}}:engines"


def seen_key(ladder: str) -> str:
    """Hash: bot name -> server ms when it was last a member (joined or renewed)."""
    return f"ladder:{{{ladder}}}:seen"


def history_key(ladder: str, bot: str) -> str:
    """List: a bot's ladder rating after each of its rated games there, oldest first, the last
    HISTORY_POINTS (`server.rating_history`; an anchor, whose rating is fixed, has none)."""
    return f"ladder:{{{ladder}}}:history:{bot.lower()}"


def games_key(ladder: str) -> str:
    """List: the ids of the games the ladder started, oldest first."""
    return f"ladder:{{{ladder}}}:games"


class LadderError(ValueError):
    """A ladder that cannot be made or is not there; the message is one line for the user."""


@dataclass(frozen=True)
class Ladder:
    """A ladder: its `name` (kept in lower case), and the game, setup and time control of every
    game it starts."""

    name: str
    setup: str
    time: TimeControl
    game: str = DEFAULT_GAME

    def __post_init__(self) -> None:
        if len(self.name) > MAX_NAME_LENGTH or not _NAME.fullmatch(self.name):
            raise LadderError(
                f"a ladder name is 1 to {MAX_NAME_LENGTH} letters, digits, _ or -, "
                f"not {self.name!r}"
            )
        # Names compare case-insensitively: a ladder is known by its name in lower case.
        object.__setattr__(self, "name", self.name.lower())

    @property
    def terms(self) -> str:
        """`amazons 10x10 60+1`: what its games are."""
        return f"{self.game} {self.setup} {self.time.base}+{self.time.increment}"

    def to_json(self) -> str:
        return json.dumps(
            {
                "game": self.game,
                "setup": self.setup,
                "base": self.time.base,
                "increment": self.time.increment,
            }
        )

    @classmethod
    def from_json(cls, name: str, text: str | bytes) -> Ladder:
        fields = json.loads(text)
        return cls(
            name,
            fields["setup"],
            TimeControl(fields["base"], fields["increment"]),
            fields.get("game", DEFAULT_GAME),
        )

    @classmethod
    def new(
        cls, name: str, time: TimeControl, game: str = DEFAULT_GAME, setup: str | None = None
    ) -> Ladder:
        """A ladder of the game registered as `game`, on its `setup` (the game's standard one
        when None); a LadderError names a game not registered here or a setup the game does not
        have. (Whether a server offers them is `refusal`'s question.)"""
        if game not in game_names():
            raise LadderError(
                f"unknown game {game!r}: registered games are {', '.join(game_names())}"
            )
        info = get_game(game).info
        if setup is None:
            setup = info.default_setup
        elif setup not in info.setups:
            raise LadderError(
                f"{game} has no setup {setup!r}: its setups are {', '.join(info.setups)}"
            )
        return cls(name, setup, time, game)

    def refusal(self, offered: Offered) -> str | None:
        """Why a server offering `offered` cannot play this ladder's games, or None."""
        try:
            offered.terms(self.game).check(self.setup, self.time)
        except ProtocolError as error:
            return f"ladder {self.name}: {error}"
        return None


def parse_time(text: str) -> TimeControl:
    """`60+1` as a time control: whole seconds of base and increment."""
    base, plus, increment = text.strip().partition("+")
    try:
        control = TimeControl(int(base), int(increment))
    except ValueError:
        control = None
    if not plus or control is None:
        raise LadderError(
            f"time control {text.strip()!r} is not BASE+INCREMENT in whole seconds (as in 60+1)"
        )
    if not (1 <= control.base <= MAX_BASE_SECONDS and control.increment <= MAX_INCREMENT_SECONDS):
        raise LadderError(
            f"time control {text.strip()!r}: a base of 1 to {MAX_BASE_SECONDS} s and an "
            f"increment of 0 to {MAX_INCREMENT_SECONDS} s"
        )
    return control


# `fast` is 10 s + 0.1 s in spirit; the protocol's clocks count whole seconds, so its
# increment is 0 (a bot still gets its flat allowance on every move, docs/protocol.md). `bao`
# has the same clock: bot games of Bao last some 40 to 80 plies, so 10 s a side ends a game in
# about a minute, and a house bot's share of it (a twentieth of its clock a move) is what its
# anchor rating was measured at.
DEFAULT_LADDERS = (
    Ladder("main", "10x10", TimeControl(60, 1)),
    Ladder("fast", "6x6", TimeControl(10, 0)),
    Ladder("bao", "zanzibar", TimeControl(10, 0), "bao"),
)


class LadderStore:
    """The ladders of one Redis; the bots' owners are the `database`'s (server/db/), and
    without one each bot owns itself."""

    def __init__(self, redis: aioredis.Redis, database: Database | None = None) -> None:
        self.redis = redis
        self.database = database
        self._release = redis.register_script(_RELEASE)
        self._renew = redis.register_script(_RENEW)
        self._leave = redis.register_script(_LEAVE)

    # Definitions

    async def create(self, ladder: Ladder) -> bool:
        """Add `ladder` unless one of its name is there (names compare case-insensitively);
        whether it was added."""
        added = await self.redis.hsetnx(LADDERS, ladder.name, ladder.to_json())
        return bool(added)

    async def ensure_defaults(self) -> list[Ladder]:
        """Create the default ladders that are missing, never changing one that is there;
        the ones created."""
        return [ladder for ladder in DEFAULT_LADDERS if await self.create(ladder)]

    async def remove(self, name: str) -> Ladder:
        """Remove the ladder `name` and its members (its games and history stay until a ladder
        of that name is made again, which takes them up). LadderError if there is none."""
        ladder = await self.get(name)
        await self.redis.hdel(LADDERS, ladder.name)
        await self.redis.delete(
            members_key(ladder.name), limits_key(ladder.name), connections_key(ladder.name)
        )
        return ladder

    async def find(self, name: str) -> Ladder | None:
        text = await self.redis.hget(LADDERS, name.lower())
        return None if text is None else Ladder.from_json(name, text)

    async def get(self, name: str) -> Ladder:
        ladder = await self.find(name)
        if ladder is None:
            raise LadderError(f"no ladder {name}{await self._listing()}")
        return ladder

    async def ladders(self) -> list[Ladder]:
        """Every ladder, by name."""
        found = await self.redis.hgetall(LADDERS)
        return sorted(
            (Ladder.from_json(_text(name), text) for name, text in found.items()),
            key=lambda ladder: ladder.name,
        )

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
        """Count a game the ladder started, in its history and its list of games."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(whites_key(ladder), f"{pairing.white} {pairing.black}", 1)
            pipe.rpush(games_key(ladder), game_id)
            pipe.sadd(unrated_key(ladder), game_id)
            pipe.hset(LADDER_OF_GAME, game_id, ladder)
            await pipe.execute()

    async def unrated(self, ladder: str) -> list[str]:
        """The ids of the ladder's games not rated yet, those under way among them."""
        return sorted(_text(game_id) for game_id in await self.redis.smembers(unrated_key(ladder)))

    async def ratings(self, ladder: str) -> dict[str, Rating]:
        """The ladder rating of each bot that has played a rated ladder game."""
        found = await self.redis.hgetall(ratings_key(ladder))
        return {_text(bot): _rating(text) for bot, text in found.items()}

    async def rate(
        self,
        ladder: str,
        game_id: str,
        white: str,
        black: str,
        white_won: bool | None,
        anchors: Mapping[str, float] | None = None,
        ended: int | None = None,
    ) -> bool:
        """Settle an ended game of the ladder, once: the ratings of `white` and `black` after it
        (Glicko-2, the game its own rating period) when `white_won` says who won, and the game
        with when it `ended` (server ms) in the ladder's results; a game without a winner
        (None: aborted) is only taken off the unrated. A player in `anchors`
        plays at its fixed rating there (`anchor_rating`) and is stored at it, unchanged; each
        other player's new rating is added to its history on the ladder (`history_key`).
        Whether this call settled it: False when it was settled already, or when the ratings
        changed meanwhile (it stays unrated, to settle again)."""
        anchors = anchors or {}
        key, unrated = ratings_key(ladder), unrated_key(ladder)
        async with self.redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(key, unrated)
                if not await pipe.sismember(unrated, game_id):
                    return False
                pipe.multi()
                pipe.srem(unrated, game_id)
                if white_won is not None:
                    before = await self.redis.hmget(key, [white, black])
                    new_white, new_black = rate_ladder_game(
                        _rating_of(white, before[0], anchors),
                        _rating_of(black, before[1], anchors),
                        white_won,
                        white_is_anchor=white in anchors,
                        black_is_anchor=black in anchors,
                    )
                    pipe.hset(key, mapping={white: _json(new_white), black: _json(new_black)})
                    at = now_ms() if ended is None else ended
                    for bot, rating in ((white, new_white), (black, new_black)):
                        if bot not in anchors:
                            point = RatingPoint(at, game_id, rating.rating, rating.deviation)
                            append_point(pipe, history_key(ladder, bot), point)
                    result = {"game_id": game_id, "white": white, "black": black}
                    rated = {**result, "white_won": white_won, "ended": ended}
                    pipe.rpush(results_key(ladder), json.dumps(rated))
                await pipe.execute()
            except WatchError:
                return False  # another process settled it, or rated a game meanwhile
        return True

    async def rating_history(self, ladder: str, bot: str) -> list[RatingPoint]:
        """`bot`'s ladder rating after each of its last rated games on `ladder`, oldest first."""
        return await read_history(self.redis, history_key(ladder, bot))

    async def rating_of(self, ladder: str, bot: str) -> Rating | None:
        """`bot`'s ladder rating, or None before its first rated game there."""
        text = await self.redis.hget(ratings_key(ladder), bot)
        return None if text is None else _rating(text)

    async def results(self, ladder: str) -> list[Result]:
        """The ladder's rated games with a winner, in the order they were rated."""
        found = await self.redis.lrange(results_key(ladder), 0, -1)
        results = []
        for text in found:
            data = json.loads(text)
            results.append(
                Result(
                    data["white"],
                    data["black"],
                    bool(data["white_won"]),
                    data.get("game_id", ""),
                    data.get("ended"),
                )
            )
        return results

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
            await self.ratings(name),
            frozenset(online),
            owners=owners,
            engines=engines,
            seen=seen,
            games=results[::-1][:RECENT_GAMES],
            cross=cross_table(results),
        )

    async def games(self, ladder: str) -> list[str]:
        """The ids of the games the ladder started, oldest first."""
        return [_text(game_id) for game_id in await self.redis.lrange(games_key(ladder), 0, -1)]

    async def ladder_of(self, game_id: str) -> str | None:
        """The ladder that started the game, if one did."""
        name = await self.redis.hget(LADDER_OF_GAME, game_id)
        return None if name is None else _text(name)

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


def _rating(text: str | bytes | None) -> Rating:
    if text is None:
        return Rating()
    rating, deviation, volatility = json.loads(text)
    return Rating(rating, deviation, volatility)


def _rating_of(name: str, text: str | bytes | None, anchors: Mapping[str, float]) -> Rating:
    return anchor_rating(anchors[name]) if name in anchors else _rating(text)


def _json(rating: Rating) -> str:
    return json.dumps([rating.rating, rating.deviation, rating.volatility])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
