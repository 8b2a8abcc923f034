"""Playing in a real headless Chromium against a real server: a guest plays a whole game against
a house bot by clicking the board (and once by dragging), a refused move typed as text shows the
server's reason and keeps the text, two guests play each other through a seek while a third
page watches by the game's address, a player's move survives a dropped connection, a phone
plays by tapping, the clocks, resigning and claiming a win work, the lobby's other ways to start
a game (quick pairing, a challenge by name, accepted or declined, an account's rated seek) and
its refusals show on the page, and the page keeps to its size budget."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Locator, Page, Response, expect
from redis.asyncio import Redis

from clients import ArenaClient
from engine.amazons import Move, Position
from server.db import Database
from server.identity import create_account
from server.protocol import ColourPreference, PlayMove, Seek, SeekAdded, TimeControl
from tests.server.endpoint import arena_serving, guest, house_worker, random_game, serving
from tests.web.test_pages import WAIT_MS, http_url, open_page

SCREEN = {"desktop": (1280, 800), "phone": (360, 740)}
MY_TURN_OR_OVER = "#board[data-turn='mine'], #game-status[data-state='ended']"
BOT_WAIT_MS = 60_000  # a house bot's move, the worker's first one included


async def online_name(page: Page) -> str:
    """The guest name the page plays as, once it is online."""
    badge = page.locator("#connection")
    await expect(badge).to_contain_text("online as", timeout=WAIT_MS)
    return (await badge.text_content() or "").removeprefix("online as ")


async def played(page: Page) -> list[str]:
    return await page.locator("#moves .move").all_text_contents()


def position_after(moves: list[str], setup: str = "6x6") -> Position:
    position = Position.setup(setup)
    for text in moves:
        position.apply(position.parse_move(text))
    return position


def squares(move: Move | str) -> list[str]:
    return re.split(r"[-/]", str(move))


def square(page: Page, name: str) -> Locator:
    return page.locator(f'#board [data-square="{name}"]')


async def click_move(page: Page, move: Move | str) -> None:
    for name in squares(move):
        await square(page, name).click()


async def shoot(page: Page, picked: list[str]) -> None:
    """Screenshots of `page` at desktop and phone widths, named after `picked`."""
    for size, (width, height) in SCREEN.items():
        await page.set_viewport_size({"width": width, "height": height})
        await page.screenshot(path=picked[0].format(size=size), full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 800})


async def targets(page: Page) -> set[str]:
    return set(
        await page.locator("#board .target").evaluate_all(
            "nodes => nodes.map(n => n.dataset.target)"
        )
    )


@pytest.mark.asyncio
async def test_a_guest_plays_a_whole_game_against_a_house_bot_on_the_board(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url, house_worker(redis, "web-worker"):
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        await expect(page.locator("#bot option")).not_to_have_count(0)
        await page.select_option("#setup", "6x6")
        await page.select_option("#colour", "white")
        await page.select_option("#bot", "random")
        await shoot(page, [str(artifacts / "play-lobby-{size}.png")])
        await page.click("#play-bot")
        await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
        await expect(page.locator("#game-status")).to_have_text(
            "White to move · your move: pick an amazon", timeout=WAIT_MS
        )
        await expect(page.locator("#board rect.square")).to_have_count(36)

        # A move the rules forbid, typed: the server's reason, and the text is kept to mend.
        await page.fill("#move-text", "a1-a3/a4")
        await page.press("#move-text", "Enter")
        await expect(page.locator("#game-error")).to_have_text("no white amazon on a1")
        await expect(page.locator("#move-text")).to_have_value("a1-a3/a4")

        # The first step marks where the amazon may go; Escape takes the step back.
        start = Position.setup("6x6")
        await square(page, "b1").click()
        await shoot(page, [str(artifacts / "play-choosing-{size}.png")])
        destinations = {
            str(m).split("-")[1].split("/")[0]
            for m in start.legal_moves
            if str(m).startswith("b1-")
        }
        assert await targets(page) == destinations
        await square(page, "b2").click()  # b1-b2: the arrow may land back on b1
        arrows = {str(m).split("/")[1] for m in start.legal_moves if str(m).startswith("b1-b2/")}
        assert "b1" in arrows
        assert await targets(page) == arrows
        await page.keyboard.press("Escape")
        assert await targets(page) == destinations
        await page.keyboard.press("Escape")
        await expect(page.locator("#board .target")).to_have_count(0)

        # The first move by dragging the amazon, then its arrow by a click.
        await square(page, "b1").drag_to(square(page, "b2"))
        assert await targets(page) == arrows
        await square(page, "b1").click()
        await expect(page.locator("#moves .move").first).to_have_text("b1-b2/b1")

        chooser = random.Random(19)
        shot = False
        while True:
            await page.wait_for_selector(MY_TURN_OR_OVER, timeout=BOT_WAIT_MS)
            if await page.locator("#game-status[data-state='ended']").count():
                break
            moves = await played(page)
            position = position_after(moves)
            move = chooser.choice(list(position.legal_moves))
            await click_move(page, move)
            await expect(page.locator("#moves .move").nth(len(moves))).to_have_text(str(move))
            if not shot and len(moves) >= 6:
                await shoot(page, [str(artifacts / "play-game-{size}.png")])
                shot = True
        moves = await played(page)
        final = position_after(moves)
        assert final.is_terminal()
        # The page plays White: the result is said from its side.
        await expect(page.locator("#game-status")).to_have_text(
            "You won: your opponent has no legal move"
            if len(moves) % 2
            else "You lost: you have no legal move"
        )
        await expect(page.locator("#controls")).to_be_hidden()
        await shoot(page, [str(artifacts / "play-ended-{size}.png")])
        assert errors == []


@pytest.mark.asyncio
async def test_two_guests_play_through_a_seek_while_a_third_page_watches(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        seeker, seeker_errors = await open_page(browser, http_url(url) + "/")
        taker, taker_errors = await open_page(browser, http_url(url) + "/", "phone")
        names = {await online_name(seeker): seeker, await online_name(taker): taker}
        await seeker.select_option("#setup", "6x6")
        await seeker.select_option("#time", "300+0")
        await seeker.click("#create-seek")
        mine = seeker.locator("#seeks .seek")
        await expect(mine).to_contain_text("6x6 · 5+0 · casual", timeout=WAIT_MS)
        await expect(mine.locator("button")).to_have_text("Cancel")
        offered = taker.locator("#seeks .seek")
        await expect(offered).to_contain_text("6x6 · 5+0 · casual", timeout=WAIT_MS)
        await offered.locator("button", has_text="Accept").click()

        game_url = re.compile(r"/game/[A-Za-z0-9_-]+$")
        for page in (seeker, taker):
            await expect(page).to_have_url(game_url, timeout=WAIT_MS)
        assert seeker.url == taker.url
        watcher, watcher_errors = await open_page(browser, seeker.url)
        heading = seeker.locator(".panel h2")
        await expect(heading).to_contain_text("\N{EN DASH}", timeout=WAIT_MS)
        white_name, black_name = (await heading.text_content() or "").split(" \N{EN DASH} ")
        white, black = names[white_name], names[black_name]
        await expect(watcher.locator("#board rect.square")).to_have_count(36, timeout=WAIT_MS)
        await expect(watcher.locator("#controls")).to_be_hidden()

        moves = random_game("6x6", seed=11)
        for ply, move in enumerate(moves):
            mover = white if ply % 2 == 0 else black
            await expect(mover.locator("#board")).to_have_attribute(
                "data-turn", "mine", timeout=WAIT_MS
            )
            if ply % 4 == 3:
                await mover.fill("#move-text", " ".join(squares(move)))
                await mover.press("#move-text", "Enter")
                await expect(mover.locator("#move-text")).to_have_value("")
            else:
                await click_move(mover, move)
            await expect(watcher.locator("#moves .move")).to_have_count(ply + 1, timeout=WAIT_MS)
            await expect(watcher.locator("#moves .move").last).to_have_text(move)
            # An arrow shot back onto the square just left is marked as the arrow.
            marks = dict(zip(squares(move), ("from", "to", "arrow"), strict=True))
            for name, mark in marks.items():
                await expect(square(watcher, name)).to_have_class(re.compile(f"last-{mark}"))
            if ply == 5:
                await shoot(watcher, [str(artifacts / "watch-game-{size}.png")])
                await shoot(taker, [str(artifacts / "player-game-{size}.png")])
        loser = "White" if len(moves) % 2 == 0 else "Black"
        winner = "Black" if loser == "White" else "White"
        # The watcher reads the result as it is; each player from their own side.
        await expect(watcher.locator("#game-status")).to_have_text(
            f"{winner} wins: {loser} has no legal move", timeout=WAIT_MS
        )
        for page, colour in ((white, "White"), (black, "Black")):
            await expect(page.locator("#game-status")).to_have_text(
                "You won: your opponent has no legal move"
                if colour == winner
                else "You lost: you have no legal move",
                timeout=WAIT_MS,
            )
        assert await played(watcher) == moves
        assert await watcher.locator("#moves li").count() == (len(moves) + 1) // 2
        assert seeker_errors == taker_errors == watcher_errors == []


@pytest.mark.asyncio
async def test_a_player_whose_connection_drops_keeps_the_game_and_the_move_made_meanwhile(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with arena_serving(redis_url) as (arena, url):
        white: ArenaClient = await guest(url)
        seek = Seek(TimeControl(300, 0), setup="6x6", colour=ColourPreference.WHITE)
        added = await white.request(seek, SeekAdded)
        page, errors = await open_page(browser, http_url(url) + "/", "phone")
        name = await online_name(page)
        await page.locator(f'#seeks [data-seek="{added.seek.seek_id}"] button').click(
            timeout=WAIT_MS
        )
        await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
        game_id = page.url.rpartition("/")[2]
        # Black's player sees the board turned round: rank 1 at the top, file a on the right.
        await expect(page.locator("#board svg")).to_have_attribute("data-flipped", "yes")
        moves = random_game("6x6", seed=23)[:4]
        await white.wait_for(lambda c: game_id in c.games)
        await white.request(PlayMove(game_id, 0, moves[0]))
        await expect(page.locator("#board")).to_have_attribute("data-turn", "mine")
        await click_move(page, moves[1])
        await white.wait_for(lambda c: c.games[game_id].ply == 2)
        await white.request(PlayMove(game_id, 2, moves[2]))
        await expect(page.locator("#moves .move")).to_have_count(3, timeout=WAIT_MS)
        await page.screenshot(path=artifacts / "black-game-phone.png", full_page=True)

        (session,) = [s for s in arena.sessions if s.user is not None and s.user.name == name]
        await session.socket.close()
        badge = page.locator("#connection")
        await expect(badge).to_contain_text("offline", timeout=WAIT_MS)
        await click_move(page, moves[3])  # while offline: kept, and sent once back
        await expect(badge).to_have_text(f"online as {name}", timeout=WAIT_MS)
        await white.wait_for(lambda c: c.games[game_id].ply == 4, timeout=WAIT_MS / 1000)
        assert list(white.games[game_id].moves) == moves
        await expect(page.locator("#moves .move")).to_have_text(moves, timeout=WAIT_MS)
        await expect(page.locator("#game-status")).to_have_text("White to move · waiting")
        assert errors == []
        await white.close()


@pytest.mark.asyncio
async def test_the_lobby_pairs_challenges_and_shows_the_servers_refusals(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path, database: Database
) -> None:
    await create_account(database, "ann", "ann-password")
    async with serving(redis_url) as url:
        ann, ann_errors = await open_page(browser, http_url(url) + "/")
        bob, bob_errors = await open_page(browser, http_url(url) + "/", "phone")
        ann_name, bob_name = await online_name(ann), await online_name(bob)
        message = ann.locator("#lobby-message")

        await ann.click("#sign-in-open")
        await ann.fill("#sign-in-name", "nobody")
        await ann.fill("#sign-in-password", "not-the-password")
        await ann.click("#sign-in button[type=submit]")
        await expect(message).to_have_text("wrong user name or password", timeout=WAIT_MS)
        ann_name = await online_name(ann)  # a new guest after the failed login
        await expect(ann.locator("#who-am-i")).to_have_text(f"Playing as {ann_name}")

        await ann.fill("#opponent", "nosuchplayer")
        await ann.click("#challenge")
        await expect(message).not_to_have_text("", timeout=WAIT_MS)
        assert "nosuchplayer" in (await message.text_content() or "")

        await ann.click("#quick-pair")
        await expect(ann.locator("#pairing")).to_have_text("Looking for an opponent…")
        await expect(ann.locator("#quick-pair")).to_have_text("Cancel quick pairing")
        await ann.click("#quick-pair")
        await expect(ann.locator("#pairing")).to_be_hidden()
        await expect(ann.locator("#quick-pair")).to_have_text("Quick pairing")

        await ann.select_option("#setup", "6x6")
        await ann.fill("#opponent", bob_name)
        await ann.click("#challenge")
        await expect(message).to_have_text(f"Challenge sent to {bob_name}", timeout=WAIT_MS)
        incoming = bob.locator("#challenges .challenge")
        await expect(incoming).to_contain_text(f"from {ann_name}", timeout=WAIT_MS)
        await expect(ann.locator("#challenges .challenge")).to_contain_text(f"to {bob_name}")
        await bob.screenshot(path=artifacts / "lobby-challenged-phone.png", full_page=True)
        await incoming.locator("button", has_text="Decline").click()
        await expect(message).to_have_text(f"{bob_name} declined your challenge", timeout=WAIT_MS)
        await expect(ann.locator("#challenges .challenge")).to_have_count(0)

        await ann.click("#challenge")
        await incoming.locator("button", has_text="Accept").click(timeout=WAIT_MS)
        for page in (ann, bob):
            await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
            await expect(page.locator("#board rect.square")).to_have_count(36, timeout=WAIT_MS)
            await expect(page.locator("#abort")).to_be_visible()
        await ann.click("#abort")
        for page, text in ((ann, "You aborted the game"), (bob, "Your opponent aborted the game")):
            await expect(page.locator("#game-status")).to_have_text(text, timeout=WAIT_MS)
        await ann.click("text=← Lobby")
        await expect(ann.locator("#who-am-i")).to_have_text(f"Playing as {ann_name}")

        # Quick pairing on the same terms pairs the two pages.
        await bob.click("text=← Lobby")
        for page in (ann, bob):
            await page.select_option("#setup", "8x8")
            await page.click("#quick-pair")
        for page in (ann, bob):
            await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
            await expect(page.locator("#board rect.square")).to_have_count(64, timeout=WAIT_MS)
        assert ann.url == bob.url
        await ann.click("#abort")
        for page, text in ((ann, "You aborted the game"), (bob, "Your opponent aborted the game")):
            await expect(page.locator("#game-status")).to_have_text(text, timeout=WAIT_MS)
            await page.click("text=← Lobby")

        # Signing in to an account: a new connection as the account, rated games allowed.
        await expect(ann.locator("#rated")).to_be_disabled()
        await expect(ann.locator("#sign-in")).to_be_visible()  # still open after the refusal
        await ann.fill("#sign-in-name", "ann")
        await ann.fill("#sign-in-password", "ann-password")
        await ann.click("#sign-in button[type=submit]")
        await expect(ann.locator("#connection")).to_have_text("online as ann", timeout=WAIT_MS)
        await expect(ann.locator("#who-am-i")).to_have_text(re.compile(r"^Playing as ann"))
        await expect(ann.locator("#rated")).to_be_enabled()
        await ann.check("#rated")
        await ann.click("#create-seek")
        await expect(bob.locator("#seeks .seek")).to_contain_text("rated", timeout=WAIT_MS)
        await bob.locator("#seeks .seek button").click()
        await expect(bob.locator("#lobby-message")).to_have_text("guests play casual games only")
        await ann.click("#play-as-guest")
        await expect(ann.locator("#connection")).to_contain_text("online as guest", timeout=WAIT_MS)
        await expect(bob.locator("#seeks .seek")).to_have_count(0, timeout=WAIT_MS)
        assert ann_errors == bob_errors == []


@pytest.mark.asyncio
async def test_a_player_claims_victory_once_the_opponent_has_been_away_long_enough(
    browser: Browser, redis_url: str
) -> None:
    async with serving(redis_url, claim_grace_ms=3000) as url:
        black = await guest(url)
        seek = Seek(TimeControl(60, 0), setup="6x6", colour=ColourPreference.BLACK)
        added = await black.request(seek, SeekAdded)
        page, errors = await open_page(browser, http_url(url) + "/", "phone")
        await page.locator(f'#seeks [data-seek="{added.seek.seek_id}"] button').click(
            timeout=WAIT_MS
        )
        await expect(page.locator("#board")).to_have_attribute("data-turn", "mine", timeout=WAIT_MS)
        game_id = page.url.rpartition("/")[2]
        moves = random_game("6x6", seed=29)
        await click_move(page, moves[0])
        await black.wait_for(lambda c: game_id in c.games and c.games[game_id].ply == 1)
        await black.request(PlayMove(game_id, 1, moves[1]))
        await expect(page.locator("#board")).to_have_attribute("data-turn", "mine")
        await expect(page.locator("#claim-victory")).to_be_hidden()
        await black.close()
        presence = page.locator("#presence")
        await expect(presence).to_contain_text("you may claim victory in", timeout=WAIT_MS)
        await expect(presence).to_have_text(
            "Your opponent has left: you may claim victory", timeout=WAIT_MS
        )
        await page.click("#claim-victory")
        await expect(page.locator("#game-status")).to_have_text(
            "You won: your opponent left the game", timeout=WAIT_MS
        )
        assert errors == []


@pytest.mark.asyncio
async def test_a_phone_plays_by_tapping_shows_tenths_under_ten_seconds_and_resigns_on_a_second_tap(
    browser: Browser, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        seek = Seek(TimeControl(10, 0), setup="6x6", colour=ColourPreference.BLACK)
        added = await black.request(seek, SeekAdded)
        width, height = SCREEN["phone"]
        phone = await browser.new_context(
            viewport={"width": width, "height": height}, has_touch=True, is_mobile=True
        )
        page = await phone.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(http_url(url) + "/")
        await page.locator(f'#seeks [data-seek="{added.seek.seek_id}"] button').tap(timeout=WAIT_MS)
        await expect(page.locator("#clock-white")).to_have_text("0:10", timeout=WAIT_MS)
        game_id = page.url.rpartition("/")[2]
        moves = random_game("6x6", seed=31)
        for name in squares(moves[0]):
            await square(page, name).tap()
        await black.wait_for(lambda c: game_id in c.games and c.games[game_id].ply == 1)
        await black.request(PlayMove(game_id, 1, moves[1]))
        # White's clock runs from Black's first move: 0:09.9, 0:09.8, ... in tenths.
        first = await page.locator("#clock-white").text_content()
        await expect(page.locator("#clock-white")).not_to_have_text(first or "")
        assert re.fullmatch(r"0:0\d\.\d", await page.locator("#clock-white").text_content() or "")
        await expect(page.locator("#clock-black")).to_have_text("0:10")
        await page.tap("#resign")
        await expect(page.locator("#resign")).to_have_text("Really resign?")
        await expect(page.locator("#game-status")).to_have_text(
            "White to move · your move: pick an amazon"
        )
        await page.tap("#resign")
        await expect(page.locator("#game-status")).to_have_text(
            "You lost: you resigned", timeout=WAIT_MS
        )
        assert errors == []
        await black.close()
        await phone.close()


PAGE_BUDGET = 200_000  # bytes: everything the page loads, with no build step to shrink it


@pytest.mark.asyncio
async def test_everything_the_page_loads_is_under_its_budget(
    browser: Browser, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        page = await browser.new_page()
        responses: list[Response] = []
        page.on("response", lambda response: responses.append(response))
        # The lobby's modules come first; the other views' soon after the page is online.
        async with page.expect_response(lambda response: response.url.endswith("/game.js")):
            await page.goto(http_url(url) + "/")
        await page.wait_for_load_state("networkidle")
        loaded = {
            response.url: len(await response.body())
            for response in responses
            if response.url.startswith("http")
        }
        names = {address.rpartition("/")[2] for address in loaded}
        modules = {"app.js", "game.js", "lobby.js", "ladder.js", "player.js"}
        assert modules | {"msgpack.mjs", "arena.css"} <= names
        # Bao's board and rules come only with a Bao game.
        assert not {"bao_board.js", "bao_position.js"} & names
        assert sum(loaded.values()) < PAGE_BUDGET, loaded
