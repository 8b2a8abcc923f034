"""Who a connection is: accounts with argon2 password hashes and bot tokens, kept in the
database (server/db/accounts.py); resumable sessions and guests, which are live and kept in
Redis. Tokens are stored only as SHA-256 digests and passwords only as argon2 hashes, so a copy
of either store lets nobody log in.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import msgpack
import redis.asyncio as aioredis
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from engine.search.registry import bot_names
from server.hub import user_channel
from server.protocol.limits import MAX_NAME_LENGTH, MAX_TOKEN_LENGTH
from server.protocol.values import Player, PlayerKind

# The database's modules load SQLAlchemy (a fifth of a second): imported where an account is
# read, so the commands that read none do not wait for it.
if TYPE_CHECKING:
    from server.db import Database, accounts

__all__ = [
    "BOTS_PER_OWNER",
    "GUEST_PREFIX",
    "MIN_PASSWORD_LENGTH",
    "SESSIONS_ENDED",
    "SESSION_TTL",
    "TOKENS_PER_BOT",
    "TOKEN_REVOKED",
    "Account",
    "AccountError",
    "BotToken",
    "InvalidNameError",
    "InvalidPasswordError",
    "NameTakenError",
    "OpenSession",
    "OwnedBot",
    "TooManyError",
    "UnknownAccountError",
    "UnknownBotError",
    "UnknownSessionError",
    "UnknownTokenError",
    "authenticate",
    "bot_for_token",
    "change_password",
    "check_name",
    "check_password",
    "create_account",
    "create_bot_token",
    "create_owned_bot",
    "create_owned_bot_token",
    "delete_account",
    "end_session",
    "find",
    "list_bot_tokens",
    "list_sessions",
    "move_to_database",
    "new_guest",
    "open_session",
    "owned_bot_tokens",
    "owned_bots",
    "owner_of",
    "owners",
    "resume_session",
    "revoke_bot_token",
    "session_digest",
    "session_id",
    "session_origin",
    "sessions_key",
    "sign_up",
    "token_digest",
    "token_id",
    "token_known",
    "user_key",
]

# Keys in Redis. Names are case-insensitive, so players are keyed by the lowercase name.
# An account's `id` is random: tokens and sessions hold "<lowercase name> <id>", so a name that
# is freed and taken again does not inherit them.
# An account's keys share the hash tag of its lowercase name (`{u:NAME}`), so a transaction
# over them touches one cluster slot.
# Hash by lowercase name: a guest's name (as typed), kind and id.
USER_KEY = "{{u:{}}}:user"
# Where servers before the database kept an account (name, kind, id, password (argon2), a bot's
# `owner`: read by `move_to_database`) with its ratings (server/db/moved_ratings.py), until
# both moved; and a guest, until its key moved (server/db/moved_keys.py).
OLD_USER_KEY = "user:{}"
# Bot tokens as servers before the database kept them, read by `move_to_database` only: a
# token's SHA-256 hex -> "<lowercase name> <id>" of its bot; their creation times, ns.
TOKEN_KEY = "token:{}"
TOKEN_PREFIX = TOKEN_KEY.format("")
TOKEN_CREATED_KEY = "token-created"
# Session token's SHA-256 hex -> "<lowercase name> <id>", and " <bot token's SHA-256 hex>" when
# a bot token opened it (the session ends with that token); expires.
SESSION_KEY = "session:{}"
# Hash by a session's holder ("<lowercase name> <id>", `sessions_key`): the digests of the
# sessions opened since this index was kept -> "<when it was opened, ms> <the address it was
# last used from>" (or the time alone); and `since` (ms) once the password changed,
# after which a session not in the index (opened before it was kept) is refused. It lives as
# long as the account's latest session. A session's own key is found by its token alone, so it
# is not under its account's tag: the index and the session are written one after the other,
# never in one transaction.
SESSIONS_KEY = "{{u:{}}}:sessions:{}"
OLD_SESSIONS_KEY = "sessions:{}"  # the index under its holder, as servers before tags kept it
SESSIONS_SINCE = "since"
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
# The type of the map published on a user channel when sessions of the account are ended, with
# their digests as `sessions`; servers end the connections that hold one.
SESSIONS_ENDED = "sessions_ended"
# What a person may make for themselves over the protocol (the operator's `arena token create`
# is not bound by them): bots per owner, and live tokens per bot (a revoked one frees its place).
BOTS_PER_OWNER = 5
TOKENS_PER_BOT = 5

_NAME = re.compile(r"[A-Za-z0-9_-]+")

# What a password made by signing up must have: at least this many characters, and not be one
# of the COMMON_PASSWORDS most common passwords (zxcvbn's list, ranked by how often leaked
# passwords use them).
MIN_PASSWORD_LENGTH = 8
COMMON_PASSWORDS = 10_000

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


class UnknownBotError(AccountError):
    """The asker owns no bot of this name (whether someone else does is not said)."""


class UnknownSessionError(AccountError):
    """The account has no live session with this id."""


class TooManyError(AccountError):
    """A person has as many bots, or a bot as many live tokens, as one may have."""


@dataclass(frozen=True)
class Account:
    """An account as the server knows it; `rating`, its rating in the default game (Amazons) as
    it was read with the account, is None for guests and unrated accounts. `id`, when the
    account was just read from its store, lets a session be opened for it without reading it
    again (a login's second read)."""

    name: str
    kind: PlayerKind
    rating: int | None = None
    id: str | None = field(default=None, compare=False, repr=False)

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


@dataclass(frozen=True)
class OpenSession:
    """One of an account's live sessions as its list shows it: its id (not its token), when it
    was opened, and the address it was last used from, if known."""

    id: str
    started: datetime
    address: str | None


@dataclass(frozen=True)
class OwnedBot:
    """One of a person's bots as their list shows it: its name, how many live tokens it has,
    and when it was made (None for bots made before creation times were kept)."""

    name: str
    tokens: int
    created: datetime | None


def token_digest(token: str) -> str:
    """The SHA-256 hex digest a token is stored and known by."""
    return _digest(token)


async def token_known(db: Database, digest: str) -> bool:
    """Whether the bot token with this digest is still valid (not revoked)."""
    from server.db import accounts

    return await accounts.token_valid(db, digest)


def token_id(token: str) -> str:
    """The id by which a bot token is listed and revoked."""
    return _digest(token)[:TOKEN_ID_LENGTH]


def user_key(name: str) -> str:
    """The key of an account's hash."""
    return USER_KEY.format(name.lower())


def sessions_key(holder: str) -> str:
    """The key of the index of the sessions of `holder` ("<lowercase name> <id>")."""
    name, _, account_id = holder.partition(" ")
    return SESSIONS_KEY.format(name, account_id)


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
    db: Database,
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
    from server.db import accounts

    # Fail fast before spending the hashing time on a name that is plainly taken.
    if await accounts.account(db, name) is not None:
        raise NameTakenError(f"user name {name!r} is taken")
    hashed = await asyncio.to_thread(hasher.hash, password)
    if not await accounts.add_account(db, _new_row(name, kind, hashed)):
        raise NameTakenError(f"user name {name!r} is taken")
    return Account(name, kind)


def check_password(name: str, password: str) -> None:
    """Raise InvalidPasswordError unless `password` is strong enough for a new account called
    `name`: long enough, not the name, not a common password."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InvalidPasswordError(
            f"a password has at least {MIN_PASSWORD_LENGTH} characters; this one has "
            f"{len(password)}"
        )
    if password.lower() == name.lower():
        raise InvalidPasswordError("the password is the user name")
    if password.lower() in _common_passwords():
        raise InvalidPasswordError(
            f"the password is one of the {COMMON_PASSWORDS:,} most common passwords; choose another"
        )


@functools.cache
def _common_passwords() -> frozenset[str]:
    # Loaded on the first sign-up: the lists' module takes a twentieth of a second to read.
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"][:COMMON_PASSWORDS])


async def sign_up(db: Database, name: str, password: str) -> Account:
    """A human account `name` made by its player with `password`, which must pass
    `check_password`. Raises InvalidNameError, InvalidPasswordError or NameTakenError."""
    check_name(name)
    check_password(name, password)
    return await create_account(db, name, password)


async def authenticate(
    db: Database,
    name: str,
    password: str,
    *,
    hasher: PasswordHasher = _HASHER,
) -> Account | None:
    """The account if `password` is its password, else None.

    A name with no account costs one hash verification all the same, so the time taken does not
    tell which names exist. A hash made with weaker parameters than `hasher`'s is replaced.
    """
    from server.db import accounts

    row = await accounts.account(db, name) if name else None
    stored = None if row is None else row.password
    if row is None or stored is None:
        await _verify(hasher, await asyncio.to_thread(_dummy_hash, hasher), password)
        return None
    if not await _verify(hasher, stored, password):
        return None
    if hasher.check_needs_rehash(stored):
        rehashed = await asyncio.to_thread(hasher.hash, password)
        await accounts.replace_password(db, row.id, stored, rehashed)
    return _rated(row)


async def change_password(
    r: aioredis.Redis,
    db: Database,
    name: str,
    old: str,
    new: str,
    *,
    keep: str | None = None,
    hasher: PasswordHasher = _HASHER,
) -> bool:
    """Replace the password of the human account `name` if `old` is its password (False if it
    is not); `new` must pass `check_password` (InvalidPasswordError). Every session of the
    account but the one whose digest is `keep` ends, and the connections holding them are told
    to close (on the account's user channel)."""
    from server.db import accounts

    found = await _person(db, name, old, hasher)
    if found is None:
        return False
    row, stored = found
    check_password(row.name, new)
    hashed = await asyncio.to_thread(hasher.hash, new)
    if not await accounts.replace_password(db, row.id, stored, hashed):
        return False  # changed meanwhile: `old` is no longer its password
    await _end_sessions(r, f"{row.name.lower()} {row.id}", row.name, keep=keep)
    return True


async def delete_account(
    r: aioredis.Redis,
    db: Database,
    name: str,
    password: str,
    *,
    closed: Callable[[], None] = lambda: None,
    hasher: PasswordHasher = _HASHER,
) -> bool:
    """Delete the human account `name` if `password` is its password (False if it is not): no
    password logs in to it again, then `closed` is called (a reply that must come before the
    connection closes), then every one of its sessions ends and the tokens of its bots are
    revoked, the connections holding them told to close. Its row stays, without a password, so
    that its name stays taken (nobody else signs up as the player its games and ratings name)
    and its finished games stay under it."""
    from server.db import accounts

    found = await _person(db, name, password, hasher)
    if found is None:
        return False
    row, stored = found
    revoked = await accounts.close_account(db, row.id, stored, time.time_ns() // 1_000_000)
    if revoked is None:
        return False  # its password changed meanwhile
    closed()
    await _end_sessions(r, f"{row.name.lower()} {row.id}", row.name, keep=None)
    for token in revoked:
        await r.publish(
            user_channel(token.bot), msgpack.packb({"t": TOKEN_REVOKED, "token": token.digest})
        )
    return True


async def _person(
    db: Database, name: str, password: str, hasher: PasswordHasher
) -> tuple[accounts.AccountRow, str] | None:
    """The human account `name` and its password hash if `password` is its password, else None
    (after as long a verification all the same)."""
    from server.db import accounts

    row = await accounts.account(db, name)
    stored = None if row is None or row.kind != PlayerKind.HUMAN.value else row.password
    if row is None or stored is None:
        await _verify(hasher, await asyncio.to_thread(_dummy_hash, hasher), password)
        return None
    if not await _verify(hasher, stored, password):
        return None
    return row, stored


async def _end_sessions(r: aioredis.Redis, holder: str, name: str, *, keep: str | None) -> None:
    """End every session of `holder` but `keep`, and those opened before the index was kept."""
    index = sessions_key(holder)
    ended = [
        digest
        for digest in map(_text, await r.hkeys(index))
        if digest not in (keep, SESSIONS_SINCE)
    ]
    # The index first: once `since` is set, a session it no longer lists is refused, so a
    # process stopped before the sessions' own keys are deleted leaves none usable.
    async with r.pipeline(transaction=True) as pipe:
        if ended:
            pipe.hdel(index, *ended)
        pipe.hset(index, SESSIONS_SINCE, time.time_ns() // 1_000_000)
        pipe.pexpire(index, SESSION_TTL)
        await pipe.execute()
    await _delete_sessions(r, ended)
    await r.publish(user_channel(name), msgpack.packb({"t": SESSIONS_ENDED, "sessions": ended}))


async def find(r: aioredis.Redis, db: Database | None, name: str) -> Account | None:
    """The account called `name` (any case), or None; only guests without a database."""
    found = await _holder_account(r, db, name) if name else None
    return None if found is None else found[0]


async def create_bot_token(db: Database, name: str, owner: str | None = None) -> str:
    """A new login token for bot `name`, creating the bot account if there is none.

    The token is shown only now: the database keeps its SHA-256 digest. A bot may hold several
    tokens. `owner`, a human account, is recorded as the bot's owner (the ladders pair two bots
    of one owner only when nobody else is left); a bot made without one owns itself until it is
    given one, and an owner once recorded is not changed. Raises InvalidNameError,
    NameTakenError if `name` belongs to a human, UnknownAccountError if `owner` is no human
    account, or AccountError if the bot has another owner.
    """
    check_name(name)
    from server.db import accounts

    owner_row = None if owner is None else await accounts.account(db, owner)
    if owner is not None and (owner_row is None or owner_row.kind != PlayerKind.HUMAN.value):
        problem = "there is no account" if owner_row is None else "that is not a human account"
        raise UnknownAccountError(f"a bot's owner is a human account: {problem} {owner!r}")
    await accounts.add_account(db, _new_row(name, PlayerKind.BOT))
    bot = await accounts.account(db, name)
    if bot is None or bot.kind != PlayerKind.BOT.value:
        raise NameTakenError(f"user name {name!r} belongs to an account that is not a bot")
    if owner_row is not None:
        # Recorded only where there is none: two commands giving the bot different owners at
        # once cannot both record one.
        recorded = await accounts.record_owner(db, bot.id, owner_row.name) or owner_row.name
        if recorded.lower() != owner_row.name.lower():
            raise AccountError(
                f"bot {bot.name!r} is owned by {recorded!r}, not {owner_row.name!r}; "
                "an owner is not changed"
            )
    token = _new_bot_token()
    # In ns, so that tokens made one after the other list in that order.
    await accounts.add_token(db, _digest(token), bot.id, time.time_ns())
    return token


async def create_owned_bot(db: Database, owner: str, name: str) -> OwnedBot:
    """A new bot account called `name`, owned by the human account `owner` (it logs in by its
    tokens only). Raises InvalidNameError, NameTakenError, UnknownAccountError if `owner` is no
    human account, or TooManyError if it owns BOTS_PER_OWNER bots already."""
    check_name(name)
    from server.db import accounts

    owner_id = await _owner_id(db, owner)
    row = _new_row(name, PlayerKind.BOT)
    had = await accounts.add_owned_bot(db, row, owner_id, BOTS_PER_OWNER)
    if had is None:
        raise NameTakenError(f"user name {name!r} is taken")
    if had >= BOTS_PER_OWNER:
        raise TooManyError(f"you have {had} bots, the most one account may have ({BOTS_PER_OWNER})")
    return OwnedBot(name, 0, _time_ms(row.created))


async def owned_bots(db: Database, owner: str) -> list[OwnedBot]:
    """The bots the human account `owner` owns, by name (any case). Raises
    UnknownAccountError if `owner` is no human account."""
    from server.db import accounts

    rows = await accounts.owned_bots(db, await _owner_id(db, owner))
    return [OwnedBot(row.name, row.tokens, _time_ms(row.created)) for row in rows]


async def create_owned_bot_token(db: Database, owner: str, bot: str) -> tuple[str, BotToken]:
    """A new login token for `bot`, one of the human account `owner`'s bots: the token (shown
    only now: the database keeps its digest) and how lists show it. Raises UnknownBotError if
    `owner` owns no such bot, or TooManyError if it has TOKENS_PER_BOT live tokens already."""
    from server.db import accounts

    row = await _owned_bot(db, owner, bot)
    token, created = _new_bot_token(), time.time_ns()
    had = await accounts.add_token_within(db, _digest(token), row.id, created, TOKENS_PER_BOT)
    if had >= TOKENS_PER_BOT:
        raise TooManyError(
            f"bot {row.name} has {had} live tokens, the most a bot may have "
            f"({TOKENS_PER_BOT}): revoke one first"
        )
    return token, BotToken(token_id(token), row.name, _time(created))


async def owned_bot_tokens(db: Database, owner: str, bot: str) -> tuple[str, list[BotToken]]:
    """The name of `bot`, one of the human account `owner`'s bots, as it is spelled, and its
    live tokens, oldest first. Raises UnknownBotError if `owner` owns no such bot."""
    from server.db import accounts

    row = await _owned_bot(db, owner, bot)
    return row.name, [_bot_token(token) for token in await accounts.bot_tokens(db, row.id)]


async def _owner_id(db: Database, owner: str) -> str:
    """The id of the human account `owner`; UnknownAccountError if there is none."""
    from server.db import accounts

    row = await accounts.account(db, owner)
    if row is None or row.kind != PlayerKind.HUMAN.value:
        raise UnknownAccountError(f"there is no human account {owner!r} to own bots")
    return row.id


async def _owned_bot(db: Database, owner: str, bot: str) -> accounts.OwnedBotRow:
    from server.db import accounts

    row = await accounts.owned_bot(db, await _owner_id(db, owner), bot)
    if row is None:
        raise UnknownBotError(f"you have no bot {bot!r}; list_bots lists yours")
    return row


async def owners(db: Database | None, bots: Iterable[str]) -> dict[str, str]:
    """Each of `bots`' owner as recorded (the human account's name as typed), or the bot's own
    name for a bot that has none (every bot, without a database)."""
    from server.db import accounts

    names = list(bots)
    found = {} if db is None else await accounts.owners(db, names)
    return {bot: found.get(bot.lower()) or bot for bot in names}


async def owner_of(db: Database | None, name: str) -> str | None:
    """The recorded owner of the account `name` (the human account's name as typed), if any."""
    from server.db import accounts

    return None if db is None else (await accounts.owners(db, [name])).get(name.lower())


async def list_bot_tokens(db: Database) -> list[BotToken]:
    """Every bot token, by bot name and then age, oldest first."""
    from server.db import accounts

    return [_bot_token(row) for row in await accounts.tokens(db)]


async def revoke_bot_token(
    r: aioredis.Redis, db: Database, id: str, *, owner: str | None = None
) -> BotToken:
    """Revoke the bot token whose id is `id` (a token of one of the human account `owner`'s
    bots, if given): it logs in no more, nor do the sessions it opened, and the connections
    logged in with it are told to close (on the bot's user channel).

    Raises UnknownTokenError if no token, or more than one, has that id (among `owner`'s), or
    UnknownAccountError if `owner` is no human account.
    """
    if not re.fullmatch(f"[0-9a-f]{{{TOKEN_ID_LENGTH}}}", id):
        raise UnknownTokenError(
            f"a token id is {TOKEN_ID_LENGTH} hex digits (as a list of tokens shows), not {id!r}"
        )
    from server.db import accounts

    owner_id = None if owner is None else await _owner_id(db, owner)
    found = await accounts.revoke_token(db, id, time.time_ns() // 1_000_000, owner_id=owner_id)
    if len(found) != 1:
        many = "no bot token" if not found else f"{len(found)} bot tokens"
        # The operator lists every token on the server's machine; a person, their own bots'
        # (the account page, `arena token list --server`).
        where = "`arena token list` shows them" if owner is None else "list your bots' tokens"
        whose = "" if owner is None else " of your bots"
        raise UnknownTokenError(f"{many}{whose} with id {id}; {where}")
    row = found[0]
    await r.publish(user_channel(row.bot), msgpack.packb({"t": TOKEN_REVOKED, "token": row.digest}))
    return _bot_token(row)


async def bot_for_token(db: Database, token: str) -> Account | None:
    """The bot that `token` logs in, or None for a token never issued or revoked."""
    if not 1 <= len(token) <= MAX_TOKEN_LENGTH:
        return None
    from server.db import accounts

    # Looking up by digest needs no constant-time compare: the timing of the lookup can only
    # tell an attacker about digests, and a digest does not lead back to a token.
    row = await accounts.token_account(db, _digest(token))
    if row is None or row.kind != PlayerKind.BOT.value:
        return None
    return _rated(row)


async def open_session(
    r: aioredis.Redis,
    db: Database | None,
    name: str | Account,
    *,
    ttl: timedelta = SESSION_TTL,
    origin: str | None = None,
    address: str | None = None,
) -> str:
    """A new session token for account `name` (or the account just found, read again only if
    it has no `id`), valid for `ttl` after its last use; `origin` is the digest of the bot
    token it was opened with, if any, and the session ends with it; `address`, the client's,
    is kept for the account's list of sessions.

    Raises UnknownAccountError if there is no such account.
    """
    if isinstance(name, Account) and name.id is not None:
        found: tuple[Account, str] | None = (name, name.id)
    else:
        spelled = name.name if isinstance(name, Account) else name
        found = await _holder_account(r, db, spelled) if spelled else None
    if found is None:
        raise UnknownAccountError(f"no account {name!r}")
    account, account_id = found
    token = secrets.token_urlsafe(TOKEN_BYTES)
    holder = f"{account.name.lower()} {account_id}"
    holder = holder if origin is None else f"{holder} {origin}"
    index = sessions_key(f"{account.name.lower()} {account_id}")
    # The index before the session: no session is usable that its account's list does not show
    # (an entry whose session was never made is forgotten when the list is read).
    async with r.pipeline(transaction=False) as pipe:
        pipe.hset(index, _digest(token), _opened(time.time_ns() // 1_000_000, address))
        pipe.pexpire(index, ttl)
        pipe.set(SESSION_KEY.format(_digest(token)), holder, px=ttl)
        await pipe.execute()
    await _keep_guest(r, account, ttl)
    return token


async def resume_session(
    r: aioredis.Redis,
    db: Database | None,
    token: str,
    *,
    ttl: timedelta = SESSION_TTL,
    address: str | None = None,
) -> Account | None:
    """The account of a live session, whose life starts again at `ttl`, now used from
    `address`; None if it has expired, was never opened, was ended, or its account is gone."""
    holder = await _holder_of(r, SESSION_KEY, token, refresh=ttl)
    if holder is None:
        return None
    account = await _account_of(r, db, holder)
    origin = _origin(holder)
    revoked = origin is not None and (db is None or not await token_known(db, origin))
    if account is not None and not revoked:
        revoked = await _ended(r, holder, _digest(token), ttl, address)
    if account is None or revoked:
        await r.delete(SESSION_KEY.format(_digest(token)))
        return None
    await _keep_guest(r, account, ttl)
    return account


async def _ended(
    r: aioredis.Redis, holder: str, digest: str, ttl: timedelta, address: str | None
) -> bool:
    """Whether the session `digest` was ended: one opened before its account's index was kept,
    refused once the password changed (an indexed one that was ended has no key left). One
    that goes on is noted as used from `address`."""
    index = sessions_key(_holder_key(holder))
    async with r.pipeline(transaction=True) as pipe:
        pipe.hmget(index, [digest, SESSIONS_SINCE])
        pipe.pexpire(index, ttl)
        (opened, since), _ = await pipe.execute()
    if opened is not None and address is not None:
        started = _text(opened).partition(" ")[0]
        await r.hset(index, digest, _opened(int(started), address))
    return opened is None and since is not None


async def list_sessions(r: aioredis.Redis, db: Database, name: str) -> list[OpenSession]:
    """The live sessions of the account `name` opened since they were indexed, oldest first
    (an ended or expired one is forgotten as it is found)."""
    index = await _sessions_index(r, db, name)
    opened = {_text(k): _text(v) for k, v in (await r.hgetall(index)).items()}
    opened.pop(SESSIONS_SINCE, None)
    digests = list(opened)
    async with r.pipeline(transaction=False) as pipe:
        for digest in digests:
            pipe.exists(SESSION_KEY.format(digest))
        live = await pipe.execute()
    sessions = []
    for digest, alive in zip(digests, live, strict=True):
        if not alive:
            await r.hdel(index, digest)
            continue
        started, _, address = opened[digest].partition(" ")
        when = datetime.fromtimestamp(int(started) / 1e3, UTC)
        sessions.append(OpenSession(session_id(digest), when, address or None))
    return sorted(sessions, key=lambda session: (session.started, session.id))


async def end_session(r: aioredis.Redis, db: Database, name: str, id: str) -> OpenSession:
    """End the live session of the account `name` whose id is `id`: it is resumed no more and
    the connections holding it are told to close (on the account's user channel). Raises
    UnknownSessionError if the account has no live session, or several, with that id."""
    found = [s for s in await list_sessions(r, db, name) if s.id == id.lower()]
    if len(found) != 1:
        raise UnknownSessionError(
            f"you have no live session with id {id[:40]!r}; list_sessions lists yours"
        )
    index = await _sessions_index(r, db, name)
    digests = [d for d in map(_text, await r.hkeys(index)) if session_id(d) == found[0].id]
    # The sessions before their entries: a session the index does not list is refused only
    # once the password changed (`_ended`).
    await _delete_sessions(r, digests)
    if digests:
        await r.hdel(index, *digests)
    await r.publish(user_channel(name), msgpack.packb({"t": SESSIONS_ENDED, "sessions": digests}))
    return found[0]


async def _sessions_index(r: aioredis.Redis, db: Database, name: str) -> str:
    """The key of the index of the account `name`'s sessions."""
    found = await _holder_account(r, db, name)
    if found is None:
        raise UnknownAccountError(f"no account {name!r}")
    return sessions_key(f"{found[0].name.lower()} {found[1]}")


async def _delete_sessions(r: aioredis.Redis, digests: Iterable[str]) -> None:
    """Delete the sessions' keys, one a command: on a cluster they lie in many slots."""
    async with r.pipeline(transaction=False) as pipe:
        for digest in digests:
            pipe.delete(SESSION_KEY.format(digest))
        await pipe.execute()


def _opened(started: int, address: str | None) -> str:
    return str(started) if address is None else f"{started} {address}"


def _holder_key(holder: str) -> str:
    """A session's holder without the bot token it may end with: "<lowercase name> <id>"."""
    return " ".join(holder.split(" ")[:2])


def session_digest(token: str) -> str:
    """The digest a session token is kept by, which the news of its end names."""
    return _digest(token)


def session_id(digest: str) -> str:
    """The id by which the session with this digest is listed and ended (not its token)."""
    return digest[:TOKEN_ID_LENGTH]


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
        if await _create_guest(r, name, ttl):
            return Account(name, PlayerKind.GUEST)


async def move_to_database(r: aioredis.Redis, db: Database) -> tuple[int, int] | None:
    """Copy the accounts and bot tokens that servers before the database kept in Redis into
    `db`, if it has no accounts yet (its first start on an older data folder): how many accounts
    and tokens were copied, or None if it had accounts. Ids are kept, so sessions open before go
    on; a token whose bot account is gone (it logged in no more) is left. The Redis keys are
    left as they were, until the ratings they hold move too (server/db/moved_ratings.py)."""
    from server.db import accounts

    if await accounts.account_count(db):
        return None
    rows = []
    async for key in r.scan_iter(OLD_USER_KEY.format("*"), _type="HASH"):
        fields = await _fields(r, _text(key))
        kind = fields.get("kind")
        # Guests stay live in Redis; a hash with only ratings (a house bot's) is no account.
        if kind in (PlayerKind.HUMAN.value, PlayerKind.BOT.value) and "id" in fields:
            row = accounts.AccountRow(
                fields["id"], fields["name"], kind, fields.get("password"), fields.get("owner")
            )
            rows.append(row)
    created = {_text(k): _text(v) for k, v in (await r.hgetall(TOKEN_CREATED_KEY)).items()}
    tokens = []
    async for key in r.scan_iter(TOKEN_PREFIX + "*", _type="STRING"):
        digest = _text(key).removeprefix(TOKEN_PREFIX)
        holder = await r.get(key)
        if holder is None:
            continue  # revoked meanwhile
        name, _, rest = _text(holder).partition(" ")
        stamp = created.get(digest)
        tokens.append(
            accounts.TokenRow(
                digest, rest.partition(" ")[0], name, None if stamp is None else int(stamp)
            )
        )
    return await accounts.copy_accounts(db, rows, tokens)


async def _create_guest(r: aioredis.Redis, name: str, ttl: timedelta) -> bool:
    """Store a new guest unless the name is taken; True if it was stored."""
    fields = {"name": name, "kind": PlayerKind.GUEST.value, "id": _new_id()}
    millis = max(1, int(ttl.total_seconds() * 1000))
    pairs = [item for pair in fields.items() for item in pair]
    return bool(await r.eval(_CREATE, 1, user_key(name), millis, *pairs))


async def _fields(r: aioredis.Redis, key: str) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in (await r.hgetall(key)).items()}


async def _holder_of(
    r: aioredis.Redis, key_format: str, token: str, *, refresh: timedelta | None = None
) -> str | None:
    """The holder stored for a token, if the token is well-formed and known."""
    if not 1 <= len(token) <= MAX_TOKEN_LENGTH:
        return None
    key = key_format.format(_digest(token))
    holder = await (r.get(key) if refresh is None else r.getex(key, px=refresh))
    return None if holder is None else _text(holder)


async def _account_of(r: aioredis.Redis, db: Database | None, holder: str) -> Account | None:
    """The account a session's holder names, if that account still exists."""
    name, _, rest = holder.partition(" ")
    account_id = rest.partition(" ")[0]
    found = await _holder_account(r, db, name) if name else None
    return found[0] if found is not None and account_id and found[1] == account_id else None


async def _holder_account(
    r: aioredis.Redis, db: Database | None, name: str
) -> tuple[Account, str] | None:
    """The account called `name` and its id: a guest in Redis, else in the database (none
    without one)."""
    if _is_guest(name):
        fields = await _fields(r, user_key(name))
        account = _account(fields)
        return None if account is None or "id" not in fields else (account, fields["id"])
    if db is None:
        return None
    from server.db import accounts

    row = await accounts.account(db, name)
    return None if row is None else (_rated(row), row.id)


def _rated(row: accounts.AccountRow) -> Account:
    """An account kept in the database, with its rating in the default game read with it."""
    rating = None if row.rating is None else round(row.rating)
    return Account(row.name, PlayerKind(row.kind), rating, row.id)


def _is_guest(name: str) -> bool:
    # No account's name starts so (check_name): guests live in Redis, accounts in the database.
    return name.lower().startswith(GUEST_PREFIX)


def _new_id() -> str:
    return secrets.token_hex(8)


def _new_row(name: str, kind: PlayerKind, password: str | None = None) -> accounts.AccountRow:
    from server.db import accounts

    return accounts.AccountRow(
        _new_id(), name, kind.value, password, created=time.time_ns() // 1_000_000
    )


def _bot_token(row: accounts.TokenRow) -> BotToken:
    return BotToken(row.digest[:TOKEN_ID_LENGTH], row.bot, _time(row.created))


def _new_bot_token() -> str:
    return BOT_TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def _time_ms(stamp: int | None) -> datetime | None:
    return None if stamp is None else datetime.fromtimestamp(stamp / 1e3, UTC)


def _origin(holder: str) -> str | None:
    """The bot token digest a session's holder ends with, if any."""
    parts = holder.split(" ")
    return parts[2] if len(parts) > 2 else None


def _time(stamp: bytes | str | int | None) -> datetime | None:
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
    return Account(name, kind, id=fields.get("id"))


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
