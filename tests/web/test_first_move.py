"""A game's first moves and an aborted game's end in a real headless Chromium: each side's first
move is counted down, for its player, the opponent and a spectator who comes mid-window, and an
aborted game says why from the reader's side: who aborted it, or who made no first move."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect
from redis.asyncio import Redis

from clients import ArenaClient
from server.clock import FIRST_MOVE_MS, now_ms
from server.games import GameStore, open_redis
from server.protocol import Abort, ColourPreference, PlayMove, Seek, TimeControl
from tests.server.endpoint import guest, serving
from tests.web.test_game_page import seek_taken, shoot
from tests.web.test_pages import WAIT_MS, http_url, open_page
from tests.web.test_play import online_name

SIX = TimeControl(300, 0)
STATUS = "#game-status"
COUNTDOWN = "#first-move"
MINE = "Make your first move within {} s, or the game is aborted"
THEIRS = "{} has {} s to make a first move, or the game is aborted"


async def _seconds_left(page: Page, words: str) -> int:
    """The seconds the countdown on `page` shows, once it reads `words` with them at `{}`."""
    before, after = (re.escape(part) for part in words.split("{}"))
    pattern = re.compile(rf"^{before}(\d+){after}$")
    countdown = page.locator(COUNTDOWN)
    await expect(countdown).to_have_text(pattern, timeout=WAIT_MS)
    found = pattern.match(await countdown.text_content() or "")
    assert found is not None
    return int(found[1])


async def _game_with(page: Page, opponent: ArenaClient, colour: ColourPreference) -> str:
    """A game of `page`'s against `opponent`, who plays `colour`: its id."""
    await online_name(page)
    return await seek_taken(page, opponent, Seek(SIX, setup="6x6", colour=colour))


@pytest.mark.asyncio
async def test_each_first_move_is_counted_down_and_one_not_made_says_whose_it_was(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        white = await guest(url)
        page, errors = await open_page(browser, http_url(url) + "/")
        game_id = await _game_with(page, white, ColourPreference.WHITE)  # the page plays Black
        opponent = THEIRS.format("Your opponent", "{}")
        waiting = await _seconds_left(page, opponent)
        assert 0 < waiting <= 30
        await expect(page.locator(COUNTDOWN)).not_to_have_text(
            opponent.format(waiting), timeout=WAIT_MS
        )
        await white.request(PlayMove(game_id, 0, "b1-b3/d3"))
        left = await _seconds_left(page, MINE)
        assert 20 < left <= 30  # a whole window of its own, counted from White's move
        await shoot(page, artifacts / "first-move-countdown-{size}.png")

        # A spectator who comes a few seconds into Black's window counts down from what is left.
        await page.wait_for_timeout(3_000)
        spectator, spectator_errors = await open_page(
            browser, f"{http_url(url)}/game/{game_id}", "phone"
        )
        assert await _seconds_left(spectator, THEIRS.format("Black", "{}")) <= 27

        # Black's window runs out: the sweep of a server process ends the game.
        sweeper = GameStore(open_redis(redis_url))
        assert await sweeper.expire(game_id, now_ms() + FIRST_MOVE_MS) is not None
        await sweeper.redis.aclose()
        await expect(page.locator(STATUS)).to_have_text(
            "Game aborted: you made no first move within 30 s", timeout=WAIT_MS
        )
        await expect(spectator.locator(STATUS)).to_have_text(
            "Game aborted: Black made no first move within 30 s", timeout=WAIT_MS
        )
        await expect(page.locator(COUNTDOWN)).to_be_hidden()
        await expect(spectator.locator(COUNTDOWN)).to_be_hidden()
        await shoot(page, artifacts / "first-move-not-made-{size}.png")
        assert errors == spectator_errors == []
        await white.close()


@pytest.mark.asyncio
async def test_an_abort_says_who_aborted_to_each_player_and_to_a_spectator_who_comes_later(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        black = await guest(url)
        page, errors = await open_page(browser, http_url(url) + "/", "phone")
        game_id = await _game_with(page, black, ColourPreference.BLACK)  # the page plays White
        await _seconds_left(page, MINE)
        await page.click("#abort")
        await expect(page.locator(STATUS)).to_have_text("You aborted the game", timeout=WAIT_MS)
        await expect(page.locator(COUNTDOWN)).to_be_hidden()
        spectator, spectator_errors = await open_page(browser, f"{http_url(url)}/game/{game_id}")
        await expect(spectator.locator(STATUS)).to_have_text(
            "White aborted the game", timeout=WAIT_MS
        )
        await shoot(spectator, artifacts / "first-move-aborted-spectator-{size}.png")

        # The opponent aborts the next game, in Black's window.
        opponent = await guest(url)
        other, other_errors = await open_page(browser, http_url(url) + "/")
        next_id = await _game_with(other, opponent, ColourPreference.BLACK)
        await other.click("#board [data-square=b1]")
        for name in ("b3", "d3"):
            await other.click(f"#board [data-square={name}]")
        await _seconds_left(other, THEIRS.format("Your opponent", "{}"))
        await opponent.request(Abort(next_id))
        await expect(other.locator(STATUS)).to_have_text(
            "Your opponent aborted the game", timeout=WAIT_MS
        )
        await shoot(other, artifacts / "first-move-aborted-by-opponent-{size}.png")
        assert errors == spectator_errors == other_errors == []
        await black.close()
        await opponent.close()
