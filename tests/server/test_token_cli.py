"""`arena token create|list|revoke --server URL`: a person signed in to a running server makes,
lists and revokes their own bots' tokens from anywhere, over the protocol; a refusal is one
line and exit status 2."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server import identity
from server.db import Database
from tests.server.endpoint import serving

PASSWORD = "a long and unusual pass phrase 77"
COMMAND_SECONDS = 60


@pytest_asyncio.fixture
async def url(redis: Redis, redis_url: str, database: Database) -> AsyncIterator[str]:
    await identity.create_account(database, "alice", PASSWORD)
    await identity.create_account(database, "mallory", PASSWORD)
    async with serving(redis_url) as served:
        yield served


async def _arena(
    *args: str, cwd: Path, user: str = "alice", password: str = PASSWORD
) -> tuple[int, str, str]:
    """`arena ARGS` as a person would run it elsewhere: their name in ARENA_USER, the password
    on stdin (not a terminal, so it is read from there)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_") and k != "REDIS_URL"}
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "server.cli", *args),
        cwd=cwd,
        env={**clean, "ARENA_USER": user},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(COMMAND_SECONDS):
        out, err = await process.communicate(f"{password}\n".encode())
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.asyncio
async def test_a_person_makes_lists_and_revokes_their_bots_tokens_over_the_protocol(
    url: str, tmp_path: Path, database: Database
) -> None:
    status, token, err = await _arena(
        "token", "create", "AliceBot", "--bot", "--server", url, cwd=tmp_path
    )
    assert status == 0, err
    token = token.strip()
    assert token.startswith("bot_")
    assert PASSWORD not in err
    bot = await identity.bot_for_token(database, token)
    assert bot is not None
    assert bot.name == "AliceBot"
    assert await identity.owner_of(database, "alicebot") == "alice"
    status, second, err = await _arena(
        "token", "create", "alicebot", "--bot", "--server", url, cwd=tmp_path
    )
    assert status == 0, err

    status, listed, err = await _arena("token", "list", "--server", url, cwd=tmp_path)
    assert status == 0, err
    ids = [line.split()[0] for line in listed.splitlines()]
    assert ids == [identity.token_id(token), identity.token_id(second.strip())]
    assert all(line.split()[1] == "AliceBot" for line in listed.splitlines())
    assert token not in listed

    status, out, err = await _arena("token", "revoke", ids[0], "--server", url, cwd=tmp_path)
    assert (status, out) == (0, f"revoked bot token {ids[0]} of AliceBot\n"), err
    assert await identity.bot_for_token(database, token) is None
    # Nothing is made on the machine the command ran on.
    assert not (tmp_path / ".arena").exists()


@pytest.mark.asyncio
async def test_refusals_over_the_protocol_are_one_line_and_status_2(
    url: str, tmp_path: Path, database: Database
) -> None:
    kept = await identity.create_bot_token(database, "alicebot", "alice")
    kept_id = identity.token_id(kept)
    for args, user, password, message in (
        (("list",), "alice", "wrong password", "wrong user name or password"),
        (("revoke", kept_id), "mallory", PASSWORD, f"no bot token of your bots with id {kept_id}"),
        (("create", "alicebot", "--bot"), "mallory", PASSWORD, "user name 'alicebot' is taken"),
        (("create", "alicebot", "--bot", "--owner", "x"), "alice", PASSWORD, "--owner is for"),
    ):
        status, out, err = await _arena(
            "token", *args, "--server", url, cwd=tmp_path, user=user, password=password
        )
        assert (status, out) == (2, ""), err
        [line] = err.splitlines()
        assert line.startswith(f"arena token {args[0]}: error: ")
        assert message in line
    status, out, err = await _arena("token", "list", "--server", "ws://127.0.0.1:1", cwd=tmp_path)
    assert (status, out) == (2, "")
    [line] = err.splitlines()
    assert line.startswith("arena token list: error: ")
    assert await identity.bot_for_token(database, kept) is not None
