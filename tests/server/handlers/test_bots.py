"""A person's own bots and tokens, with only what the bots' handlers are given: their services
on a real Redis and database, and a stand-in for the connection that keeps the replies. Each
way one person might reach another's bot or token is tried, and refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from redis.asyncio import Redis

from server import identity
from server.db import Database
from server.games import GameStore
from server.handlers.bots import (
    BotsServices,
    create_bot,
    create_token,
    list_bots,
    list_tokens,
    revoke_token,
)
from server.protocol import ErrorCode, Event, Player, PlayerKind, ProtocolError
from server.protocol.bots import (
    BotList,
    CreateBot,
    CreateToken,
    ListBots,
    ListTokens,
    RevokeToken,
    TokenCreated,
    TokenList,
)

PASSWORD = "a long and unusual pass phrase 77"


@dataclass
class Standin:
    """A connection logged in as `user`, keeping what it is sent."""

    user: Player
    replies: list[Event] = field(default_factory=list)

    def me(self) -> Player:
        return self.user

    def reply(self, event: Event) -> None:
        self.replies.append(event)

    def last(self) -> Event:
        return self.replies[-1]


async def _person(database: Database, name: str) -> Standin:
    await identity.create_account(database, name, PASSWORD)
    return Standin(Player(name, PlayerKind.HUMAN))


def _services(redis: Redis, database: Database) -> BotsServices:
    return BotsServices(redis, GameStore(redis, database=database))


async def _refused(coroutine: object) -> ProtocolError:
    with pytest.raises(ProtocolError) as refused:
        await coroutine  # type: ignore[misc]
    return refused.value


@pytest.mark.asyncio
async def test_a_person_makes_a_bot_they_own_and_a_token_that_logs_it_in(
    redis: Redis, database: Database
) -> None:
    services, alice = _services(redis, database), await _person(database, "alice")
    await create_bot(services, alice, CreateBot("AliceBot", id=3))
    reply = alice.last()
    assert isinstance(reply, BotList)
    assert reply.id == 3
    [bot] = reply.bots
    assert (bot.name, bot.tokens) == ("AliceBot", 0)
    assert bot.created is not None
    assert await identity.owner_of(database, "alicebot") == "alice"

    await create_token(services, alice, CreateToken("alicebot", id=4))
    made = alice.last()
    assert isinstance(made, TokenCreated)
    assert made.id == 4
    assert (made.bot, made.token_id) == ("AliceBot", identity.token_id(made.token))
    account = await identity.bot_for_token(database, made.token)
    assert account is not None
    assert account.name == "AliceBot"
    # The database keeps the digest, never the token.
    assert made.token not in str(await database_rows(database))

    await list_tokens(services, alice, ListTokens("ALICEBOT", id=5))
    listed = alice.last()
    assert isinstance(listed, TokenList)
    assert [t.token_id for t in listed.tokens] == [made.token_id]
    assert made.token not in repr(listed)
    await list_bots(services, alice, ListBots(id=6))
    assert [(b.name, b.tokens) for b in alice.last().bots] == [("AliceBot", 1)]  # type: ignore[attr-defined]

    await revoke_token(services, alice, RevokeToken(made.token_id, id=7))
    after = alice.last()
    assert isinstance(after, TokenList)
    assert (after.bot, after.tokens, after.id) == (
        "AliceBot",
        (),
        7,
    )
    assert await identity.bot_for_token(database, made.token) is None


async def database_rows(database: Database) -> list[object]:
    from sqlalchemy import select

    from server.db.schema import ACCOUNTS, BOT_TOKENS

    async with database.reading() as connection:
        return [
            *(await connection.execute(select(BOT_TOKENS))).all(),
            *(await connection.execute(select(ACCOUNTS))).all(),
        ]


@pytest.mark.asyncio
async def test_guests_and_bots_make_no_bots_nor_tokens(redis: Redis, database: Database) -> None:
    services = _services(redis, database)
    token = await identity.create_bot_token(database, "somebot")
    for user in (Player("guest-1", PlayerKind.GUEST), Player("somebot", PlayerKind.BOT)):
        connection = Standin(user)
        for call in (
            create_bot(services, connection, CreateBot("newbot")),
            list_bots(services, connection, ListBots()),
            create_token(services, connection, CreateToken("somebot")),
            list_tokens(services, connection, ListTokens("somebot")),
            revoke_token(services, connection, RevokeToken(identity.token_id(token))),
        ):
            refused = await _refused(call)
            assert refused.code is ErrorCode.FORBIDDEN
            assert str(refused).startswith("only a person's account makes and keeps bots")
    assert await identity.bot_for_token(database, token) is not None
    assert await identity.find(redis, database, "newbot") is None


@pytest.mark.asyncio
async def test_a_bots_name_follows_the_rules_of_names_and_is_not_taken_in_any_case(
    redis: Redis, database: Database
) -> None:
    services, alice = _services(redis, database), await _person(database, "alice")
    await _person(database, "Bob")
    for name, code, message in (
        ("bob", ErrorCode.CONFLICT, "user name 'bob' is taken"),
        ("ALICE", ErrorCode.CONFLICT, "user name 'ALICE' is taken"),
        (
            "guest-9",
            ErrorCode.BAD_FIELD,
            "user name 'guest-9': names starting 'guest-' are for guests",
        ),
        ("no spaces", ErrorCode.BAD_FIELD, "user name 'no spaces' may only have letters"),
    ):
        refused = await _refused(create_bot(services, alice, CreateBot(name)))
        assert refused.code is code
        assert str(refused).startswith(message)
    assert await identity.owned_bots(database, "alice") == []
    bob = await identity.find(redis, database, "bob")
    assert bob is not None
    assert bob.kind is PlayerKind.HUMAN
    assert await identity.owner_of(database, "bob") is None


@pytest.mark.asyncio
async def test_a_person_has_at_most_so_many_bots_and_a_bot_so_many_live_tokens(
    redis: Redis, database: Database
) -> None:
    services, alice = _services(redis, database), await _person(database, "alice")
    for n in range(identity.BOTS_PER_OWNER):
        await create_bot(services, alice, CreateBot(f"bot{n}"))
    refused = await _refused(create_bot(services, alice, CreateBot("onemore")))
    assert (refused.code, str(refused)) == (
        ErrorCode.CONFLICT,
        f"you have {identity.BOTS_PER_OWNER} bots, the most one account may have "
        f"({identity.BOTS_PER_OWNER})",
    )
    assert await identity.find(redis, database, "onemore") is None

    for _ in range(identity.TOKENS_PER_BOT):
        await create_token(services, alice, CreateToken("bot0"))
    refused = await _refused(create_token(services, alice, CreateToken("bot0")))
    assert (refused.code, str(refused)) == (
        ErrorCode.CONFLICT,
        f"bot bot0 has {identity.TOKENS_PER_BOT} live tokens, the most a bot may have "
        f"({identity.TOKENS_PER_BOT}): revoke one first",
    )
    first = alice.replies[identity.BOTS_PER_OWNER]
    assert isinstance(first, TokenCreated)
    await revoke_token(services, alice, RevokeToken(first.token_id))
    await create_token(services, alice, CreateToken("bot0"))  # a revoked token frees its place
    assert isinstance(alice.last(), TokenCreated)


@pytest.mark.asyncio
async def test_nobody_lists_takes_or_revokes_another_persons_bot_or_token(
    redis: Redis, database: Database
) -> None:
    services = _services(redis, database)
    alice, mallory = await _person(database, "alice"), await _person(database, "mallory")
    await create_bot(services, alice, CreateBot("alicebot"))
    await create_token(services, alice, CreateToken("alicebot"))
    made = alice.last()
    assert isinstance(made, TokenCreated)
    # A bot the operator made without an owner is nobody's to take either.
    orphan = await identity.create_bot_token(database, "orphanbot")

    for bot in ("alicebot", "AliceBot", "orphanbot", "nosuchbot"):
        for call in (
            create_token(services, mallory, CreateToken(bot)),
            list_tokens(services, mallory, ListTokens(bot)),
        ):
            refused = await _refused(call)
            assert (refused.code, str(refused)) == (
                ErrorCode.NOT_FOUND,
                f"you have no bot {bot!r}; list_bots lists yours",
            )
    for token_id in (made.token_id, identity.token_id(orphan), "0123456789ab"):
        refused = await _refused(revoke_token(services, mallory, RevokeToken(token_id)))
        assert (refused.code, str(refused)) == (
            ErrorCode.NOT_FOUND,
            f"no bot token of your bots with id {token_id}; list your bots' tokens",
        )
    refused = await _refused(revoke_token(services, mallory, RevokeToken("not-an-id")))
    assert refused.code is ErrorCode.NOT_FOUND
    refused = await _refused(create_bot(services, mallory, CreateBot("ALICEBOT")))
    assert (refused.code, str(refused)) == (ErrorCode.CONFLICT, "user name 'ALICEBOT' is taken")

    await list_bots(services, mallory, ListBots())
    assert mallory.last() == BotList(())
    assert await identity.bot_for_token(database, made.token) is not None
    assert await identity.bot_for_token(database, orphan) is not None
    assert await identity.owner_of(database, "alicebot") == "alice"
    assert await identity.owner_of(database, "orphanbot") is None
    assert len(await identity.list_bot_tokens(database)) == 2


def test_the_docs_quote_the_limits_in_the_code() -> None:
    root = Path(__file__).resolve().parents[3]
    protocol = (root / "docs" / "protocol.md").read_text()
    assert (
        f"has at most **{identity.BOTS_PER_OWNER}** bots, a bot at most "
        f"**{identity.TOKENS_PER_BOT}** live\ntokens" in protocol
    )
    getting_started = (root / "docs" / "bot-protocol.md").read_text()
    assert (
        f"A person has up to {identity.BOTS_PER_OWNER} bots and a bot up to "
        f"{identity.TOKENS_PER_BOT} live tokens" in getting_started
    )


@pytest.mark.asyncio
async def test_an_account_gone_since_its_login_is_refused_in_one_line(
    redis: Redis, database: Database
) -> None:
    from sqlalchemy import delete

    from server.db.schema import ACCOUNTS

    services, alice = _services(redis, database), await _person(database, "alice")
    async with database.writing() as connection:
        await connection.execute(delete(ACCOUNTS).where(ACCOUNTS.c.name_key == "alice"))
    for call in (
        create_bot(services, alice, CreateBot("alicebot")),
        list_bots(services, alice, ListBots()),
        create_token(services, alice, CreateToken("alicebot")),
        list_tokens(services, alice, ListTokens("alicebot")),
        revoke_token(services, alice, RevokeToken("0123456789ab")),
    ):
        refused = await _refused(call)
        assert (refused.code, str(refused)) == (
            ErrorCode.FORBIDDEN,
            "there is no human account 'alice' to own bots",
        )
    assert await identity.find(redis, database, "alicebot") is None
