"""Bao in a real headless Chromium against a real server: a guest plays a whole game against the
random house bot by clicking pits and their moves (and one typed), with the legal pits and
moves marked as the engine has them; then the finished game is reviewed move by move, each
position the page draws (worked out by the page's own copy of the rules) checked against the
engine's."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect
from redis.asyncio import Redis

from engine.bao import BaoPosition, Move
from engine.bao.notation import PITS, pit_label
from tests.server.endpoint import house_worker, serving
from tests.web.test_pages import WAIT_MS, http_url, open_page
from tests.web.test_play import BOT_WAIT_MS, MY_TURN_OR_OVER, online_name, played

MAX_PLIES = 400  # random Bao games last 15 to 130 plies


def position_after(moves: list[str]) -> BaoPosition:
    position = BaoPosition()
    for text in moves:
        position.apply(position.parse_move(text))
    return position


async def marked(page: Page, selector: str, attribute: str = "pit") -> set[str]:
    return set(
        await page.locator(selector).evaluate_all(f"nodes => nodes.map(n => n.dataset.{attribute})")
    )


async def seeds_drawn(page: Page) -> dict[tuple[str, str], int]:
    """Each pit's seeds as the board draws them, by (side, pit label)."""
    pits = await page.locator("#board .pit").evaluate_all(
        "nodes => nodes.map(n => [n.dataset.side, n.dataset.pit, Number(n.dataset.seeds)])"
    )
    return {(side, label): seeds for side, label, seeds in pits}


def seeds_of(position: BaoPosition) -> dict[tuple[str, str], int]:
    pits = position.board.pits
    return {
        (side, pit_label(pit)): pits[index * PITS + pit]
        for index, side in enumerate(("south", "north"))
        for pit in range(PITS)
    }


async def play(page: Page, move: Move) -> None:
    """Click the move's pit (South's: the page plays South), then the move among the pit's
    when it has several."""
    await page.locator(f'#board .pit[data-side="south"][data-pit="{pit_label(move.pit)}"]').click()
    choice = page.locator(f'#board [data-choice="{move}"]')
    if await choice.count():
        await choice.click()


async def see_the_sowing(page: Page, after: BaoPosition, move: str, shot: Path) -> None:
    """Step through the last move's sowing with the buttons: each step differs from the one
    before, the steps end in the position, and past the end the position shows again."""
    at = page.locator("#sowing-at")
    await expect(at).to_contain_text(f"Sowing of {move}:")
    steps = int((await at.text_content() or "").split(": ")[1].split()[0])
    assert steps >= 2
    seen = [await seeds_drawn(page)]
    for step in range(1, steps + 1):
        await page.click("#sowing-next")
        await expect(at).to_contain_text(f"Sowing of {move}: step {step} of {steps}")
        seen.append(await seeds_drawn(page))
        if step < steps:
            assert seen[-1] != seen[-2]
        if step == 1:
            await page.screenshot(path=str(shot), full_page=True)
    # The last step is where the sowing ends: the position itself.
    assert seen[-1] == seeds_of(after)
    await page.click("#sowing-next")
    await expect(at).to_have_text(f"Sowing of {move}: {steps} steps")
    assert await seeds_drawn(page) == seeds_of(after)
    await page.click("#sowing-back")
    await expect(at).to_have_text(f"Sowing of {move}: step {steps} of {steps}")
    await page.click("#sowing-back")
    await expect(at).to_contain_text(f"Sowing of {move}: step {steps - 1} of {steps}")
    await page.click("#sowing-next")
    await page.click("#sowing-next")
    assert await seeds_drawn(page) == seeds_of(after)


@pytest.mark.asyncio
async def test_a_guest_plays_a_whole_bao_game_against_the_house_bot_and_reviews_it(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url, house_worker(redis, "web-worker"):
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        await expect(page.locator("#game option")).not_to_have_count(0)
        await page.select_option("#game", "bao")
        await expect(page.locator("#setup")).to_have_value("zanzibar")
        await page.select_option("#colour", "white")
        await page.select_option("#bot", "random")
        await page.click("#play-bot")
        await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
        await expect(page.locator("#game-status")).to_have_text(
            "South (white) to move · your move: pick a pit to sow from", timeout=WAIT_MS
        )
        await expect(page.locator("#board .pit")).to_have_count(32)
        start = BaoPosition()
        example = await page.locator("#move-text").get_attribute("placeholder")
        assert example in {str(move) for move in start.legal_moves}
        assert await seeds_drawn(page) == seeds_of(start)
        assert await marked(page, "#board .pit.house") == {"A5"}

        # The pits a move may start from are marked; a pit picked offers its moves; Escape
        # takes the pick back.
        assert await marked(page, "#board .pit.movable") == {"A6", "A7"}
        await page.locator('#board .pit[data-side="south"][data-pit="A6"]').click()
        await expect(page.locator("#board [data-choice]")).to_have_count(2)
        assert await marked(page, "#board [data-choice]", "choice") == {"A6<", "A6>"}
        await page.screenshot(path=str(artifacts / "bao-choosing.png"), full_page=True)
        await page.keyboard.press("Escape")
        await expect(page.locator("#board [data-choice]")).to_have_count(0)

        # A move the rules forbid, typed: the server's reason, and the text kept.
        await page.fill("#move-text", "a5>")
        await page.press("#move-text", "Enter")
        await expect(page.locator("#game-error")).to_contain_text("A5", timeout=WAIT_MS)
        await expect(page.locator("#move-text")).to_have_value("a5>")
        # A legal one, typed.
        await page.fill("#move-text", "a7 <")
        await page.press("#move-text", "Enter")
        await expect(page.locator("#moves .move").first).to_have_text("A7<", timeout=WAIT_MS)

        chooser = random.Random(11)
        shot = False
        while True:
            await page.wait_for_selector(MY_TURN_OR_OVER, timeout=BOT_WAIT_MS)
            if await page.locator("#game-status[data-state='ended']").count():
                break
            moves = await played(page)
            assert len(moves) < MAX_PLIES
            position = position_after(moves)
            # The bot's last move: its pit marked on North's side, and the board as the engine.
            assert await marked(page, "#board .pit.last") == {pit_label(Move.parse(moves[-1]).pit)}
            assert await seeds_drawn(page) == seeds_of(position)
            legal = sorted(position.legal_moves)
            assert await marked(page, "#board .pit.movable") == {pit_label(m.pit) for m in legal}
            if len(moves) == 2:
                await see_the_sowing(page, position, moves[-1], artifacts / "bao-sowing.png")
            move = chooser.choice(legal)
            await play(page, move)
            await expect(page.locator("#moves .move").nth(len(moves))).to_have_text(str(move))
            if not shot and len(moves) >= 10:
                shot = True
                await page.screenshot(path=str(artifacts / "bao-game.png"), full_page=True)
                await page.locator("#board").screenshot(path=str(artifacts / "bao-board.png"))

        # The finished game, reviewed: every position the page draws is the engine's.
        moves = await played(page)
        final = position_after(moves)
        assert final.is_terminal()
        await expect(page.locator("#board text[data-side='south']")).to_contain_text(
            "won" if final.winner() == 0 else "lost"
        )
        await page.keyboard.press("Home")
        await expect(page.locator("#board")).to_have_attribute("data-ply", "0")
        position = BaoPosition()
        assert await seeds_drawn(page) == seeds_of(position)
        for ply, text in enumerate(moves, 1):
            await page.keyboard.press("ArrowRight")
            await expect(page.locator("#board")).to_have_attribute("data-ply", str(ply))
            position.apply(position.parse_move(text))
            assert await seeds_drawn(page) == seeds_of(position), f"after move {ply}: {text}"
            blocked = position.text().split()[3]
            takasia = await marked(page, "#board .pit.takasia")
            assert takasia == (set() if blocked == "-" else {blocked})
        await page.screenshot(path=str(artifacts / "bao-review.png"), full_page=True)
        assert errors == []
