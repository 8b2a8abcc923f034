"""A person's own account on the web page, in a real headless Chromium against a real server:
a signed-in account changes its password (a wrong old one and a weak new one refused in the
server's words), its other sessions end and this one goes on; it lists its sessions and ends
one; it sees its ratings and a link to its page; a guest sees no account panel."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Dialog, expect

from server import identity
from server.db import Database
from tests.server.db.stored_ratings import store_rating
from tests.server.endpoint import serving
from tests.server.wire import Wire
from tests.web.test_pages import WAIT_MS, http_url, open_page

PASSWORD = "a long and unusual pass phrase 77"
NEW = "another quite unusual phrase 88"


@pytest.mark.asyncio
async def test_a_person_changes_their_password_and_ends_a_session_on_the_page(
    browser: Browser, redis_url: str, artifacts: Path, database: Database
) -> None:
    await identity.create_account(database, "ann", PASSWORD)
    await store_rating(database, "ann", "amazons", 1612.4, 80.0)
    async with serving(redis_url) as url:
        elsewhere = await Wire.connect(url)
        await elsewhere.call("hello", version=1)
        assert (await elsewhere.call("login", user="ann", password=PASSWORD))["t"] == "welcome"
        page, errors = await open_page(browser, http_url(url) + "/")
        await expect(page.locator("#connection")).to_contain_text(
            "online as guest", timeout=WAIT_MS
        )
        await expect(page.locator("#account-panel")).to_be_hidden()

        await page.click("#sign-in-open")
        await page.fill("#sign-in-name", "ann")
        await page.fill("#sign-in-password", PASSWORD)
        await page.click("#sign-in button[type=submit]")
        await expect(page.locator("#connection")).to_have_text("online as ann", timeout=WAIT_MS)
        panel = page.locator("#account-panel")
        await expect(panel).to_be_visible()
        await expect(page.locator("#my-ratings")).to_have_text("amazons1612 ± 80", timeout=WAIT_MS)
        assert await page.get_attribute("#my-page", "href") == "/player/ann"
        sessions = page.locator("#my-sessions .session")
        await expect(sessions).to_have_count(2, timeout=WAIT_MS)
        await expect(sessions.nth(1)).to_contain_text("this one")
        await expect(sessions.nth(0)).to_contain_text("from 127.0.0.1")

        message = page.locator("#account-message")
        # An empty field is the browser's to point out; nothing goes to the server.
        await page.fill("#new-password", NEW)
        await page.click("#change-password-submit")
        missing = "e => e.validity.valueMissing"
        assert await page.locator("#old-password").evaluate(missing)
        await expect(message).to_have_text("")
        await page.fill("#old-password", "not the password")
        await page.fill("#new-password", NEW)
        await page.click("#change-password-submit")
        await expect(message).to_have_text("wrong password: the old one is needed")
        await page.fill("#old-password", PASSWORD)
        await page.fill("#new-password", "short1")
        await page.click("#change-password-submit")
        await expect(message).to_contain_text("at least 8 characters")
        await page.fill("#new-password", "password123")
        await page.click("#change-password-submit")
        await expect(message).to_contain_text("most common passwords")
        await page.screenshot(path=artifacts / "account-panel-refused.png", full_page=True)

        await page.fill("#new-password", NEW)
        await page.click("#change-password-submit")
        await expect(message).to_have_text("Password changed; your other sessions have ended.")
        await elsewhere.wait_closed()
        assert "session ended" in (elsewhere.socket.close_reason or "")
        await expect(sessions).to_have_count(1)
        await expect(sessions.nth(0)).to_contain_text("this one")
        await expect(page.locator("#connection")).to_have_text("online as ann")
        assert await identity.authenticate(database, "ann", NEW) is not None

        # A session from elsewhere, ended from the page.
        other = await Wire.connect(url)
        await other.call("hello", version=1)
        assert (await other.call("login", user="ann", password=NEW))["t"] == "welcome"
        await page.reload()
        await expect(page.locator("#connection")).to_have_text("online as ann", timeout=WAIT_MS)
        await expect(sessions).to_have_count(2, timeout=WAIT_MS)
        await page.screenshot(path=artifacts / "account-panel.png", full_page=True)
        await page.set_viewport_size({"width": 390, "height": 844})
        await panel.screenshot(path=artifacts / "account-panel-phone.png")
        await page.locator("#my-sessions .end-session").click()
        await other.wait_closed()
        await expect(sessions).to_have_count(1, timeout=WAIT_MS)
        assert errors == []


@pytest.mark.asyncio
async def test_a_person_deletes_their_account_on_the_page(
    browser: Browser, redis_url: str, artifacts: Path, database: Database
) -> None:
    await identity.create_account(database, "ann", PASSWORD)
    async with serving(redis_url) as url:
        elsewhere = await Wire.connect(url)
        await elsewhere.call("hello", version=1)
        assert (await elsewhere.call("login", user="ann", password=PASSWORD))["t"] == "welcome"
        page, errors = await open_page(browser, http_url(url) + "/")
        await expect(page.locator("#connection")).to_contain_text(
            "online as guest", timeout=WAIT_MS
        )
        await page.click("#sign-in-open")
        await page.fill("#sign-in-name", "ann")
        await page.fill("#sign-in-password", PASSWORD)
        await page.click("#sign-in button[type=submit]")
        await expect(page.locator("#connection")).to_have_text("online as ann", timeout=WAIT_MS)
        await expect(page.locator("#my-ratings")).to_have_text("No rated games yet")
        message = page.locator("#delete-message")
        asked: list[str] = []

        async def answer(dialog: Dialog) -> None:
            asked.append(dialog.message)
            await (dialog.accept() if len(asked) > 1 else dialog.dismiss())

        page.on("dialog", answer)
        # Not confirmed: nothing is asked of the server.
        await page.fill("#delete-password", PASSWORD)
        await page.click("#delete-account-submit")
        await expect(page.locator("#delete-password")).to_have_value(PASSWORD)
        assert asked == ["Delete the account ann? It cannot log in again."]
        await page.fill("#delete-password", "not the password")
        await page.click("#delete-account-submit")
        await expect(message).to_have_text("wrong password: your password is needed")
        await page.screenshot(path=artifacts / "account-delete-refused.png", full_page=True)
        assert (await elsewhere.call("ping"))["t"] == "pong"

        await page.fill("#delete-password", PASSWORD)
        await page.click("#delete-account-submit")
        await elsewhere.wait_closed()
        assert "account deleted" in (elsewhere.socket.close_reason or "")
        await expect(page.locator("#connection")).to_contain_text(
            "online as guest", timeout=WAIT_MS
        )
        await expect(page.locator("#account-panel")).to_be_hidden()
        assert await identity.authenticate(database, "ann", PASSWORD) is None
        assert errors == []
