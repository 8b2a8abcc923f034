"""The lobby in a real headless Chromium: which house bots are ready and which are still being
prepared; a house bot that is not ready yet is waited for, with the wait shown and asked again
until its game starts; the bot and challenge forms say whose terms they take; and "Your games"
lists each of the user's games with its opponent and state."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import msgpack
import pytest
from playwright.async_api import Browser, WebSocketRoute, expect
from redis.asyncio import Redis

from server.clock import now_ms
from server.protocol import ColourPreference, Seek, SeekAdded, TimeControl
from server.readiness import WorkerBots
from tests.server.endpoint import guest, house_worker, serving
from tests.web.test_game_page import seek_taken, shoot
from tests.web.test_pages import WAIT_MS, http_url, open_page
from tests.web.test_play import online_name

BOT_WAIT_MS = 90_000  # the worker's bots compiled (or loaded from the cache), then a retry


@pytest.mark.asyncio
async def test_a_house_bot_not_ready_yet_is_waited_for_and_its_game_opens_when_it_is(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        await expect(page.locator("#bot option")).not_to_have_count(0)
        await page.select_option("#setup", "6x6")
        await page.select_option("#bot", "random")
        await page.click("#play-bot")
        waiting = page.locator("#bot-waiting")
        await expect(waiting).to_contain_text("Waiting for random", timeout=WAIT_MS)
        await expect(waiting).to_contain_text(re.compile(r"asking again in \d+ s"))
        await expect(page.locator("#lobby-message")).to_be_hidden()
        await shoot(page, artifacts / "lobby-bot-waiting-{size}.png")
        async with house_worker(redis, "late-worker"):
            await expect(page).to_have_url(
                re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=BOT_WAIT_MS
            )
            await expect(page.locator("#board rect.square")).to_have_count(36, timeout=WAIT_MS)
        assert errors == []


@pytest.mark.asyncio
async def test_waiting_for_a_house_bot_can_be_cancelled(
    browser: Browser, redis: Redis, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/", "phone")
        await online_name(page)
        await expect(page.locator("#bot option")).not_to_have_count(0)
        await page.click("#play-bot")
        waiting = page.locator("#bot-waiting")
        await expect(waiting).to_contain_text("asking again in", timeout=WAIT_MS)
        await page.click("#bot-waiting-cancel")
        await expect(waiting).to_be_hidden()
        # The lobby goes on following the house bots' readiness after a cancelled wait.
        await WorkerBots(("random",), ("greedy",), now_ms() + 120_000).tell(redis, "late-worker")
        await expect(page.locator("#bot-readiness")).to_have_text(
            "House bots: 1 of 2 ready (preparing: greedy)", timeout=WAIT_MS
        )
        assert errors == []


@pytest.mark.asyncio
async def test_the_lobby_says_whose_terms_a_bot_takes_and_lists_your_games_with_their_state(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        assert black.user is not None
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        await expect(page.locator("#setup option")).not_to_have_count(0)
        await page.select_option("#setup", "6x6")
        await page.select_option("#time", "300+0")
        await page.select_option("#colour", "white")
        for note in ("#bot-terms", "#challenge-terms"):
            await expect(page.locator(note)).to_have_text(
                "On the terms of New game above: 6x6 · 5+0 · you play white"
            )
        seek = Seek(TimeControl(300, 0), setup="6x6", colour=ColourPreference.BLACK)
        game_id = await seek_taken(page, black, seek)
        await page.click(".back a")
        row = page.locator(f'#my-games [data-game="{game_id}"]')
        await expect(row).to_contain_text(f"vs {black.user.name}", timeout=WAIT_MS)
        await expect(row).to_contain_text("6x6 · 5+0 · casual · you play white")
        await expect(row).to_contain_text("your move (move 1)")
        await shoot(page, artifacts / "lobby-your-games-{size}.png")
        await row.locator("a.watch").click()
        await expect(page).to_have_url(re.compile(f"/game/{game_id}$"))
        assert errors == []
        await black.close()


@pytest.mark.asyncio
async def test_the_lobby_shows_which_house_bots_are_ready_and_waits_for_one_being_prepared(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path
) -> None:
    until = now_ms() + 120_000
    async with serving(redis_url) as url:
        # A worker that says random is ready and greedy still being prepared.
        await WorkerBots(("random",), ("greedy",), until).tell(redis, "preparing-worker")
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        readiness = page.locator("#bot-readiness")
        await expect(readiness).to_have_text(
            "House bots: 1 of 2 ready (preparing: greedy)", timeout=WAIT_MS
        )
        await expect(page.locator('#bot option[value="greedy"]')).to_have_text("greedy (preparing)")
        await expect(page.locator('#bot option[value="random"]')).to_have_text("random")
        await expect(page.locator('#bot option[value="invader"]')).to_have_text(
            "invader (no worker)"
        )
        await page.select_option("#setup", "6x6")
        await page.select_option("#bot", "greedy")
        await page.click("#play-bot")
        waiting = page.locator("#bot-waiting")
        await expect(waiting).to_contain_text(
            "Waiting for greedy: greedy is still being prepared", timeout=WAIT_MS
        )
        await shoot(page, artifacts / "lobby-bot-preparing-{size}.png")
        # Ready now: the game starts (asked again at once, or at the countdown's end).
        await WorkerBots(("random", "greedy"), (), until).tell(redis, "preparing-worker")
        await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
        assert errors == []


@pytest.mark.asyncio
async def test_a_seek_added_while_the_seek_list_is_on_its_way_stays_listed(
    browser: Browser, redis_url: str
) -> None:
    # The server read the seek list for the page, then a seek was added and its news reached
    # the page before the (older) list did. Here the list is held back until the news is in.
    page = await browser.new_page()
    sockets: list[WebSocketRoute] = []
    held: list[bytes] = []
    news = asyncio.Event()

    def route(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        sockets.append(socket)

        def from_server(message: bytes | str) -> None:
            kind = msgpack.unpackb(message).get("t") if isinstance(message, bytes) else None
            if kind == "seek_list" and not news.is_set():
                assert isinstance(message, bytes)
                held.append(message)
                return
            socket.send(message)
            if kind == "seek_added":
                news.set()

        server.on_message(from_server)

    async with serving(redis_url) as url:
        await page.route_web_socket(re.compile(r"^ws://"), route)
        await page.goto(http_url(url) + "/")
        await online_name(page)
        seeker = await guest(url)
        first = await seeker.request(Seek(TimeControl(300, 0), setup="6x6"), SeekAdded)
        await asyncio.wait_for(news.wait(), WAIT_MS / 1000)
        assert held, "the seek list was not held back"
        for message in held:
            sockets[-1].send(message)
        # Messages are handled in order: once a later seek shows, the old list has been read.
        second = await seeker.request(Seek(TimeControl(180, 2), setup="6x6"), SeekAdded)
        for added in (second, first):
            row = page.locator(f'#seeks [data-seek="{added.seek.seek_id}"]')
            await expect(row).to_have_count(1, timeout=WAIT_MS)
        await seeker.close()
