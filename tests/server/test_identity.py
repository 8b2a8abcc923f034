import asyncio
import os
import re
from datetime import timedelta
from typing import Literal

import pytest
from argon2 import PasswordHasher
from redis.asyncio import Redis, from_url
from sqlalchemy import delete, select

from server import identity
from server.db import Database
from server.db.schema import ACCOUNTS, BOT_TOKENS
from server.identity import (
    Account,
    InvalidNameError,
    InvalidPasswordError,
    NameTakenError,
    UnknownAccountError,
)
from server.protocol import Player, PlayerKind
from tests.server.db.stored_ratings import store_rating

# Session lifetimes in the expiry tests are multiples of this; raise ARENA_TEST_TIME_SCALE on a
# slow machine.
TICK = 0.1 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))

PASSWORD = "correct horse battery staple"
# Cheap parameters where the cost of hashing is not what is under test.
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


async def _every_value(r: Redis, database: Database) -> bytes:
    """Every key, field and value in Redis and every value of the database's accounts and
    tokens, joined."""
    parts: list[bytes] = []
    async with database.reading() as connection:
        for table in (ACCOUNTS, BOT_TOKENS):
            for row in await connection.execute(select(table)):
                parts += [str(value).encode() for value in row]
    async for key in r.scan_iter():
        parts.append(key)
        kind = await r.type(key)
        if kind == b"string":
            parts.append(await r.get(key))
        elif kind == b"hash":
            for field, value in (await r.hgetall(key)).items():
                parts += [field, value]
        else:
            raise AssertionError(f"unexpected {kind!r} at {key!r}")
    return b"\n".join(parts)


async def _stored_hashes(r: Redis, database: Database) -> list[str]:
    return re.findall(r"\$argon2id\$[^\n]+", (await _every_value(r, database)).decode())


async def _remove(database: Database, name: str) -> None:
    """Remove the account `name` and its bot tokens, as an operator would in the database."""
    async with database.writing() as connection:
        ids = select(ACCOUNTS.c.id).where(ACCOUNTS.c.name_key == name.lower())
        await connection.execute(delete(BOT_TOKENS).where(BOT_TOKENS.c.account_id.in_(ids)))
        await connection.execute(delete(ACCOUNTS).where(ACCOUNTS.c.name_key == name.lower()))


@pytest.mark.asyncio
async def test_an_account_logs_in_with_its_password_only(redis: Redis, database: Database) -> None:
    ann = Account("Ann", PlayerKind.HUMAN)
    assert await identity.create_account(database, "Ann", PASSWORD, hasher=FAST) == ann
    assert await identity.authenticate(database, "Ann", PASSWORD, hasher=FAST) == ann
    assert await identity.authenticate(database, "ann", PASSWORD, hasher=FAST) == ann
    assert await identity.authenticate(database, "Ann", PASSWORD + " ", hasher=FAST) is None
    assert await identity.authenticate(database, "Ann", "", hasher=FAST) is None
    assert await identity.authenticate(database, "Bob", PASSWORD, hasher=FAST) is None
    assert await identity.authenticate(database, "", PASSWORD, hasher=FAST) is None


@pytest.mark.asyncio
async def test_the_password_is_kept_only_as_an_argon2_hash(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "ann", PASSWORD)
    await identity.authenticate(database, "ann", PASSWORD)
    store = await _every_value(redis, database)
    assert PASSWORD.encode() not in store
    assert b"battery" not in store
    assert len(await _stored_hashes(redis, database)) == 1


class CountingHasher(PasswordHasher):
    """A hasher that counts its verifications, each of which costs one argon2 hash."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.verified: list[str] = []

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.verified.append(str(hash))
        return super().verify(hash, password)


@pytest.mark.asyncio
async def test_a_login_costs_one_hash_whether_or_not_the_name_exists(
    redis: Redis, database: Database
) -> None:
    # The cost, not a stopwatch, is what must not tell names apart: timing on a shared
    # machine is noise (bench figures, not tests, measure time).
    hasher = CountingHasher()
    await identity.create_account(database, "ann", PASSWORD, hasher=hasher)
    assert await identity.authenticate(database, "ann", "wrong", hasher=hasher) is None
    assert await identity.authenticate(database, "nobody", "wrong", hasher=hasher) is None
    known, unknown = hasher.verified
    assert known.startswith("$argon2")
    assert unknown.startswith("$argon2")
    assert known.split("$")[3] == unknown.split("$")[3]  # the same cost parameters


@pytest.mark.asyncio
async def test_a_weak_hash_is_upgraded_at_login(redis: Redis, database: Database) -> None:
    await identity.create_account(database, "ann", PASSWORD, hasher=FAST)
    [weak] = await _stored_hashes(redis, database)
    assert "m=8," in weak
    assert await identity.authenticate(database, "ann", PASSWORD) == Account(
        "ann", PlayerKind.HUMAN
    )
    [strong] = await _stored_hashes(redis, database)
    assert not PasswordHasher().check_needs_rehash(strong)
    assert await identity.authenticate(database, "ann", PASSWORD, hasher=FAST) is not None
    assert await identity.authenticate(database, "ann", "wrong") is None


@pytest.mark.asyncio
async def test_names_are_unique_whatever_their_case(redis: Redis, database: Database) -> None:
    await identity.create_account(database, "Ann", PASSWORD, hasher=FAST)
    for taken in ("Ann", "ann", "ANN", "aNn"):
        with pytest.raises(NameTakenError, match=f"user name '{taken}' is taken"):
            await identity.create_account(database, taken, "other", hasher=FAST)
    # The first owner keeps the name as typed and the password.
    assert await identity.find(redis, database, "ANN") == Account("Ann", PlayerKind.HUMAN)
    assert await identity.authenticate(database, "ANN", "other", hasher=FAST) is None


@pytest.mark.asyncio
async def test_concurrent_registrations_of_one_name_let_one_win(
    redis: Redis, database: Database
) -> None:
    # Hashing slower than the name check, so every registration passes the check before any
    # stores its account: only the store itself can keep the name unique.
    hasher = PasswordHasher(time_cost=2, memory_cost=16 * 1024, parallelism=1)
    results = await asyncio.gather(
        *(identity.create_account(database, "Ann", f"pw{i}", hasher=hasher) for i in range(8)),
        return_exceptions=True,
    )
    assert sum(isinstance(result, Account) for result in results) == 1
    assert sum(isinstance(result, NameTakenError) for result in results) == 7
    winner = next(i for i, result in enumerate(results) if isinstance(result, Account))
    assert await identity.authenticate(database, "ann", f"pw{winner}", hasher=hasher) is not None


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "1 to 32 characters; '' has 0"),
        ("a" * 33, "has 33"),
        ("ann smith", "may only have letters"),
        ("ann!", "may only have letters"),
        ("ann\n", "may only have letters"),
        ("ánn", "may only have letters"),
        ("Guest-12", "names starting 'guest-' are for guests"),
    ],
)
@pytest.mark.asyncio
async def test_invalid_names_are_refused_with_the_reason(
    redis: Redis, name: str, problem: str, database: Database
) -> None:
    with pytest.raises(InvalidNameError, match=re.escape(problem)):
        await identity.create_account(database, name, PASSWORD, hasher=FAST)
    assert [key async for key in redis.scan_iter()] == []


@pytest.mark.asyncio
async def test_names_at_the_limits_are_accepted(redis: Redis, database: Database) -> None:
    for name in ("a", "Z" * 32, "ann_smith-2", "guest", "-_-"):
        assert (await identity.create_account(database, name, PASSWORD, hasher=FAST)).name == name


@pytest.mark.asyncio
async def test_an_empty_password_is_refused(redis: Redis, database: Database) -> None:
    with pytest.raises(InvalidPasswordError, match="empty"):
        await identity.create_account(database, "ann", "", hasher=FAST)
    assert await identity.find(redis, database, "ann") is None


@pytest.mark.asyncio
async def test_a_bot_token_logs_in_its_bot(redis: Redis, database: Database) -> None:
    token = await identity.create_bot_token(database, "MyBot")
    assert await identity.bot_for_token(database, token) == Account("MyBot", PlayerKind.BOT)
    assert await identity.bot_for_token(database, token[:-1]) is None
    assert await identity.bot_for_token(database, token + "x") is None
    assert await identity.bot_for_token(database, "") is None
    assert await identity.bot_for_token(database, "x" * 10_000) is None
    # A token bot has no password to log in with.
    assert await identity.authenticate(database, "MyBot", "", hasher=FAST) is None
    assert await identity.authenticate(database, "MyBot", token, hasher=FAST) is None


@pytest.mark.asyncio
async def test_bot_tokens_are_long_random_and_stored_only_as_digests(
    redis: Redis, database: Database
) -> None:
    tokens = [await identity.create_bot_token(database, "mybot") for _ in range(20)]
    assert len(set(tokens)) == 20
    for token in tokens:
        # token_urlsafe(32): 43 characters of base64url, 6 bits each, so 256 bits.
        assert re.fullmatch(r"bot_[A-Za-z0-9_-]{43}", token)
        assert await identity.bot_for_token(database, token) == Account("mybot", PlayerKind.BOT)
    store = await _every_value(redis, database)
    assert not any(token.encode() in store for token in tokens)


@pytest.mark.asyncio
async def test_a_bot_token_never_starts_with_a_dash(
    redis: Redis, monkeypatch: pytest.MonkeyPatch, database: Database
) -> None:
    # One random token in 64 would start with "-", which a command line takes for an option.
    monkeypatch.setattr(identity.secrets, "token_urlsafe", lambda size: "-" + "A" * 42)
    token = await identity.create_bot_token(database, "mybot")
    assert not token.startswith("-")
    assert await identity.bot_for_token(database, token) == Account("mybot", PlayerKind.BOT)


@pytest.mark.asyncio
async def test_a_bot_token_is_refused_for_a_human_name(redis: Redis, database: Database) -> None:
    await identity.create_account(database, "ann", PASSWORD, hasher=FAST)
    with pytest.raises(NameTakenError, match="not a bot"):
        await identity.create_bot_token(database, "ANN")
    with pytest.raises(InvalidNameError):
        await identity.create_bot_token(database, "my bot")


@pytest.mark.asyncio
async def test_a_bot_has_the_owner_it_was_made_with_or_owns_itself(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "Ann", PASSWORD, hasher=FAST)
    await identity.create_bot_token(database, "crawler", owner="ann")
    await identity.create_bot_token(database, "loner")
    await identity.create_bot_token(database, "late")
    await identity.create_bot_token(database, "late", owner="ann")  # it had none: it takes one
    found = await identity.owners(database, ["crawler", "loner", "LATE"])
    assert found == {"crawler": "Ann", "loner": "loner", "LATE": "Ann"}
    await identity.create_account(database, "Bo", PASSWORD, hasher=FAST)
    with pytest.raises(identity.AccountError, match="owned by 'Ann', not 'Bo'"):
        await identity.create_bot_token(database, "crawler", owner="bo")
    with pytest.raises(identity.UnknownAccountError, match="that is not a human account"):
        await identity.create_bot_token(database, "loner", owner="crawler")


@pytest.mark.asyncio
async def test_a_removed_bots_tokens_do_not_pass_to_the_next_owner_of_its_name(
    redis: Redis,
    database: Database,
) -> None:
    token = await identity.create_bot_token(database, "mybot")
    await _remove(database, "mybot")
    assert await identity.bot_for_token(database, token) is None
    fresh = await identity.create_bot_token(database, "MyBot")
    assert await identity.bot_for_token(database, fresh) == Account("MyBot", PlayerKind.BOT)
    assert await identity.bot_for_token(database, token) is None
    await _remove(database, "mybot")
    await identity.create_account(database, "mybot", PASSWORD, hasher=FAST)
    assert await identity.bot_for_token(database, fresh) is None


@pytest.mark.asyncio
async def test_a_bot_account_with_a_password_can_also_have_tokens(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "Crawler", PASSWORD, PlayerKind.BOT, hasher=FAST)
    token = await identity.create_bot_token(database, "crawler")
    crawler = Account("Crawler", PlayerKind.BOT)
    assert await identity.bot_for_token(database, token) == crawler
    assert await identity.authenticate(database, "crawler", PASSWORD, hasher=FAST) == crawler


@pytest.mark.asyncio
async def test_a_session_resumes_its_account(redis: Redis, database: Database) -> None:
    await identity.create_account(database, "Ann", PASSWORD, hasher=FAST)
    session = await identity.open_session(redis, database, "ann")
    other = await identity.open_session(redis, database, "ANN")
    assert session != other
    assert len(session) >= 43
    assert await identity.resume_session(redis, database, session) == Account(
        "Ann", PlayerKind.HUMAN
    )
    assert await identity.resume_session(redis, database, other) == Account("Ann", PlayerKind.HUMAN)
    assert await identity.resume_session(redis, database, session[:-1]) is None
    assert await identity.resume_session(redis, database, "") is None
    assert session.encode() not in await _every_value(redis, database)


@pytest.mark.asyncio
async def test_a_removed_accounts_sessions_do_not_pass_to_the_next_owner_of_its_name(
    redis: Redis,
    database: Database,
) -> None:
    await identity.create_account(database, "ann", PASSWORD, hasher=FAST)
    session = await identity.open_session(redis, database, "ann")
    await _remove(database, "ann")
    await identity.create_account(database, "Ann", "another password", hasher=FAST)
    assert await identity.resume_session(redis, database, session) is None
    fresh = await identity.open_session(redis, database, "ann")
    assert await identity.resume_session(redis, database, fresh) == Account("Ann", PlayerKind.HUMAN)


@pytest.mark.asyncio
async def test_a_session_for_no_account_is_refused(redis: Redis, database: Database) -> None:
    with pytest.raises(UnknownAccountError, match="no account 'nobody'"):
        await identity.open_session(redis, database, "nobody")
    with pytest.raises(UnknownAccountError):
        await identity.open_session(redis, database, "")


@pytest.mark.asyncio
async def test_an_unused_session_expires(redis: Redis, database: Database) -> None:
    await identity.create_account(database, "ann", PASSWORD, hasher=FAST)
    ttl = timedelta(seconds=3 * TICK)
    session = await identity.open_session(redis, database, "ann", ttl=ttl)
    await asyncio.sleep(4 * TICK)
    assert await identity.resume_session(redis, database, session, ttl=ttl) is None


@pytest.mark.asyncio
async def test_resuming_a_session_extends_its_life(redis: Redis, database: Database) -> None:
    await identity.create_account(database, "ann", PASSWORD, hasher=FAST)
    ttl = timedelta(hours=1)
    session = await identity.open_session(redis, database, "ann", ttl=ttl)
    key = identity.SESSION_KEY.format(identity.token_digest(session))
    # Its life nearly spent (as after an hour), each resumption starts it again whole: told by
    # its expiry, not by waiting, which a loaded machine's stalls would decide.
    for _ in range(3):
        await redis.pexpire(key, 500)
        assert await identity.resume_session(redis, database, session, ttl=ttl) is not None
        assert await redis.pttl(key) > 3_500_000
    await redis.pexpire(key, 1)
    await asyncio.sleep(0.05)
    assert await identity.resume_session(redis, database, session, ttl=ttl) is None


@pytest.mark.asyncio
async def test_guests_get_distinct_names(redis: Redis, database: Database) -> None:
    guests = await asyncio.gather(*(identity.new_guest(redis) for _ in range(50)))
    names = {guest.name for guest in guests}
    assert len(names) == 50
    for guest in guests:
        assert re.fullmatch(r"guest-[0-9]+", guest.name)
        assert guest.kind is PlayerKind.GUEST
        assert guest.rating is None
        assert await identity.find(redis, database, guest.name) == guest


@pytest.mark.asyncio
async def test_a_guest_name_left_from_before_is_not_given_again(
    redis: Redis, database: Database
) -> None:
    first = await identity.new_guest(redis)
    # As if the counter had been lost while the guest stayed.
    await redis.delete(identity.GUEST_COUNTER_KEY)
    second = await identity.new_guest(redis)
    assert second.name != first.name
    assert await identity.find(redis, database, first.name) == first


@pytest.mark.asyncio
async def test_a_guest_lives_while_its_session_is_used(redis: Redis, database: Database) -> None:
    ttl = timedelta(seconds=4 * TICK)
    guest = await identity.new_guest(redis, ttl=ttl)
    session = await identity.open_session(redis, database, guest.name, ttl=ttl)
    for _ in range(3):
        await asyncio.sleep(2 * TICK)
        assert await identity.resume_session(redis, database, session, ttl=ttl) == guest
    await asyncio.sleep(5 * TICK)
    assert await identity.resume_session(redis, database, session, ttl=ttl) is None
    assert await identity.find(redis, database, guest.name) is None
    assert await identity.authenticate(database, guest.name, "", hasher=FAST) is None


@pytest.mark.asyncio
async def test_a_guest_has_no_password_and_no_rating(redis: Redis, database: Database) -> None:
    guest = await identity.new_guest(redis)
    assert await identity.find(redis, database, guest.name) == Account(guest.name, PlayerKind.GUEST)
    assert await identity.authenticate(database, guest.name, "", hasher=FAST) is None


@pytest.mark.asyncio
async def test_an_account_logs_in_with_its_amazons_rating_in_whole_points(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "ann", PASSWORD, hasher=FAST)
    token = await identity.create_bot_token(database, "Crawler")
    assert (await identity.find(redis, database, "ann")) == Account("ann", PlayerKind.HUMAN, None)
    await store_rating(database, "ann", "amazons", 1712.6)
    await store_rating(database, "ann", "toy", 1900.0)  # another game's: not a login's
    await store_rating(database, "crawler", "amazons", 1499.4)
    ann = await identity.authenticate(database, "ann", PASSWORD, hasher=FAST)
    assert ann == Account("ann", PlayerKind.HUMAN, 1713)
    assert ann.player() == Player("ann", PlayerKind.HUMAN, 1713)
    assert await identity.find(redis, database, "ANN") == ann
    session = await identity.open_session(redis, database, ann)
    assert await identity.resume_session(redis, database, session) == ann
    crawler = await identity.bot_for_token(database, token)
    assert crawler == Account("Crawler", PlayerKind.BOT, 1499)


@pytest.mark.asyncio
async def test_clients_that_decode_responses_see_the_same_accounts(
    redis: Redis, redis_url: str, database: Database
) -> None:
    await identity.create_account(database, "Ann", PASSWORD, hasher=FAST)
    token = await identity.create_bot_token(database, "bot")
    decoding = from_url(redis_url, decode_responses=True)
    try:
        ann = Account("Ann", PlayerKind.HUMAN)
        assert await identity.authenticate(database, "ann", PASSWORD, hasher=FAST) == ann
        assert await identity.bot_for_token(database, token) == Account("bot", PlayerKind.BOT)
        session = await identity.open_session(decoding, database, "ann")
        assert await identity.resume_session(redis, database, session) == ann
    finally:
        await decoding.aclose()


@pytest.mark.asyncio
async def test_a_house_bot_name_cannot_be_registered(redis: Redis, database: Database) -> None:
    with pytest.raises(InvalidNameError, match="house bot"):
        await identity.create_account(database, "Greedy", "pw")


@pytest.mark.asyncio
async def test_bot_tokens_are_listed_by_id_and_bot(redis: Redis, database: Database) -> None:
    first = await identity.create_bot_token(database, "MyBot")
    second = await identity.create_bot_token(database, "mybot")
    other = await identity.create_bot_token(database, "Crawler")
    listed = await identity.list_bot_tokens(database)
    assert [(t.id, t.bot) for t in listed] == [
        (identity.token_id(other), "Crawler"),
        (identity.token_id(first), "MyBot"),
        (identity.token_id(second), "MyBot"),
    ]
    assert all(re.fullmatch(r"[0-9a-f]{12}", t.id) for t in listed)
    assert all(t.created is not None for t in listed)
    # The id is part of a digest: it does not lead back to the token.
    assert all(t.id not in token for t in listed for token in (first, second, other))


@pytest.mark.asyncio
async def test_a_revoked_token_and_its_sessions_no_longer_log_in(
    redis: Redis, database: Database
) -> None:
    revoked = await identity.create_bot_token(database, "mybot")
    kept = await identity.create_bot_token(database, "mybot")
    session = await identity.open_session(
        redis, database, "mybot", origin=identity.token_digest(revoked)
    )
    other_session = await identity.open_session(
        redis, database, "mybot", origin=identity.token_digest(kept)
    )
    assert await identity.session_origin(redis, session) == identity.token_digest(revoked)
    gone = await identity.revoke_bot_token(redis, database, identity.token_id(revoked))
    assert (gone.id, gone.bot) == (identity.token_id(revoked), "mybot")
    assert await identity.bot_for_token(database, revoked) is None
    assert await identity.resume_session(redis, database, session) is None
    assert await identity.bot_for_token(database, kept) == Account("mybot", PlayerKind.BOT)
    assert await identity.resume_session(redis, database, other_session) == Account(
        "mybot", PlayerKind.BOT
    )
    assert [t.id for t in await identity.list_bot_tokens(database)] == [identity.token_id(kept)]


@pytest.mark.asyncio
async def test_revoking_an_unknown_or_ambiguous_id_names_the_problem(
    redis: Redis, database: Database
) -> None:
    with pytest.raises(identity.UnknownTokenError, match="no bot token with id 0123456789ab"):
        await identity.revoke_bot_token(redis, database, "0123456789ab")
    with pytest.raises(identity.UnknownTokenError, match="a token id is 12 hex digits"):
        await identity.revoke_bot_token(redis, database, "xyz")
