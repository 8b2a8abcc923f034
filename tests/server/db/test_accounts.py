"""Accounts and bot tokens in the history store, on SQLite and PostgreSQL: made once whatever
the case of their names, logged in by password and by token (with their ratings), listed,
revoked, owned; and moved once from the Redis of a data folder written before they were kept
here, which forgets them once their ratings have moved too."""

import asyncio
from datetime import UTC, datetime

import pytest
from argon2 import PasswordHasher
from redis.asyncio import Redis
from sqlalchemy import select

from server import identity
from server.db import accounts
from server.db.database import Database
from server.db.moved_ratings import MovedRatings, move_ratings
from server.db.schema import ACCOUNTS, BOT_TOKENS
from server.identity import Account, NameTakenError
from server.protocol import PlayerKind

PASSWORD = "correct horse battery staple"
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.mark.asyncio
async def test_an_account_is_made_once_whatever_the_case_of_its_name(db: Database) -> None:
    first = accounts.AccountRow("a1", "Ann", "human", "$argon2id$x", created=5)
    assert await accounts.add_account(db, first)
    assert not await accounts.add_account(db, accounts.AccountRow("a2", "ANN", "bot"))
    assert await accounts.account(db, "aNN") == first
    assert await accounts.account(db, "bob") is None
    assert await accounts.account_count(db) == 1


@pytest.mark.asyncio
async def test_registrations_of_one_name_at_once_let_one_win(db: Database) -> None:
    names = ["crawler", "Crawler", "CRAWLER", "crawleR"]
    made = await asyncio.gather(
        *(
            accounts.add_account(db, accounts.AccountRow(f"id{i}", n, "bot"))
            for i, n in enumerate(names)
        )
    )
    assert sorted(made) == [False, False, False, True]


@pytest.mark.asyncio
async def test_logins_by_password_and_by_token(db: Database, redis: Redis) -> None:
    ann = Account("Ann", PlayerKind.HUMAN)
    assert await identity.create_account(db, "Ann", PASSWORD, hasher=FAST) == ann
    with pytest.raises(NameTakenError, match="'aNN' is taken"):
        await identity.create_account(db, "aNN", PASSWORD, hasher=FAST)
    assert await identity.authenticate(db, "ann", PASSWORD, hasher=FAST) == ann
    assert await identity.authenticate(db, "ann", PASSWORD + "x", hasher=FAST) is None
    token = await identity.create_bot_token(db, "Crawler", owner="ann")
    crawler = Account("Crawler", PlayerKind.BOT)
    assert await identity.bot_for_token(db, token) == crawler
    assert await identity.bot_for_token(db, token + "x") is None
    assert await identity.owners(db, ["crawler", "loner"]) == {"crawler": "Ann", "loner": "loner"}
    session = await identity.open_session(redis, db, "crawler", origin=identity.token_digest(token))
    assert await identity.resume_session(redis, db, session) == crawler
    listed = await identity.list_bot_tokens(db)
    assert [(t.id, t.bot) for t in listed] == [(identity.token_id(token), "Crawler")]
    gone = await identity.revoke_bot_token(redis, db, identity.token_id(token))
    assert (gone.id, gone.bot) == (identity.token_id(token), "Crawler")
    assert await identity.bot_for_token(db, token) is None
    assert await identity.resume_session(redis, db, session) is None
    assert await identity.list_bot_tokens(db) == []
    with pytest.raises(identity.UnknownTokenError, match="no bot token with id"):
        await identity.revoke_bot_token(redis, db, identity.token_id(token))


@pytest.mark.asyncio
async def test_a_weak_hash_is_replaced_only_while_it_is_the_one_verified(db: Database) -> None:
    await accounts.add_account(db, accounts.AccountRow("a1", "ann", "human", "old"))
    assert not await accounts.replace_password(db, "a1", "other", "new")
    assert await accounts.replace_password(db, "a1", "old", "new")
    found = await accounts.account(db, "ann")
    assert found is not None
    assert found.password == "new"


# What servers before the database wrote to Redis (server/identity.py before accounts moved),
# written here with raw commands in that layout: an account hash by lower-case name (name as
# typed, kind, id, argon2 password, owner, ratings), a token's digest -> "<name> <id>", the
# tokens' creation times (ns) in one hash, and a session that names its account the same way.
ANN_HASH = FAST.hash(PASSWORD)
OLD_TOKEN = "bot_" + "A" * 43
LOST_TOKEN = "bot_" + "B" * 43  # its bot's name was freed and taken again: it logged in no more
OLD_SESSION = "s" * 43
MADE_NS = 1_790_000_000_123_456_789


async def write_old_folder(r: Redis) -> None:
    await r.hset(
        "user:ann",
        mapping={
            "name": "Ann",
            "kind": "human",
            "id": "0123456789abcdef",
            "password": ANN_HASH,
            "rating:amazons": "1712.6",
            "deviation:amazons": "80.5",
            "volatility:amazons": "0.06",
        },
    )
    await r.hset(
        "user:crawler",
        mapping={"name": "Crawler", "kind": "bot", "id": "fedcba9876543210", "owner": "Ann"},
    )
    await r.hset("user:guest-7", mapping={"name": "guest-7", "kind": "guest", "id": "77"})
    await r.hset("house:invader@5", mapping={"rating:amazons": "1500"})
    await r.set("token:" + identity.token_digest(OLD_TOKEN), "crawler fedcba9876543210")
    await r.hset("token-created", identity.token_digest(OLD_TOKEN), MADE_NS)
    await r.set("token:" + identity.token_digest(LOST_TOKEN), "crawler 1111111111111111")
    await r.set(
        "session:" + identity.token_digest(OLD_SESSION),
        f"crawler fedcba9876543210 {identity.token_digest(OLD_TOKEN)}",
    )


@pytest.mark.asyncio
async def test_an_older_data_folder_s_accounts_and_tokens_move_once(
    db: Database, redis: Redis
) -> None:
    await write_old_folder(redis)
    assert await identity.move_to_database(redis, db) == (2, 1)
    assert await accounts.account(db, "ann") == accounts.AccountRow(
        "0123456789abcdef", "Ann", "human", ANN_HASH
    )
    assert await accounts.account(db, "CRAWLER") == accounts.AccountRow(
        "fedcba9876543210", "Crawler", "bot", None, "Ann"
    )
    assert await accounts.account(db, "guest-7") is None
    async with db.reading() as connection:
        kept = (await connection.execute(select(BOT_TOKENS))).all()
    assert [tuple(row) for row in kept] == [
        (identity.token_digest(OLD_TOKEN), "fedcba9876543210", MADE_NS, None)
    ]
    listed = await identity.list_bot_tokens(db)
    assert [(t.id, t.bot, t.created) for t in listed] == [
        (
            identity.token_id(OLD_TOKEN),
            "Crawler",
            datetime.fromtimestamp(MADE_NS / 1e9, UTC),
        )
    ]
    # Then the ratings, as a server's first hand-over moves them: Redis forgets the accounts'
    # hashes and the ratings, and keeps the guest, the session and the tokens.
    assert await move_ratings(db, redis) == MovedRatings(ratings=2, points=0, deleted=3)
    assert sorted(key.decode() for key in await redis.keys("*")) == sorted(
        [
            "user:guest-7",
            "token:" + identity.token_digest(OLD_TOKEN),
            "token:" + identity.token_digest(LOST_TOKEN),
            "token-created",
            "session:" + identity.token_digest(OLD_SESSION),
            "rating-version:ann",
            "rating-version:invader@5",
        ]
    )
    # The old password, the old token and the session open before all still log in, Ann
    # with her rating.
    ann = Account("Ann", PlayerKind.HUMAN, 1713)
    assert await identity.authenticate(db, "ann", PASSWORD, hasher=FAST) == ann
    crawler = Account("Crawler", PlayerKind.BOT)
    assert await identity.bot_for_token(db, OLD_TOKEN) == crawler
    assert await identity.bot_for_token(db, LOST_TOKEN) is None
    assert await identity.resume_session(redis, db, OLD_SESSION) == crawler
    assert await identity.owners(db, ["crawler"]) == {"crawler": "Ann"}
    # Once: a database with accounts is not written again, whatever Redis holds.
    await redis.hset("user:late", mapping={"name": "late", "kind": "bot", "id": "99"})
    assert await identity.move_to_database(redis, db) is None
    assert await accounts.account(db, "late") is None
    async with db.reading() as connection:
        assert len((await connection.execute(select(ACCOUNTS.c.id))).all()) == 2


@pytest.mark.asyncio
async def test_a_move_cut_short_and_run_again_copies_each_thing_once(
    db: Database, redis: Redis
) -> None:
    await write_old_folder(redis)
    rows = [accounts.AccountRow("0123456789abcdef", "Ann", "human", ANN_HASH)]
    assert await accounts.copy_accounts(db, rows, []) == (1, 0)
    # Ann is in: the move is done as far as `move_to_database` can tell; copied again, the
    # same rows change nothing.
    assert await accounts.copy_accounts(db, rows, []) == (0, 0)
    assert await identity.move_to_database(redis, db) is None


@pytest.mark.asyncio
async def test_a_persons_bots_and_tokens_keep_to_their_limits_when_asked_for_at_once(
    db: Database,
) -> None:
    await identity.create_account(db, "ann", "a long and unusual pass phrase 77")
    made = await asyncio.gather(
        *(identity.create_owned_bot(db, "ann", f"bot{n}") for n in range(8)),
        return_exceptions=True,
    )
    refused = [error for error in made if isinstance(error, identity.TooManyError)]
    assert len(refused) == 8 - identity.BOTS_PER_OWNER
    bots = await identity.owned_bots(db, "ann")
    assert len(bots) == identity.BOTS_PER_OWNER
    assert all(bot.tokens == 0 and bot.created is not None for bot in bots)
    assert [bot.name for bot in bots] == sorted(bot.name for bot in bots)

    first = bots[0].name
    tokens = await asyncio.gather(
        *(identity.create_owned_bot_token(db, "ann", first) for _ in range(8)),
        return_exceptions=True,
    )
    assert sum(isinstance(t, identity.TooManyError) for t in tokens) == 8 - identity.TOKENS_PER_BOT
    name, listed = await identity.owned_bot_tokens(db, "ann", first.upper())
    assert name == first
    assert len(listed) == identity.TOKENS_PER_BOT
    [again, *_] = await identity.owned_bots(db, "ann")
    assert again.tokens == identity.TOKENS_PER_BOT
