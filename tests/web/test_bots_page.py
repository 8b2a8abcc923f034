"""A person's own bots on the web page, in a real headless Chromium against a real server: a
signed-in account makes a bot, makes a token (shown once, and it logs the bot in), lists and
revokes it; a refusal shows the server's words; a guest sees no bots panel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from server import identity
from server.db import Database
from tests.server.endpoint import serving
from tests.web.test_pages import WAIT_MS, http_url, open_page

PASSWORD = "a long and unusual pass phrase 77"


@pytest.mark.asyncio
async def test_a_person_makes_a_bot_and_its_tokens_on_the_page(
    browser: Browser, redis_url: str, artifacts: Path, database: Database
) -> None:
    await identity.create_account(database, "ann", PASSWORD)
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/")
        await expect(page.locator("#connection")).to_contain_text(
            "online as guest", timeout=WAIT_MS
        )
        await expect(page.locator("#bots-panel")).to_be_hidden()

        await page.click("#sign-in-open")
        await page.fill("#sign-in-name", "ann")
        await page.fill("#sign-in-password", PASSWORD)
        await page.click("#sign-in button[type=submit]")
        await expect(page.locator("#connection")).to_have_text("online as ann", timeout=WAIT_MS)
        panel = page.locator("#bots-panel")
        await expect(panel).to_be_visible()
        await expect(page.locator("#my-bots")).to_have_text("No bots yet")

        await page.fill("#new-bot-name", "Ann")
        await page.click("#new-bot-make")
        await expect(page.locator("#bots-message")).to_have_text("user name 'Ann' is taken")
        await page.fill("#new-bot-name", "AnnBot")
        await page.click("#new-bot-make")
        row = page.locator("#my-bots .bot[data-bot='AnnBot']")
        await expect(row).to_contain_text("0 tokens", timeout=WAIT_MS)
        await expect(page.locator("#bots-message")).to_have_text("")
        assert await identity.owner_of(database, "annbot") == "ann"

        await row.locator(".bot-new-token").click()
        shown = page.locator("#new-token-value")
        await expect(shown).to_have_text(re.compile(r"^bot_[A-Za-z0-9_-]{43}$"), timeout=WAIT_MS)
        token = await shown.text_content() or ""
        bot = await identity.bot_for_token(database, token)
        assert bot is not None
        assert bot.name == "AnnBot"
        await expect(row).to_contain_text("1 token")
        token_row = row.locator(f".token[data-token='{identity.token_id(token)}']")
        await expect(token_row).to_contain_text("made ")
        await page.screenshot(path=artifacts / "bots-panel.png", full_page=True)
        await page.set_viewport_size({"width": 390, "height": 844})
        await panel.screenshot(path=artifacts / "bots-panel-phone.png")

        await token_row.locator(".revoke-token").click()
        await expect(row.locator(".tokens")).to_have_text("No live tokens", timeout=WAIT_MS)
        await expect(row).to_contain_text("0 tokens")
        assert await identity.bot_for_token(database, token) is None
        assert errors == []
