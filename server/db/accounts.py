"""Accounts and bot tokens in the history store: an account by its name (any case), made once
(names are unique whatever their case, which the database holds to), its password hash replaced
only where it is still the one that was verified, a bot's owner recorded once; a bot token by
its digest, listed, revoked (kept, marked, so that an id is never given to another token's
revocation). What server/identity.py says about accounts, these rows keep; an account is read
with its rating in the default game, which a login shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Row, Select, and_, bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.expression import ColumnElement

from server.db.database import Database
from server.db.schema import ACCOUNTS, BOT_TOKENS, GAME_POOL, RATINGS
from server.protocol.values import DEFAULT_GAME, PlayerKind

__all__ = [
    "AccountRow",
    "OwnedBotRow",
    "TokenRow",
    "account",
    "account_count",
    "add_account",
    "add_owned_bot",
    "add_token",
    "add_token_within",
    "bot_tokens",
    "close_account",
    "copy_accounts",
    "known_ids",
    "owned_bot",
    "owned_bots",
    "owners",
    "record_owner",
    "replace_password",
    "revoke_token",
    "token_account",
    "token_valid",
    "tokens",
]

_OWNER = ACCOUNTS.alias("owner")
ID_BATCH = 500  # ids a query looks up at once, well within any database's limit on parameters


@dataclass(frozen=True)
class AccountRow:
    """An account as it is kept: `id` random (tokens and sessions name it, so a name freed and
    taken again inherits nothing), `name` as typed, `kind` human or bot, its argon2 `password`
    hash (None for a bot that logs in by token only), a bot's `owner` (the human account's name
    as typed), when it was `created` (ms since the epoch; None for accounts made before
    creation times were kept), and as read, its `rating` in the default game (None before its
    first rated game there; not written with the account: rated games write it)."""

    id: str
    name: str
    kind: str
    password: str | None = None
    owner: str | None = None
    created: int | None = None
    rating: float | None = None


@dataclass(frozen=True)
class TokenRow:
    """A bot token as it is kept: its SHA-256 `digest`, its bot's account id and name, when it
    was `created` (ns since the epoch, so tokens made one after the other list in that order;
    None for tokens made before creation times were kept) and `revoked` (None while it logs
    in)."""

    digest: str
    account_id: str
    bot: str
    created: int | None = None
    revoked: int | None = None


def _accounts() -> Select[str, str, str, str | None, str | None, int | None, float | None]:
    # The rating in the same query: a login reads the account and its rating in one round trip.
    rated = and_(
        RATINGS.c.player == ACCOUNTS.c.name_key,
        RATINGS.c.game == DEFAULT_GAME,
        RATINGS.c.ladder == GAME_POOL,
    )
    return select(
        ACCOUNTS.c.id,
        ACCOUNTS.c.name,
        ACCOUNTS.c.kind,
        ACCOUNTS.c.password,
        _OWNER.c.name,
        ACCOUNTS.c.created,
        RATINGS.c.rating,
    ).select_from(
        ACCOUNTS.outerjoin(_OWNER, ACCOUNTS.c.owner_id == _OWNER.c.id).outerjoin(RATINGS, rated)
    )


# A login's statements, made once: building one costs more than SQLAlchemy's run of the
# compiled form it caches.
_BY_NAME = _accounts().where(ACCOUNTS.c.name_key == bindparam("name_key"))
_BY_TOKEN = (
    _accounts()
    .join(BOT_TOKENS, BOT_TOKENS.c.account_id == ACCOUNTS.c.id)
    .where(BOT_TOKENS.c.digest == bindparam("digest"), BOT_TOKENS.c.revoked.is_(None))
)
_TOKEN_VALID = select(BOT_TOKENS.c.digest).where(
    BOT_TOKENS.c.digest == bindparam("digest"), BOT_TOKENS.c.revoked.is_(None)
)


def _account(
    row: Row[str, str, str, str | None, str | None, int | None, float | None],
) -> AccountRow:
    return AccountRow(*row)


async def account(db: Database, name: str) -> AccountRow | None:
    """The account called `name` (any case), or None."""
    row = await db.first(_BY_NAME, {"name_key": name.lower()})
    return None if row is None else _account(row)


async def known_ids(db: Database, ids: Iterable[str]) -> set[str]:
    """Those of `ids` that are accounts' ids."""
    wanted = sorted(set(ids))
    known: set[str] = set()
    async with db.reading() as connection:
        for first in range(0, len(wanted), ID_BATCH):
            batch = wanted[first : first + ID_BATCH]
            known.update(
                await connection.scalars(select(ACCOUNTS.c.id).where(ACCOUNTS.c.id.in_(batch)))
            )
    return known


async def account_count(db: Database) -> int:
    """How many accounts there are."""
    async with db.reading() as connection:
        return int((await connection.execute(select(func.count()).select_from(ACCOUNTS))).one()[0])


async def add_account(db: Database, row: AccountRow) -> bool:
    """Keep a new account unless its name (any case) is taken; True if it was kept. Its owner,
    if any, must be an account."""
    try:
        async with db.writing() as connection:
            return await _add(connection, row)
    except IntegrityError:
        return False  # the same name made at once by another connection


async def _add(connection: AsyncConnection, row: AccountRow) -> bool:
    taken = await connection.execute(
        select(ACCOUNTS.c.id).where(ACCOUNTS.c.name_key == row.name.lower())
    )
    if taken.first() is not None:
        return False
    owner_id = None
    if row.owner is not None:
        owner_id = await connection.scalar(
            select(ACCOUNTS.c.id).where(ACCOUNTS.c.name_key == row.owner.lower())
        )
    await connection.execute(
        insert(ACCOUNTS).values(
            id=row.id,
            name=row.name,
            name_key=row.name.lower(),
            kind=row.kind,
            password=row.password,
            owner_id=owner_id,
            created=row.created,
        )
    )
    return True


async def replace_password(db: Database, account_id: str, old: str, new: str) -> bool:
    """Replace an account's password hash `old` with `new` if it is still `old` (a change made
    meanwhile is never undone); True if it was replaced."""
    async with db.writing() as connection:
        done = await connection.execute(
            update(ACCOUNTS)
            .where(ACCOUNTS.c.id == account_id, ACCOUNTS.c.password == old)
            .values(password=new)
        )
    return bool(done.rowcount)


async def close_account(
    db: Database, account_id: str, password: str, now: int
) -> list[TokenRow] | None:
    """Close the account `account_id` if its password hash is still `password`: the hash goes
    (None: no password logs in to it) and the live tokens of the bots it owns are revoked at
    `now`, in one transaction. The row stays, so its name stays taken and its games and
    ratings keep it. The tokens revoked, or None if the hash was not `password`."""
    async with db.writing() as connection:
        done = await connection.execute(
            update(ACCOUNTS)
            .where(ACCOUNTS.c.id == account_id, ACCOUNTS.c.password == password)
            .values(password=None)
        )
        if not done.rowcount:
            return None
        bots = select(ACCOUNTS.c.id).where(ACCOUNTS.c.owner_id == account_id)
        live = (BOT_TOKENS.c.account_id.in_(bots), BOT_TOKENS.c.revoked.is_(None))
        revoked = [TokenRow(*row) for row in await connection.execute(_tokens(*live))]
        await connection.execute(update(BOT_TOKENS).where(*live).values(revoked=now))
    return revoked


async def record_owner(db: Database, bot_id: str, owner: str) -> str | None:
    """Record the account `owner` as the owner of the bot whose id is `bot_id` unless it has
    one: the owner recorded now (its name as typed), or None if there is no such bot."""
    async with db.writing() as connection:
        owner_id = await connection.scalar(
            select(ACCOUNTS.c.id).where(ACCOUNTS.c.name_key == owner.lower())
        )
        await connection.execute(
            update(ACCOUNTS)
            .where(ACCOUNTS.c.id == bot_id, ACCOUNTS.c.owner_id.is_(None))
            .values(owner_id=owner_id)
        )
        row = (await connection.execute(_accounts().where(ACCOUNTS.c.id == bot_id))).first()
    return None if row is None else _account(row).owner


async def owners(db: Database, names: Iterable[str]) -> dict[str, str | None]:
    """The recorded owner (name as typed) of each account of `names` that has one, by the
    account's lower-case name; None for those that have none."""
    keys = {name.lower() for name in names}
    if not keys:
        return {}
    async with db.reading() as connection:
        rows = await connection.execute(
            select(ACCOUNTS.c.name_key, _OWNER.c.name)
            .select_from(ACCOUNTS.join(_OWNER, ACCOUNTS.c.owner_id == _OWNER.c.id))
            .where(ACCOUNTS.c.name_key.in_(sorted(keys)))
        )
        return {key: owner for key, owner in rows}


async def add_token(db: Database, digest: str, account_id: str, created: int) -> None:
    """Keep a new bot token of the account `account_id` by its digest."""
    async with db.writing() as connection:
        await connection.execute(
            insert(BOT_TOKENS).values(digest=digest, account_id=account_id, created=created)
        )


async def token_account(db: Database, digest: str) -> AccountRow | None:
    """The account of the bot token with this digest, if the token is not revoked."""
    row = await db.first(_BY_TOKEN, {"digest": digest})
    return None if row is None else _account(row)


async def token_valid(db: Database, digest: str) -> bool:
    """Whether the bot token with this digest is kept and not revoked."""
    return await db.first(_TOKEN_VALID, {"digest": digest}) is not None


def _tokens(*where: ColumnElement[bool]) -> Select[str, str, str, int | None, int | None]:
    return (
        select(
            BOT_TOKENS.c.digest,
            BOT_TOKENS.c.account_id,
            ACCOUNTS.c.name,
            BOT_TOKENS.c.created,
            BOT_TOKENS.c.revoked,
        )
        .select_from(BOT_TOKENS.join(ACCOUNTS, BOT_TOKENS.c.account_id == ACCOUNTS.c.id))
        .where(*where)
    )


async def tokens(db: Database) -> list[TokenRow]:
    """Every bot token not revoked, by bot (lower-case name) and then age, oldest first (those
    made before creation times were kept first)."""
    async with db.reading() as connection:
        rows = await connection.execute(
            _tokens(BOT_TOKENS.c.revoked.is_(None)).order_by(
                ACCOUNTS.c.name_key,
                BOT_TOKENS.c.created.is_not(None),
                BOT_TOKENS.c.created,
                BOT_TOKENS.c.digest,
            )
        )
        return [TokenRow(*row) for row in rows]


async def revoke_token(
    db: Database, prefix: str, now: int, *, owner_id: str | None = None
) -> list[TokenRow]:
    """Revoke the bot token not yet revoked whose digest starts with `prefix` (hex digits), if
    only one does (only one of the bots the account `owner_id` owns, if given): the tokens that
    do, as they were before (revoked at `now` if only one)."""
    mine = () if owner_id is None else (ACCOUNTS.c.owner_id == owner_id,)
    async with db.writing() as connection:
        found = [
            TokenRow(*row)
            for row in await connection.execute(
                _tokens(
                    BOT_TOKENS.c.digest.startswith(prefix), BOT_TOKENS.c.revoked.is_(None), *mine
                )
            )
        ]
        if len(found) == 1:
            await connection.execute(
                update(BOT_TOKENS).where(BOT_TOKENS.c.digest == found[0].digest).values(revoked=now)
            )
    return found


@dataclass(frozen=True)
class OwnedBotRow:
    """A bot as its owner's list shows it: its account id, `name` as typed, when it was
    `created` (ms since the epoch, or None) and how many live `tokens` it has."""

    id: str
    name: str
    created: int | None
    tokens: int


def _owned_bots(owner_id: str) -> Select[str, str, int | None, int]:
    live = and_(BOT_TOKENS.c.account_id == ACCOUNTS.c.id, BOT_TOKENS.c.revoked.is_(None))
    return (
        select(ACCOUNTS.c.id, ACCOUNTS.c.name, ACCOUNTS.c.created, func.count(BOT_TOKENS.c.digest))
        .select_from(ACCOUNTS.outerjoin(BOT_TOKENS, live))
        .where(ACCOUNTS.c.owner_id == owner_id, ACCOUNTS.c.kind == PlayerKind.BOT.value)
        .group_by(ACCOUNTS.c.id, ACCOUNTS.c.name, ACCOUNTS.c.created, ACCOUNTS.c.name_key)
        .order_by(ACCOUNTS.c.name_key)
    )


async def owned_bots(db: Database, owner_id: str) -> list[OwnedBotRow]:
    """The bots the account `owner_id` owns, by lower-case name, with their live tokens."""
    async with db.reading() as connection:
        return [OwnedBotRow(*row) for row in await connection.execute(_owned_bots(owner_id))]


async def owned_bot(db: Database, owner_id: str, name: str) -> OwnedBotRow | None:
    """The bot called `name` (any case) if the account `owner_id` owns it, else None."""
    async with db.reading() as connection:
        rows = await connection.execute(
            _owned_bots(owner_id).where(ACCOUNTS.c.name_key == name.lower())
        )
        row = rows.first()
    return None if row is None else OwnedBotRow(*row)


async def add_owned_bot(db: Database, row: AccountRow, owner_id: str, most: int) -> int | None:
    """Keep the new bot `row`, owned by the account `owner_id`, unless its name (any case) is
    taken (None) or the owner has `most` bots already: how many bots the owner had before.
    The count and the insert are one transaction that holds the owner's row, so a burst of
    requests at once adds no more."""
    try:
        async with db.writing() as connection:
            await _hold(connection, owner_id)
            had = int(
                await connection.scalar(
                    select(func.count())
                    .select_from(ACCOUNTS)
                    .where(ACCOUNTS.c.owner_id == owner_id, ACCOUNTS.c.kind == PlayerKind.BOT.value)
                )
                or 0
            )
            if had >= most:
                return had
            if not await _add(
                connection, AccountRow(row.id, row.name, row.kind, created=row.created)
            ):
                return None
            await connection.execute(
                update(ACCOUNTS).where(ACCOUNTS.c.id == row.id).values(owner_id=owner_id)
            )
            return had
    except IntegrityError:
        return None  # the same name made at once by another connection


async def _hold(connection: AsyncConnection, account_id: str) -> None:
    """Lock the account's row until the transaction ends (PostgreSQL; SQLite's writes take
    turns already), so counts of what it owns do not change under the transaction."""
    await connection.execute(
        select(ACCOUNTS.c.id).where(ACCOUNTS.c.id == account_id).with_for_update()
    )


async def bot_tokens(db: Database, bot_id: str) -> list[TokenRow]:
    """The live tokens of the bot `bot_id`, oldest first."""
    async with db.reading() as connection:
        rows = await connection.execute(
            _tokens(BOT_TOKENS.c.account_id == bot_id, BOT_TOKENS.c.revoked.is_(None)).order_by(
                BOT_TOKENS.c.created.is_not(None), BOT_TOKENS.c.created, BOT_TOKENS.c.digest
            )
        )
        return [TokenRow(*row) for row in rows]


async def add_token_within(
    db: Database, digest: str, account_id: str, created: int, most: int
) -> int:
    """Keep a new bot token of the account `account_id` unless it has `most` live tokens
    already: how many it had before (the count and the insert are one transaction that holds
    the bot's row, so tokens asked for at once make no more)."""
    async with db.writing() as connection:
        await _hold(connection, account_id)
        had = int(
            await connection.scalar(
                select(func.count())
                .select_from(BOT_TOKENS)
                .where(BOT_TOKENS.c.account_id == account_id, BOT_TOKENS.c.revoked.is_(None))
            )
            or 0
        )
        if had < most:
            await connection.execute(
                insert(BOT_TOKENS).values(digest=digest, account_id=account_id, created=created)
            )
    return had


async def copy_accounts(
    db: Database, accounts: Sequence[AccountRow], bot_tokens: Sequence[TokenRow]
) -> tuple[int, int]:
    """Keep `accounts` and `bot_tokens` (moved from elsewhere, ids kept) in one transaction,
    those already kept (by name, by digest) left as they are, owners recorded after every
    account is in: how many accounts and tokens were new."""
    async with db.writing() as connection:
        added = 0
        for row in accounts:
            added += await _add(connection, AccountRow(row.id, row.name, row.kind, row.password))
        for row in accounts:
            if row.owner is not None:
                owner_id = await connection.scalar(
                    select(ACCOUNTS.c.id).where(ACCOUNTS.c.name_key == row.owner.lower())
                )
                await connection.execute(
                    update(ACCOUNTS)
                    .where(ACCOUNTS.c.id == row.id, ACCOUNTS.c.owner_id.is_(None))
                    .values(owner_id=owner_id)
                )
        known = set(await connection.scalars(select(ACCOUNTS.c.id)))
        kept = set(await connection.scalars(select(BOT_TOKENS.c.digest)))
        new = [t for t in bot_tokens if t.account_id in known and t.digest not in kept]
        for token in new:
            await connection.execute(
                insert(BOT_TOKENS).values(
                    digest=token.digest,
                    account_id=token.account_id,
                    created=token.created,
                    revoked=token.revoked,
                )
            )
    return added, len(new)
