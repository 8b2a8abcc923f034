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
from dataclasses import dataclass
from datetime import timedelta

import redis.asyncio as aioredis
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from engine.search.registry import bot_names
from server.protocol.limits import MAX_NAME_LENGTH, MAX_TOKEN_LENGTH
from server.protocol.values import Player, PlayerKind

__all__ = [
    "GUEST_PREFIX",
    "SESSION_TTL",
    "Account",
    "AccountError",
    "InvalidNameError",
    "InvalidPasswordError",
    "NameTakenError",
    "UnknownAccountError",
    "authenticate",
    "bot_for_token",
    "check_name",
    "create_account",
    "create_bot_token",
    "find",
    "new_guest",
    "open_session",
    "resume_session",
    "user_key",
]

# Keys in Redis. Names are case-insensitive, so accounts are keyed by the lowercase name.
# An account's `id` is random: tokens and sessions hold "<lowercase name> <id>", so a name that
# is freed and taken again does not inherit them.
USER_KEY = "user:{}"  # hash by lowercase name: name (as typed), kind, id, password (argon2), rating
TOKEN_KEY = "token:{}"  # bot token's SHA-256 hex -> "<lowercase name> <id>" of the bot
SESSION_KEY = "session:{}"  # session token's SHA-256 hex -> "<lowercase name> <id>"; expires
GUEST_COUNTER_KEY = "guest:counter"  # INCR'd for the number in each guest's name

SESSION_TTL = timedelta(days=7)
GUEST_PREFIX = "guest-"
TOKEN_BYTES = 32  # 256 bits of randomness; token_urlsafe makes 43 characters of it
# Bot tokens start with this, never with the "-" that base64url may start with and that a command
# line would take for an option; it also tells a bot token from a session token at a glance.
BOT_TOKEN_PREFIX = "bot_"

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


@dataclass(frozen=True)
class Account:
    """An account as the server knows it; `rating` is None for guests and unrated accounts."""

    name: str
    kind: PlayerKind
    rating: int | None = None

    def player(self) -> Player:
        """The account as other players see it on the wire."""
        return Player(self.name, self.kind, self.rating)


def user_key(name: str) -> str:
    """The key of an account's hash."""
    return USER_KEY.format(name.lower())


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


async def create_bot_token(r: aioredis.Redis, name: str) -> str:
    """A new login token for bot `name`, creating the bot account if there is none.

    The token is shown only now: Redis keeps its SHA-256 digest. A bot may hold several tokens.
    Raises InvalidNameError, or NameTakenError if `name` belongs to a human.
    """
    check_name(name)
    await _create(r, name, PlayerKind.BOT)
    fields = await _fields(r, user_key(name))
    if fields.get("kind") != PlayerKind.BOT.value:
        raise NameTakenError(f"user name {name!r} belongs to an account that is not a bot")
    token = BOT_TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    await r.set(TOKEN_KEY.format(_digest(token)), _holder(fields))
    return token


async def bot_for_token(r: aioredis.Redis, token: str) -> Account | None:
    """The bot that `token` logs in, or None for a token never issued."""
    # Looking up by digest needs no constant-time compare: the timing of the lookup can only
    # tell an attacker about digests, and a digest does not lead back to a token.
    account = await _account_of(r, await _holder_of(r, TOKEN_KEY, token))
    return account if account is not None and account.kind is PlayerKind.BOT else None


async def open_session(r: aioredis.Redis, name: str, *, ttl: timedelta = SESSION_TTL) -> str:
    """A new session token for account `name`, valid for `ttl` after its last use.

    Raises UnknownAccountError if there is no such account.
    """
    fields = await _fields(r, user_key(name)) if name else {}
    account = _account(fields)
    if account is None:
        raise UnknownAccountError(f"no account {name!r}")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    await r.set(SESSION_KEY.format(_digest(token)), _holder(fields), px=ttl)
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
    if account is None:
        await r.delete(SESSION_KEY.format(_digest(token)))
        return None
    await _keep_guest(r, account, ttl)
    return account


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


async def _fields(r: aioredis.Redis, key: str) -> dict[str, str]:
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
    name, _, account_id = holder.partition(" ")
    fields = await _fields(r, user_key(name))
    return _account(fields) if account_id and fields.get("id") == account_id else None


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
    return Account(name, kind, None if kind is PlayerKind.GUEST else _rating(fields.get("rating")))


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
