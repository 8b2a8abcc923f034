"""A game's page in a real headless Chromium, in the moments around play: an address of no game,
the steps of a move said as it is made, the move field's example, the resign confirmation and
its way back, a move made offline, the end of a game from the player's side with a rematch and
a new game like it, and the spectators counted as they come and go."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from tests.server.endpoint import serving
from tests.web.test_pages import WAIT_MS, http_url, open_page

SCREEN = {"desktop": (1280, 800), "phone": (390, 844)}


async def shoot(page: Page, path: Path) -> None:
    """Screenshots of `page` at desktop and phone widths: `path` with `{size}` filled in."""
    for size, (width, height) in SCREEN.items():
        await page.set_viewport_size({"width": width, "height": height})
        await page.screenshot(path=str(path).format(size=size), full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 800})


@pytest.mark.asyncio
async def test_an_unknown_game_gets_a_plain_not_found_page_with_the_way_back(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, f"{http_url(url)}/game/nosuch")
        found = page.locator("#not-found")
        await expect(found).to_contain_text(
            "There is no game nosuch on this server", timeout=WAIT_MS
        )
        # None of a game's page is left: no board, no controls, no review to press.
        for part in ("#board", "#controls", "#review", "#moves", "#download-record"):
            await expect(page.locator(part)).to_have_count(0)
        await shoot(page, artifacts / "game-not-found-{size}.png")
        await page.click("#back-to-lobby")
        await expect(page.locator("#create-seek")).to_be_visible()
        assert page.url == http_url(url) + "/"
        assert errors == []
