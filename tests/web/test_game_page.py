"""A game's page in a real headless Chromium, in the moments around play: an address of no game,
the steps of a move said as it is made, the move field's example, the resign confirmation and
its way back, a move made offline, the end of a game from the player's side with a rematch and
a new game like it, and the spectators counted as they come and go."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import msgpack
import pytest
from playwright.async_api import Browser, Page, WebSocketRoute, expect
from redis.asyncio import Redis

from clients import ArenaClient
from engine.amazons import Position
from engine.bao import BaoPosition
from engine.bao.board import sowing_steps
from server.protocol import (
    AcceptSeek,
    ColourPreference,
    GameStarted,
    PlayMove,
    Seek,
    SeekAdded,
    TimeControl,
)
from tests.server.endpoint import guest, house_worker, serving
from tests.web.test_pages import WAIT_MS, http_url, open_page
from tests.web.test_play import online_name, square
from tests.web.test_review import players_by_seek

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


async def seek_taken(page: Page, seeker: ArenaClient, seek: Seek) -> str:
    """`seeker`'s seek, accepted on `page`: the game's id, once the page shows it."""
    added = await seeker.request(seek, SeekAdded)
    await page.locator(f'#seeks [data-seek="{added.seek.seek_id}"] button').click(timeout=WAIT_MS)
    await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
    game_id = page.url.rpartition("/")[2]
    await seeker.wait_for(lambda c: game_id in c.games)
    return game_id


@pytest.mark.asyncio
async def test_the_status_line_says_each_step_of_a_move_and_the_example_is_a_legal_move(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        seek = Seek(TimeControl(300, 0), setup="6x6", colour=ColourPreference.BLACK)
        await seek_taken(page, black, seek)
        status = page.locator("#game-status")
        await expect(status).to_have_text("White to move · your move: pick an amazon")
        # The example is a legal move of the position shown: on the 6x6 board, not d1-d6/g6.
        example = await page.locator("#move-text").get_attribute("placeholder")
        start = Position.setup("6x6")
        assert example in {str(move) for move in start.legal_moves}
        await square(page, "b1").click()
        await expect(status).to_have_text(
            "White to move · your move: pick where the amazon on b1 goes"
        )
        await square(page, "b3").click()
        await expect(status).to_have_text(
            "White to move · your move: pick where the amazon on b3 shoots"
        )
        await shoot(page, artifacts / "game-step-arrow-{size}.png")
        await page.keyboard.press("Escape")
        await expect(status).to_have_text(
            "White to move · your move: pick where the amazon on b1 goes"
        )
        await square(page, "b3").click()
        await square(page, "d3").click()
        await expect(status).to_have_text("Black to move · waiting", timeout=WAIT_MS)
        # After the move, the example is one of the new position's, for the side to move.
        after = Position.setup("6x6")
        after.apply(after.parse_move("b1-b3/d3"))
        example = await page.locator("#move-text").get_attribute("placeholder")
        assert example in {str(move) for move in after.legal_moves}
        assert errors == []
        await black.close()


@pytest.mark.asyncio
async def test_resigning_asks_again_with_a_way_back(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        page, errors = await open_page(browser, http_url(url) + "/", "phone")
        await online_name(page)
        seek = Seek(TimeControl(300, 0), setup="6x6", colour=ColourPreference.BLACK)
        game_id = await seek_taken(page, black, seek)
        await page.click("#resign")
        await expect(page.locator("#resign")).to_have_text("Really resign?")
        await expect(page.locator("#abort")).to_be_visible()
        await page.screenshot(path=artifacts / "game-resign-confirm-phone.png")
        await page.click("#resign-cancel")
        await expect(page.locator("#resign")).to_have_text("Resign")
        await expect(page.locator("#resign-cancel")).to_be_hidden()
        # A press after Cancel asks again; it does not resign.
        await page.click("#resign")
        await expect(page.locator("#resign")).to_have_text("Really resign?")
        assert black.games[game_id].status == "playing"
        await page.click("#resign")
        await expect(page.locator("#game-status")).to_have_text(
            "You lost: you resigned", timeout=WAIT_MS
        )
        assert errors == []
        await black.close()


@pytest.mark.asyncio
async def test_a_move_made_offline_says_it_waits_for_the_connection(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        # The page's websocket goes through this relay, which can cut it and keep it cut.
        cut = False
        sockets: list[WebSocketRoute] = []

        async def relay(socket: WebSocketRoute) -> None:
            if cut:
                await socket.close()
                return
            socket.connect_to_server()
            sockets.append(socket)

        await page.route_web_socket(re.compile(".*"), relay)
        await page.goto(http_url(url) + "/")
        await online_name(page)
        seek = Seek(TimeControl(300, 0), setup="6x6", colour=ColourPreference.BLACK)
        game_id = await seek_taken(page, black, seek)
        cut = True
        for socket in sockets:
            await socket.close()
        await expect(page.locator("#connection")).to_contain_text("offline", timeout=WAIT_MS)
        for name in ("b1", "b3", "d3"):
            await square(page, name).click()
        await expect(page.locator("#game-status")).to_have_text(
            "White to move · offline: b1-b3/d3 is sent when the connection is back"
        )
        await shoot(page, artifacts / "game-offline-move-{size}.png")
        assert black.games[game_id].ply == 0
        cut = False
        await expect(page.locator("#game-status")).to_have_text(
            "Black to move · waiting", timeout=WAIT_MS
        )
        await black.wait_for(lambda c: c.games[game_id].ply == 1)
        assert errors == []
        await black.close()


@pytest.mark.asyncio
async def test_a_bao_sowing_steps_to_its_last_step_and_shows_the_seeds_in_hand(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    moves = ["A7>", "A6<", "A5<"]  # the last a namua capture, its seeds sown on
    before = BaoPosition()
    for text in moves[:-1]:
        before.apply(before.parse_move(text))
    board = before.board
    steps = sowing_steps(board, before.rules, before.parse_move(moves[-1]))
    seeds = sum(board.pits) + sum(board.stores)
    hands = [seeds - sum(step.pits) - sum(step.stores) for step in steps]
    assert hands[-1] == 0
    assert max(hands) > 0  # a capture's seeds are held, off the board
    async with serving(redis_url) as url:
        a, b = await guest(url), await guest(url)
        seek = Seek(TimeControl(300, 0), game="bao", colour=ColourPreference.WHITE)
        added = await a.request(seek, SeekAdded)
        started = await b.request(AcceptSeek(added.seek.seek_id), GameStarted)
        game_id = started.game_id
        await a.wait_for(lambda c: game_id in c.games)
        for ply, text in enumerate(moves):
            mover = a if ply % 2 == 0 else b
            await mover.wait_for(lambda c, ply=ply: c.games[game_id].ply == ply)
            await mover.request(PlayMove(game_id, ply, text))
        page, errors = await open_page(browser, f"{http_url(url)}/game/{game_id}")
        at = page.locator("#sowing-at")
        await expect(at).to_have_text(f"Sowing of A5<: {len(steps)} steps", timeout=WAIT_MS)
        for number, hand in enumerate(hands, 1):
            await page.click("#sowing-next")
            held = "" if hand == 0 else f" · {hand} seed{'s' if hand > 1 else ''} in hand"
            await expect(at).to_have_text(f"Sowing of A5<: step {number} of {len(steps)}{held}")
            # The board says it too, by the sower's line.
            drawn = page.locator("#board text.hand")
            await expect(drawn).to_have_count(0 if hand == 0 else 1)
            if hand:
                await expect(drawn).to_have_text(f"South holds {held.split(' · ')[1]}")
            if number == 1:
                await shoot(page, artifacts / "bao-sowing-hand-{size}.png")
        await page.click("#sowing-next")
        await expect(at).to_have_text(f"Sowing of A5<: {len(steps)} steps")
        await page.click("#sowing-back")
        await expect(at).to_have_text(f"Sowing of A5<: step {len(steps)} of {len(steps)}")
        assert errors == []
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_a_second_tab_of_the_same_browser_is_the_same_player(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        first = await context.new_page()
        errors: list[str] = []
        first.on("pageerror", lambda error: errors.append(str(error)))
        await first.goto(http_url(url) + "/")
        name = await online_name(first)
        seek = Seek(TimeControl(300, 0), setup="6x6", colour=ColourPreference.BLACK)
        game_id = await seek_taken(first, black, seek)
        second = await context.new_page()
        second.on("pageerror", lambda error: errors.append(str(error)))
        await second.goto(f"{http_url(url)}/game/{game_id}")
        assert await online_name(second) == name
        await expect(second.locator("#controls")).to_be_visible(timeout=WAIT_MS)
        await expect(second.locator("#game-status")).to_have_text(
            "White to move · your move: pick an amazon"
        )
        for name_ in ("b1", "b3", "d3"):
            await square(second, name_).click()
        await expect(first.locator("#moves .move")).to_have_text(["b1-b3/d3"], timeout=WAIT_MS)
        await black.wait_for(lambda c: c.games[game_id].ply == 1)
        # Both tabs still play: Black's answer reaches each, and either may move next.
        await black.request(PlayMove(game_id, 1, "a5-a4/a3"))
        for page in (first, second):
            await expect(page.locator("#game-status")).to_have_text(
                "White to move · your move: pick an amazon", timeout=WAIT_MS
            )
        await shoot(second, artifacts / "game-second-tab-{size}.png")
        assert errors == []
        await black.close()
        await context.close()


async def resign(page: Page) -> None:
    await page.click("#resign")
    await page.click("#resign")
    await expect(page.locator("#game-status")).to_have_text(
        "You lost: you resigned", timeout=WAIT_MS
    )


async def players(page: Page) -> tuple[str, str]:
    heading = page.locator(".panel h2")
    await expect(heading).to_contain_text("\N{EN DASH}", timeout=WAIT_MS)
    white, black = (await heading.text_content() or "").split(" \N{EN DASH} ")
    return white, black


@pytest.mark.asyncio
async def test_a_rematch_is_asked_declined_asked_again_and_accepted_with_colours_swapped(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        white, black, pages = await players_by_seek(browser, url)
        white_name, black_name = await players(white)
        first = white.url
        await resign(white)
        await expect(black.locator("#game-status")).to_have_text(
            "You won: your opponent resigned", timeout=WAIT_MS
        )
        await white.click("#rematch")
        await expect(white.locator("#rematch-line")).to_have_text(
            f"Rematch asked of {black_name} (you play black): waiting for an answer",
            timeout=WAIT_MS,
        )
        offer = black.locator("#rematch-offer")
        await expect(offer).to_contain_text(
            f"{white_name} asks for a rematch (you play white)", timeout=WAIT_MS
        )
        await shoot(black, artifacts / "game-rematch-offered-{size}.png")
        await shoot(white, artifacts / "game-rematch-asked-{size}.png")
        await black.click("#rematch-decline")
        await expect(white.locator("#rematch-line")).to_have_text(
            f"{black_name} declined the rematch", timeout=WAIT_MS
        )
        await expect(offer).to_be_hidden()
        await white.click("#rematch")
        await black.click("#rematch-accept", timeout=WAIT_MS)
        for page in pages:
            await expect(page).not_to_have_url(first, timeout=WAIT_MS)
        assert white.url == black.url
        assert await players(white) == (black_name, white_name)
        # A new game like the last against a person: a seek on its terms, in the lobby.
        await resign(black)
        await black.click("#new-game")
        await expect(black).to_have_url(http_url(url) + "/", timeout=WAIT_MS)
        mine = black.locator("#seeks .seek", has_text=black_name)
        await expect(mine).to_contain_text("6x6 · 5+0 · casual", timeout=WAIT_MS)
        await expect(mine.locator("button")).to_have_text("Cancel")
        for page in pages:
            await page.close()


@pytest.mark.asyncio
async def test_a_house_bot_rematch_swaps_colours_and_a_new_game_keeps_them(
    browser: Browser, redis: Redis, redis_url: str
) -> None:
    async with serving(redis_url) as url, house_worker(redis, "web-worker"):
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        await expect(page.locator("#bot option")).not_to_have_count(0)
        await page.select_option("#setup", "6x6")
        await page.select_option("#colour", "white")
        await page.select_option("#bot", "random")
        await page.select_option("#strength", "3")
        await page.click("#play-bot")
        await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
        first = page.url
        await expect(page.locator("#board svg")).not_to_have_attribute("data-flipped", "yes")
        await resign(page)
        await page.click("#rematch")
        await expect(page).not_to_have_url(first, timeout=WAIT_MS)
        await expect(page.locator("#board svg")).to_have_attribute("data-flipped", "yes")
        assert (await players(page))[0] == "random"
        second = page.url
        await resign(page)
        await page.click("#new-game")
        await expect(page).not_to_have_url(second, timeout=WAIT_MS)
        assert (await players(page))[0] == "random"
        await expect(page.locator(".terms")).to_have_text("6x6 · 5+0 · casual")
        assert errors == []


@pytest.mark.asyncio
async def test_the_spectator_count_changes_as_spectators_come_and_go_with_no_polling(
    browser: Browser, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        sent: list[str] = []  # the type of each request the page sends

        async def relay(socket: WebSocketRoute) -> None:
            server = socket.connect_to_server()

            def forward(message: str | bytes) -> None:
                if isinstance(message, bytes):
                    sent.append(msgpack.unpackb(message)["t"])
                server.send(message)

            socket.on_message(forward)

        await page.route_web_socket(re.compile(".*"), relay)
        await page.goto(http_url(url) + "/")
        await online_name(page)
        seek = Seek(TimeControl(300, 0), setup="6x6", colour=ColourPreference.BLACK)
        game_id = await seek_taken(page, black, seek)
        count = page.locator("#spectators")
        await expect(count).to_have_text("0 watching", timeout=WAIT_MS)
        asked = sent.count("list_games")
        watcher, _ = await open_page(browser, f"{http_url(url)}/game/{game_id}")
        await expect(count).to_have_text("1 watching", timeout=WAIT_MS)
        await watcher.close()
        await expect(count).to_have_text("0 watching", timeout=WAIT_MS)
        # Pushed, not polled: the page asked for no game list meanwhile, nor in the next 6 s.
        await asyncio.sleep(6)
        assert sent.count("list_games") == asked
        assert errors == []
        await black.close()
