"""Real Redis for the server tests: one private redis-server for the session, and a client on it
emptied before each test."""

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis, from_url

from server.redis_embedded import EmbeddedRedis


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server.url


# Function loop scope (the project default): each test gets a fresh event loop and a client made
# on it, so no connection outlives the loop that opened it.
@pytest_asyncio.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = from_url(redis_url)
    try:
        await client.flushall()
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A data folder with a short path: the private Redis's unix socket path must fit in 107
    bytes, which a pytest tmp_path may not."""
    folder = Path(tempfile.mkdtemp(prefix="arena-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
