"""Who a connection is: accounts with argon2 password hashes, bot tokens, resumable sessions and
guests, all kept in Redis. Tokens are stored only as SHA-256 digests and passwords only as argon2
hashes, so a copy of the store lets nobody log in.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import msgpack
import redis.asyncio as aioredis
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from redis.asyncio.client import Pipeline

from engine.search.registry import bot_names
from server.hub import user_channel
from server.protocol.limits import MAX_NAME_LENGTH, MAX_TOKEN_LENGTH
from server.protocol.values import DEFAULT_GAME, Player, PlayerKind

__all__ = [
    "GUEST_PREFIX",
    "RATING_FIELDS",
    "SESSION_TTL",
    "TOKEN_REVOKED",
    "UNSUFFIXED_GAME",
    "Account",
    "AccountError",
    "BotToken",
    "InvalidNameError",
    "InvalidPasswordError",
    "NameTakenError",
    "UnknownAccountError",
    "UnknownTokenError",
    "authenticate",
    "bot_for_token",
    "check_name",
    "create_account",
    "create_bot_token",
    "find",
    "list_bot_tokens",
    "new_guest",
    "open_session",
    "owners",
    "player_in",
    "rating_fields",
    "rating_in",
    "rating_key",
    "resume_session",
    "revoke_bot_token",
    "session_origin",
    "stored_rating",
    "token_digest",
    "token_id",
    "token_known",
    "user_key",
]

# Keys in Redis. Names are case-insensitive, so accounts are keyed by the lowercase name.
# An account's `id` is random: tokens and sessions hold "<lowercase name> <id>", so a name that
# is freed and taken again does not inherit them.
# Hash by lowercase name: name (as typed), kind, id, password (argon2), the Glicko-2 rating in
# each game played rated (`rating_fields`), and for a bot made with one its `owner` (the human
# account's name as typed).
USER_KEY = "user:{}"
# Hash by a house bot's spec (`invader@5`): its Glicko-2 rating in each game it played rated, in
# the fields of an account's; each strength of a house bot is a player of its own.
HOUSE_KEY = "house:{}"
TOKEN_KEY = "token:{}"  # bot token's SHA-256 hex -> "<lowercase name> <id>" of the bot
TOKEN_PREFIX = TOKEN_KEY.format("")
TOKEN_CREATED_KEY = "token-created"  # hash: bot token's SHA-256 hex -> ns since the epoch
# Session token's SHA-256 hex -> "<lowercase name> <id>", and " <bot token's SHA-256 hex>" when
# a bot token opened it (the session ends with that token); expires.
SESSION_KEY = "session:{}"
GUEST_COUNTER_KEY = "guest:counter"  # INCR'd for the number in each guest's name

SESSION_TTL = timedelta(days=7)
GUEST_PREFIX = "guest-"
TOKEN_BYTES = 32  # 256 bits of randomness; token_urlsafe makes 43 characters of it
# Bot tokens start with this, never with the "-" that base64url may start with and that a command
# line would take for an option; it also tells a bot token from a session token at a glance.
BOT_TOKEN_PREFIX = "bot_"
# Hex digits of a bot token's digest that name it in lists and revocations: enough to tell
# tokens apart (48 bits), and not the token, which cannot be had from its digest.
TOKEN_ID_LENGTH = 12
# The type of the map published on a bot's user channel when one of its tokens is revoked,
# with the token's digest as `token`; servers end the connections that logged in with it.
TOKEN_REVOKED = "token_revoked"

# The fields of a rating, each kept per game as `<field>:<game>`. Servers before ratings were per
# game kept them unsuffixed, for the one game there was; they are read while the game's own
# fields are absent, and the first rating settled in the game replaces them.
RATING_FIELDS = ("rating", "deviation", "volatility")
UNSUFFIXED_GAME = DEFAULT_GAME

_NAME = re.compile(r"[A-Za-z0-9_-]+")

# Creates an account hash unless the name is taken: EXISTS then HSET in one step, so two
# registrations of one name cannot both succeed. ARGV[1] is a time to live in ms (0: none).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
"""

# Replaces a password hash only if it is still the one that was verified, so an upgrade on login
# never undoes a password change made meanwhile.
_REHASH = """
if redis.call('HGET', KEYS[1], 'password') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'password', ARGV[2])
  return 1
end
return 0
"""

_HASHER = PasswordHasher()


class AccountError(ValueError):
    """A request about accounts that cannot be granted."""


class InvalidNameError(AccountError):
    """A user name that is too long, empty, or has characters other than letters, digits, _, -."""


class NameTakenError(AccountError):
    """A user name that already belongs to an account (names compare case-insensitively)."""


class InvalidPasswordError(AccountError):
    """A password that cannot be used."""


class UnknownAccountError(AccountError):
    """No account has this name."""


class UnknownTokenError(AccountError):
    """No bot token has this id, or several do."""


@dataclass(frozen=True)
class Account:
    """An account as the server knows it; `rating`, its rating in the default game (Amazons), is
    None for guests and unrated accounts."""

    name: str
    kind: PlayerKind
    rating: int | None = None

    def player(self) -> Player:
        """The account as other players see it on the wire."""
        return Player(self.name, self.kind, self.rating)


@dataclass(frozen=True)
class BotToken:
    """A bot token as `arena token list` shows it: its id (not the token), its bot's name, and
    when it was made (None for tokens made before creation times were kept)."""

    id: str
    bot: str
    created: datetime | None


def token_digest(token: str) -> str:
    """The SHA-256 hex digest a token is stored and known by."""
    return _digest(token)


async def token_known(r: aioredis.Redis, digest: str) -> bool:
    """Whether the bot token with this digest is still valid (not revoked)."""
    return bool(await r.exists(TOKEN_KEY.format(digest)))


def token_id(token: str) -> str:
    """The id by which a bot token is listed and revoked."""
    return _digest(token)[:TOKEN_ID_LENGTH]


def user_key(name: str) -> str:
    """The key of an account's hash."""
    return USER_KEY.format(name.lower())


def rating_fields(game: str) -> tuple[str, ...]:
    """The fields of an account's hash that hold its rating, deviation and volatility in `game`."""
    return tuple(f"{field}:{game}" for field in RATING_FIELDS)


def rating_key(name: str, house: str | None = None) -> str:
    """The key of the hash holding the ratings of the account `name`, or of the house bot at
    one strength whose spec (`invader@5`) is `house` when given."""
    return user_key(name) if house is None else HOUSE_KEY.format(house.lower())


async def stored_rating(
    r: aioredis.Redis | Pipeline, name: str, game: str, house: str | None = None
) -> list[str | None]:
    """The rating, deviation and volatility in `game` as stored (None where absent) of the
    account `name`, or of the house bot whose spec is `house` when given."""
    return _stored_rating(await _fields(r, rating_key(name, house)), game)


async def rating_in(
    r: aioredis.Redis, name: str, game: str, house: str | None = None
) -> int | None:
    """The rating in `game` in whole points of the account `name` (or of the house bot `house`,
    a spec, when given); None when it has none (or no account)."""
    return _rating((await stored_rating(r, name, game, house))[0])


async def player_in(
    r: aioredis.Redis, player: Player, game: str, house: str | None = None
) -> Player:
    """`player` as others see them in `game`: an account, or a house bot at the strength of its
    spec `house`, with its rating there as it is now (it changes after each rated game);
    guests as they are."""
    if player.kind is PlayerKind.HOUSE and house is not None:
        return replace(player, rating=await rating_in(r, player.name, game, house))
    if player.kind not in (PlayerKind.HUMAN, PlayerKind.BOT):
        return player
    return replace(player, rating=await rating_in(r, player.name, game))


def check_name(name: str) -> None:
    """Raise InvalidNameError unless `name` can name an account."""
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise InvalidNameError(
            f"a user name has 1 to {MAX_NAME_LENGTH} characters; {name[:40]!r} has {len(name)}"
        )
    if not _NAME.fullmatch(name):
        raise InvalidNameError(
            f"user name {name!r} may only have letters a-z and A-Z, digits, '_' and '-'"
        )
    if name.lower().startswith(GUEST_PREFIX):
        raise InvalidNameError(
            f"user name {name!r}: names starting {GUEST_PREFIX!r} are for guests"
        )
    if name.lower() in bot_names():
        raise InvalidNameError(f"user name {name!r} is the name of a house bot")


async def create_account(
    r: aioredis.Redis,
    name: str,
    password: str,
    kind: PlayerKind = PlayerKind.HUMAN,
    *,
    hasher: PasswordHasher = _HASHER,
) -> Account:
    """Register `name` with `password`; `kind` is human or bot (a bot may also use tokens).

    Raises InvalidNameError, NameTakenError or InvalidPasswordError.
    """
    check_name(name)
    kind = PlayerKind(kind)
    if kind not in (PlayerKind.HUMAN, PlayerKind.BOT):
        raise AccountError(f"an account with a password is human or bot, not {kind}")
    if not password:
        raise InvalidPasswordError("the password is empty")
    key = user_key(name)
    # Fail fast before spending the hashing time on a name that is plainly taken.
    if await r.exists(key):
        raise NameTakenError(f"user name {name!r} is taken")
    hashed = await asyncio.to_thread(hasher.hash, password)
    if not await _create(r, name, kind, password=hashed):
        raise NameTakenError(f"user name {name!r} is taken")
    return Account(name, kind)


async def authenticate(
    r: aioredis.Redis, name: str, password: str, *, hasher: PasswordHasher = _HASHER
) -> Account | None:
    """The account if `password` is its password, else None.

    A name with no account costs one hash verification all the same, so the time taken does not
    tell which names exist. A hash made with weaker parameters than `hasher`'s is replaced.
    """
    fields = await _fields(r, user_key(name)) if name else {}
    stored = fields.get("password")
    if stored is None:
        await _verify(hasher, await asyncio.to_thread(_dummy_hash, hasher), password)
        return None
    if not await _verify(hasher, stored, password):
        return None
    if hasher.check_needs_rehash(stored):
        rehashed = await asyncio.to_thread(hasher.hash, password)
        await r.eval(_REHASH, 1, user_key(name), stored, rehashed)
    return _account(fields)


async def find(r: aioredis.Redis, name: str) -> Account | None:
    """The account called `name` (any case), or None."""
    if not name:
        return None
    fields = await _fields(r, user_key(name))
    return _account(fields) if fields else None


async def create_bot_token(r: aioredis.Redis, name: str, owner: str | None = None) -> str:
    """A new login token for bot `name`, creating the bot account if there is none.

    The token is shown only now: Redis keeps its SHA-256 digest. A bot may hold several tokens.
    `owner`, a human account, is recorded as the bot's owner (the ladders pair two bots of one
    owner only when nobody else is left); a bot made without one owns itself until it is given
    one, and an owner once recorded is not changed. Raises InvalidNameError, NameTakenError if
    `name` belongs to a human, UnknownAccountError if `owner` is no human account, or
    AccountError if the bot has another owner.
    """
    check_name(name)
    owner_fields = None if owner is None else await _fields(r, user_key(owner))
    if owner_fields is not None and owner_fields.get("kind") != PlayerKind.HUMAN.value:
        problem = "there is no account" if not owner_fields else "that is not a human account"
        raise UnknownAccountError(f"a bot's owner is a human account: {problem} {owner!r}")
    await _create(r, name, PlayerKind.BOT)
    fields = await _fields(r, user_key(name))
    if fields.get("kind") != PlayerKind.BOT.value:
        raise NameTakenError(f"user name {name!r} belongs to an account that is not a bot")
    if owner_fields is not None:
        owner = owner_fields["name"]
        # HSETNX: two commands giving the bot different owners at once cannot both record one.
        await r.hsetnx(user_key(name), "owner", owner)
        recorded = _text(await r.hget(user_key(name), "owner") or owner)
        if recorded.lower() != owner.lower():
            raise AccountError(
                f"bot {fields['name']!r} is owned by {recorded!r}, not {owner!r}; "
                "an owner is not changed"
            )
    token = BOT_TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    digest = _digest(token)
    await r.set(TOKEN_KEY.format(digest), _holder(fields))
    # In ns, so that tokens made one after the other list in that order.
    await r.hset(TOKEN_CREATED_KEY, digest, time.time_ns())
    return token


async def owners(r: aioredis.Redis, bots: Iterable[str]) -> dict[str, str]:
    """Each of `bots`' owner as recorded (the human account's name as typed), or the bot's own
    name for a bot that has none."""
    names = list(bots)
    async with r.pipeline(transaction=False) as pipe:
        for bot in names:
            pipe.hget(user_key(bot), "owner")
        found = await pipe.execute()
    return {
        bot: bot if owner is None else _text(owner) for bot, owner in zip(names, found, strict=True)
    }


async def list_bot_tokens(r: aioredis.Redis) -> list[BotToken]:
    """Every bot token, by bot name and then age, oldest first."""
    digests = sorted(
        [_text(key).removeprefix(TOKEN_PREFIX) async for key in r.scan_iter(TOKEN_PREFIX + "*")]
    )
    if not digests:
        return []
    holders = await r.mget([TOKEN_KEY.format(digest) for digest in digests])
    created = await r.hmget(TOKEN_CREATED_KEY, digests)
    tokens = []
    for digest, holder, stamp in zip(digests, holders, created, strict=True):
        if holder is None:
            continue  # revoked while listing
        tokens.append(
            BotToken(digest[:TOKEN_ID_LENGTH], await _bot_name(r, _text(holder)), _time(stamp))
        )
    return sorted(
        tokens, key=lambda t: (t.bot.lower(), t.created or datetime.min.replace(tzinfo=UTC))
    )


async def revoke_bot_token(r: aioredis.Redis, id: str) -> BotToken:
    """Revoke the bot token whose id is `id`: it logs in no more, nor do the sessions it opened,
    and the connections logged in with it are told to close (on the bot's user channel).

    Raises UnknownTokenError if no token, or more than one, has that id.
    """
    if not re.fullmatch(f"[0-9a-f]{{{TOKEN_ID_LENGTH}}}", id):
        raise UnknownTokenError(
            f"a token id is {TOKEN_ID_LENGTH} hex digits (as `arena token list` shows), not {id!r}"
        )
    keys = [_text(key) async for key in r.scan_iter(TOKEN_KEY.format(id + "*"))]
    if len(keys) != 1:
        found = "no bot token" if not keys else f"{len(keys)} bot tokens"
        raise UnknownTokenError(f"{found} with id {id}; `arena token list` shows them")
    digest = keys[0].removeprefix(TOKEN_PREFIX)
    holder, stamp = await r.getdel(keys[0]), await r.hget(TOKEN_CREATED_KEY, digest)
    if holder is None:
        raise UnknownTokenError(f"no bot token with id {id}; `arena token list` shows them")
    await r.hdel(TOKEN_CREATED_KEY, digest)
    name = _text(holder).partition(" ")[0]
    await r.publish(user_channel(name), msgpack.packb({"t": TOKEN_REVOKED, "token": digest}))
    return BotToken(id, await _bot_name(r, _text(holder)), _time(stamp))


async def bot_for_token(r: aioredis.Redis, token: str) -> Account | None:
    """The bot that `token` logs in, or None for a token never issued."""
    # Looking up by digest needs no constant-time compare: the timing of the lookup can only
    # tell an attacker about digests, and a digest does not lead back to a token.
    account = await _account_of(r, await _holder_of(r, TOKEN_KEY, token))
    return account if account is not None and account.kind is PlayerKind.BOT else None


async def open_session(
    r: aioredis.Redis, name: str, *, ttl: timedelta = SESSION_TTL, origin: str | None = None
) -> str:
    """A new session token for account `name`, valid for `ttl` after its last use; `origin` is
    the digest of the bot token it was opened with, if any, and the session ends with it.

    Raises UnknownAccountError if there is no such account.
    """
    fields = await _fields(r, user_key(name)) if name else {}
    account = _account(fields)
    if account is None:
        raise UnknownAccountError(f"no account {name!r}")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    holder = _holder(fields) if origin is None else f"{_holder(fields)} {origin}"
    await r.set(SESSION_KEY.format(_digest(token)), holder, px=ttl)
    await _keep_guest(r, account, ttl)
    return token


async def resume_session(
    r: aioredis.Redis, token: str, *, ttl: timedelta = SESSION_TTL
) -> Account | None:
    """The account of a live session, whose life starts again at `ttl`; None if it has expired,
    was never opened, or its account is gone."""
    holder = await _holder_of(r, SESSION_KEY, token, refresh=ttl)
    if holder is None:
        return None
    account = await _account_of(r, holder)
    origin = _origin(holder)
    if account is None or (origin is not None and not await token_known(r, origin)):
        await r.delete(SESSION_KEY.format(_digest(token)))
        return None
    await _keep_guest(r, account, ttl)
    return account


async def session_origin(r: aioredis.Redis, token: str) -> str | None:
    """The digest of the bot token that opened the session `token`, if a bot token did."""
    holder = await _holder_of(r, SESSION_KEY, token)
    return None if holder is None else _origin(holder)


async def new_guest(r: aioredis.Redis, *, ttl: timedelta = SESSION_TTL) -> Account:
    """A guest account with a fresh name such as `guest-4821`, which lasts as long as its
    session (`ttl` after the last use)."""
    while True:
        # Only a counter reset (data lost, guests kept) can make a name collide; the next
        # number is then tried, and guests are finitely many.
        name = f"{GUEST_PREFIX}{await r.incr(GUEST_COUNTER_KEY)}"
        if await _create(r, name, PlayerKind.GUEST, ttl=ttl):
            return Account(name, PlayerKind.GUEST)


async def _create(
    r: aioredis.Redis,
    name: str,
    kind: PlayerKind,
    *,
    password: str | None = None,
    ttl: timedelta | None = None,
) -> bool:
    """Store a new account unless the name is taken; True if it was stored."""
    fields = {"name": name, "kind": kind.value, "id": secrets.token_hex(8)}
    if password is not None:
        fields["password"] = password
    millis = 0 if ttl is None else max(1, int(ttl.total_seconds() * 1000))
    pairs = [item for pair in fields.items() for item in pair]
    return bool(await r.eval(_CREATE, 1, user_key(name), millis, *pairs))


async def _fields(r: aioredis.Redis | Pipeline, key: str) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in (await r.hgetall(key)).items()}


def _holder(fields: dict[str, str]) -> str:
    """What a token or session holds to name its account."""
    return f"{fields['name'].lower()} {fields['id']}"


async def _holder_of(
    r: aioredis.Redis, key_format: str, token: str, *, refresh: timedelta | None = None
) -> str | None:
    """The holder stored for a token, if the token is well-formed and known."""
    if not 1 <= len(token) <= MAX_TOKEN_LENGTH:
        return None
    key = key_format.format(_digest(token))
    holder = await (r.get(key) if refresh is None else r.getex(key, px=refresh))
    return None if holder is None else _text(holder)


async def _account_of(r: aioredis.Redis, holder: str | None) -> Account | None:
    """The account a holder names, if that account still exists."""
    if holder is None:
        return None
    name, _, rest = holder.partition(" ")
    account_id = rest.partition(" ")[0]
    fields = await _fields(r, user_key(name))
    return _account(fields) if account_id and fields.get("id") == account_id else None


def _origin(holder: str) -> str | None:
    """The bot token digest a session's holder ends with, if any."""
    parts = holder.split(" ")
    return parts[2] if len(parts) > 2 else None


async def _bot_name(r: aioredis.Redis, holder: str) -> str:
    """A token holder's bot as its account spells it (lowercase if the account is gone)."""
    account = await _account_of(r, holder)
    return holder.partition(" ")[0] if account is None else account.name


def _time(stamp: bytes | str | None) -> datetime | None:
    return None if stamp is None else datetime.fromtimestamp(int(stamp) / 1e9, UTC)


async def _keep_guest(r: aioredis.Redis, account: Account, ttl: timedelta) -> None:
    # A guest exists only while it may come back, so it lives as long as its latest session.
    if account.kind is PlayerKind.GUEST:
        await r.pexpire(user_key(account.name), ttl)


def _account(fields: dict[str, str]) -> Account | None:
    try:
        kind = PlayerKind(fields["kind"])
        name = fields["name"]
    except (KeyError, ValueError):
        return None
    rating = _stored_rating(fields, DEFAULT_GAME)[0]
    return Account(name, kind, None if kind is PlayerKind.GUEST else _rating(rating))


def _stored_rating(fields: dict[str, str], game: str) -> list[str | None]:
    own = [fields.get(field) for field in rating_fields(game)]
    if own[0] is None and game == UNSUFFIXED_GAME:
        return [fields.get(field) for field in RATING_FIELDS]
    return own


def _rating(text: str | None) -> int | None:
    # The rating module may keep a fractional Glicko rating; players see whole points.
    try:
        return None if text is None else round(float(text))
    except (ValueError, OverflowError):
        return None


async def _verify(hasher: PasswordHasher, stored: str, password: str) -> bool:
    # A hash costs up to half a second of CPU; in a thread, the event loop and clocks go on.
    try:
        return await asyncio.to_thread(hasher.verify, stored, password)
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def _dummy_hash(hasher: PasswordHasher) -> str:
    """A hash of a password nobody knows, made with `hasher`'s parameters so that verifying
    against it costs what verifying a real password does."""
    return hasher.hash(secrets.token_urlsafe(TOKEN_BYTES))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _text(value: bytes | str) -> str:
    # Clients may or may not be made with decode_responses.
    return value.decode() if isinstance(value, bytes) else value
