"""Revoking a bot token over real websockets and a real Redis: a connection logged in with it
is closed at once and cannot come back; connections with the bot's other tokens play on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from clients import ArenaClient, ArenaError
from server import identity
from server.app import Arena
from server.db import Database
from server.hub import user_channel
from server.protocol import ErrorCode, ListGames
from tests.server.endpoint import arena_serving

TIMEOUT = 20  # seconds any one test may take


@pytest_asyncio.fixture
async def arena(
    redis: Redis, redis_url: str, database: Database
) -> AsyncIterator[tuple[Arena, str]]:
    async with arena_serving(redis_url) as served:
        yield served


async def _bot(url: str, token: str) -> ArenaClient:
    client = await ArenaClient.connect(url)
    await client.bot_login(token)
    return client


@pytest.mark.asyncio
async def test_a_revoked_token_ends_the_connections_that_use_it_at_once(
    arena: tuple[Arena, str], redis: Redis, database: Database
) -> None:
    server, url = arena
    revoked = await identity.create_bot_token(database, "mybot")
    kept = await identity.create_bot_token(database, "mybot")
    async with asyncio.timeout(TIMEOUT):
        by_login = await _bot(url, revoked)
        by_resume = await ArenaClient.connect(url)
        assert by_login.session is not None
        await by_resume.resume(by_login.session)
        other = await _bot(url, kept)
        while server.hub.followers(user_channel("mybot")) < 3:
            await asyncio.sleep(0.01)

        await identity.revoke_bot_token(redis, database, identity.token_id(revoked))
        for client in (by_login, by_resume):
            await client.wait_closed()
            assert client.socket.close_code == 1008
            assert client.socket.close_reason == "bot token revoked"
        await other.request(ListGames())  # the bot's other token still works
        assert not other.closed

        again = await ArenaClient.connect(url)
        for attempt in (again.bot_login(revoked), again.resume(by_login.session)):
            with pytest.raises(ArenaError) as refused:
                await attempt
            assert refused.value.code is ErrorCode.BAD_CREDENTIALS
        await again.close()
        await other.close()


@pytest.mark.asyncio
async def test_a_token_revoked_while_its_login_is_under_way_is_refused(
    arena: tuple[Arena, str], redis: Redis, monkeypatch: pytest.MonkeyPatch, database: Database
) -> None:
    """Revoked after the server found the token and before the connection followed the bot's
    news: the news of the revocation is missed, so the login itself must see it."""
    _, url = arena
    token = await identity.create_bot_token(database, "mybot")
    found = identity.bot_for_token

    async def found_then_revoked(db: Database, given: str) -> identity.Account | None:
        account = await found(db, given)
        await identity.revoke_bot_token(redis, database, identity.token_id(given))
        return account

    monkeypatch.setattr(identity, "bot_for_token", found_then_revoked)
    async with asyncio.timeout(TIMEOUT):
        client = await ArenaClient.connect(url)
        with pytest.raises(ArenaError) as refused:
            await client.bot_login(token)
        assert refused.value.code is ErrorCode.BAD_CREDENTIALS
        assert str(refused.value) == "bad_credentials: unknown bot token: it was revoked"
        await client.close()
