"""Making an account from the web page, in a real headless Chromium: the form beside sign-in,
each refusal in one line beside it (the page goes on as the guest it was), the new account
signed in; no form where the server's sign-ups are closed; a guest in a game told to finish
it first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from server.db import Database
from server.identity import create_account
from server.protocol import Seek, TimeControl
from tests.server.endpoint import guest, serving
from tests.web.test_game_page import seek_taken, shoot
from tests.web.test_pages import WAIT_MS, http_url, open_page
from tests.web.test_play import online_name

STRONG = "plum-kettle-harbour"


async def _sign_up(page: Page, user: str, password: str) -> None:
    await page.fill("#sign-up-name", user)
    await page.fill("#sign-up-password", password)
    await page.click("#sign-up button[type=submit]")


@pytest.mark.asyncio
async def test_a_newcomer_makes_an_account_from_the_lobby(
    browser: Browser, redis_url: str, database: Database, artifacts: Path
) -> None:
    await create_account(database, "carol", "carols-own-password")
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/")
        was = await online_name(page)
        await page.click("#sign-up-open")
        problem = page.locator("#sign-up-problem")
        await _sign_up(page, "zed", "password1")
        await expect(problem).to_have_text(
            "the password is one of the 10,000 most common passwords; choose another",
            timeout=WAIT_MS,
        )
        # Refused, the page goes on as the guest it was.
        await expect(page.locator("#connection")).to_have_text(f"online as {was}", timeout=WAIT_MS)
        await _sign_up(page, "Carol", STRONG)
        await expect(problem).to_have_text("user name 'Carol' is taken", timeout=WAIT_MS)
        await _sign_up(page, "guest-9", STRONG)
        await expect(problem).to_have_text(
            "user name 'guest-9': names starting 'guest-' are for guests", timeout=WAIT_MS
        )
        await shoot(page, artifacts / "sign-up-refused-{size}.png")
        await _sign_up(page, "Zed", STRONG)
        await expect(page.locator("#connection")).to_have_text("online as Zed", timeout=WAIT_MS)
        await expect(page.locator("#who-am-i")).to_have_text(re.compile(r"^Playing as Zed"))
        await expect(page.locator("#sign-up-box")).to_be_hidden()
        await expect(page.locator("#rated")).to_be_enabled()
        assert errors == []


@pytest.mark.asyncio
async def test_no_form_where_sign_ups_are_closed(
    browser: Browser, redis_url: str, database: Database
) -> None:
    async with serving(redis_url, signups=False) as url:
        page, errors = await open_page(browser, http_url(url) + "/", "phone")
        await online_name(page)
        await expect(page.locator("#sign-in-open")).to_be_visible()
        await expect(page.locator("#sign-up-box")).to_be_hidden()
        assert errors == []


@pytest.mark.asyncio
async def test_a_guest_in_a_game_is_told_to_finish_it_first(
    browser: Browser, redis_url: str, database: Database
) -> None:
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/")
        name = await online_name(page)
        other = await guest(url)
        await seek_taken(page, other, Seek(TimeControl(300, 0), setup="6x6"))
        await page.click("text=← Lobby")
        await expect(page.locator("#my-games li")).to_have_count(1, timeout=WAIT_MS)
        await page.click("#sign-up-open")
        await _sign_up(page, "yves", STRONG)
        await expect(page.locator("#sign-up-problem")).to_have_text(
            f"You are playing as {name}: finish or leave your game first"
        )
        await expect(page.locator("#connection")).to_have_text(f"online as {name}")
        await other.close()
        assert errors == []
