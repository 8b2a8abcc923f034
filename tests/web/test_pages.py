"""The web client in a real headless Chromium against a real server: the lobby lists a seek
and the live games as scripted clients make them, a game's page shows its board and its moves
as they are played, and a page of another site is refused the websocket."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from playwright.async_api import Browser, ConsoleMessage, Page, expect

from clients import ArenaClient
from server.protocol import AcceptSeek, GameStarted, PlayMove, Seek, SeekAdded, TimeControl
from tests.server.endpoint import arena_serving, guest, random_game, serving, start_game

SIZES = {"wide": (1280, 800), "phone": (390, 844)}
WAIT_MS = 15_000  # for the page to show what the server sent (the lobby polls games every 5 s)


def http_url(url: str) -> str:
    return url.replace("ws://", "http://")


async def open_page(browser: Browser, url: str, size: str = "wide") -> tuple[Page, list[str]]:
    """A new page at `url` and the console errors it logs (a policy violation is one)."""
    width, height = SIZES[size]
    page = await browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(url)
    return page, errors


def player_of(white: ArenaClient, black: ArenaClient, ply: int) -> ArenaClient:
    """Who makes the move at `ply` (White moves first)."""
    return white if ply % 2 == 0 else black


@pytest.mark.asyncio
async def test_the_lobby_shows_a_seek_and_a_game_whose_moves_appear_live(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/")
        badge = page.locator("#connection")
        await expect(badge).to_contain_text("online as guest", timeout=WAIT_MS)
        await expect(page.locator("#seeks")).to_have_text("No open seeks")

        seeker, taker = await guest(url), await guest(url)
        assert seeker.user is not None
        added = await seeker.request(Seek(TimeControl(600, 5)), SeekAdded)
        seek = page.locator(f'#seeks [data-seek="{added.seek.seek_id}"]')
        await expect(seek).to_contain_text(seeker.user.name, timeout=WAIT_MS)
        await expect(seek).to_contain_text("10x10 · 10+5 · casual")

        started = await taker.request(AcceptSeek(added.seek.seek_id), GameStarted)
        await expect(seek).to_have_count(0, timeout=WAIT_MS)
        row = page.locator(f'#games [data-game="{started.game_id}"]')
        await expect(row.locator(".who")).to_have_text(
            f"{started.white.name} \N{EN DASH} {started.black.name}", timeout=WAIT_MS
        )
        # The names lead to the players' pages, Watch to the game.
        for name in (started.white.name, started.black.name):
            player = row.get_by_role("link", name=name, exact=True)
            await expect(player).to_have_attribute("href", f"/player/{name}")
        link = row.get_by_role("link", name="Watch")
        await expect(link).to_have_attribute("href", f"/game/{started.game_id}")
        another = await taker.request(Seek(TimeControl(180, 2), setup="6x6"), SeekAdded)
        await expect(page.locator(f'#seeks [data-seek="{another.seek.seek_id}"]')).to_contain_text(
            "6x6 · 3+2 · casual", timeout=WAIT_MS
        )
        for size in SIZES:
            width, height = SIZES[size]
            await page.set_viewport_size({"width": width, "height": height})
            await page.screenshot(path=artifacts / f"lobby-{size}.png", full_page=True)
        await page.set_viewport_size({"width": 1280, "height": 800})
        await link.click()
        await expect(page).to_have_url(f"{http_url(url)}/game/{started.game_id}")
        await expect(page.locator("#board rect.square")).to_have_count(100, timeout=WAIT_MS)
        await expect(page.locator("#board .amazon")).to_have_count(8)
        await expect(page.locator("#game-status")).to_have_text("White to move")

        white = seeker if started.white.name == seeker.user.name else taker
        black = taker if white is seeker else seeker
        await seeker.wait_for(lambda c: started.game_id in c.games)
        moves = random_game("10x10", seed=7)[:3]
        for ply, move in enumerate(moves):
            mover = player_of(white, black, ply)
            await mover.wait_for(lambda c, ply=ply: c.games[started.game_id].ply == ply)
            await mover.request(PlayMove(started.game_id, ply, move))
            await expect(page.locator("#moves .move")).to_have_count(ply + 1, timeout=WAIT_MS)
            await expect(page.locator("#moves .move").last).to_have_text(move)
        await expect(page.locator("#board .burnt")).to_have_count(3)
        arrow = moves[-1].split("/")[1]
        await expect(page.locator(f'#board [data-square="{arrow}"]')).to_have_class(
            "square " + ("dark" if _dark(arrow) else "light") + " last-arrow"
        )
        await expect(page.locator("#game-status")).to_have_text("Black to move")
        for size in SIZES:
            width, height = SIZES[size]
            await page.set_viewport_size({"width": width, "height": height})
            await page.screenshot(path=artifacts / f"game-10x10-{size}.png", full_page=True)
        assert errors == []
        for client in (seeker, taker):
            await client.close()


@pytest.mark.asyncio
async def test_a_game_opened_by_its_address_shows_the_moves_already_played(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        white, black, game_id = await start_game(url, setup="6x6")
        moves = random_game("6x6", seed=3)[:4]
        for ply, move in enumerate(moves):
            mover = player_of(white, black, ply)
            await mover.wait_for(lambda c, ply=ply: c.games[game_id].ply == ply)
            await mover.request(PlayMove(game_id, ply, move))
        page, errors = await open_page(browser, f"{http_url(url)}/game/{game_id}", "phone")
        await expect(page.locator("#board rect.square")).to_have_count(36, timeout=WAIT_MS)
        await expect(page.locator("#moves .move")).to_have_text(moves)
        await expect(page.locator("#board .burnt")).to_have_count(4)
        await page.screenshot(path=artifacts / "game-6x6-phone.png", full_page=True)

        assert errors == []
        await white.close()
        await black.close()


@pytest.mark.asyncio
async def test_a_dropped_connection_resumes_and_catches_up(
    browser: Browser, redis_url: str
) -> None:
    async with arena_serving(redis_url) as (arena, url):
        white, black, game_id = await start_game(url, setup="6x6")
        moves = random_game("6x6", seed=5)[:2]
        page, errors = await open_page(browser, f"{http_url(url)}/game/{game_id}")
        badge = page.locator("#connection")
        await expect(badge).to_contain_text("online as guest", timeout=WAIT_MS)
        name = (await badge.text_content() or "").removeprefix("online as ")
        await expect(page.locator("#board rect.square")).to_have_count(36, timeout=WAIT_MS)

        (session,) = [s for s in arena.sessions if s.user is not None and s.user.name == name]
        await session.socket.close()
        await expect(badge).to_contain_text("offline, retrying", timeout=WAIT_MS)
        for ply, move in enumerate(moves):
            mover = player_of(white, black, ply)
            await mover.wait_for(lambda c, ply=ply: c.games[game_id].ply == ply)
            await mover.request(PlayMove(game_id, ply, move))

        await expect(badge).to_have_text(f"online as {name}", timeout=WAIT_MS)
        await expect(page.locator("#moves .move")).to_have_text(moves, timeout=WAIT_MS)
        assert errors == []
        await white.close()
        await black.close()


class _Foreign(http.server.BaseHTTPRequestHandler):
    """Another site's page that tries to open the arena's websocket (`?port=`)."""

    def do_GET(self) -> None:
        port = self.path.partition("port=")[2]
        body = (
            "<!doctype html><title>other site</title><script>"
            f"const s = new WebSocket('ws://127.0.0.1:{port}/');"
            "s.onopen = () => { document.title = 'opened'; };"
            "s.onerror = () => { document.title = 'refused'; };"
            "</script>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads the page, not the log."""


@contextlib.contextmanager
def foreign_site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Foreign)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.asyncio
async def test_a_page_of_another_site_is_refused_the_socket(
    browser: Browser, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        port = url.rpartition(":")[2]
        with foreign_site() as site, structlog.testing.capture_logs() as logs:
            page = await browser.new_page()
            await page.goto(f"{site}/?port={port}")
            await expect(page).to_have_title("refused", timeout=WAIT_MS)
        refused = [entry["origin"] for entry in logs if entry["event"] == "origin_refused"]
        assert refused == [site]
        # A client that is not a browser sends no Origin and is let in as before.
        client = await guest(url)
        await client.close()
        # And the server's own page gets its socket from the same browser.
        own, errors = await open_page(browser, http_url(url) + "/")
        await expect(own.locator("#connection")).to_contain_text("online as", timeout=WAIT_MS)
        assert errors == []


def _dark(square: str) -> bool:
    return (ord(square[0]) - ord("a") + int(square[1:]) - 1) % 2 == 0
