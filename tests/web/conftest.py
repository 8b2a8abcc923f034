"""The web client's tests: real Redis (the server tests' fixtures), a real server, and Debian's
Chromium driven by Playwright (never a browser Playwright downloads). Screenshots go to
`test-artifacts/web/` (not kept in git) to be looked at."""

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from tests.server.conftest import redis, redis_url

__all__ = ["artifacts", "browser", "redis", "redis_url"]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Browser]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail(
            "the web client's tests need Debian's chromium on the PATH "
            "(apt-get install chromium; .ci/run installs it)"
        )
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium, headless=True)
        try:
            yield launched
        finally:
            await launched.close()
