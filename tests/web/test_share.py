"""The game page's share link in a real headless Chromium: the picture of the position shown,
drawn by the server (`/game/ID.svg?ply=K`), live and in review, for Amazons and Bao; and the
analysis's links to the thermographs of the values it found (`/thermograph.svg?value=V`).
Screenshots of the page and of the pictures go to `test-artifacts/web/`."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect
from redis.asyncio import Redis

from clients import ArenaClient
from server.protocol import (
    AcceptSeek,
    ColourPreference,
    GameEnded,
    GameStarted,
    PlayMove,
    Resign,
    Seek,
    SeekAdded,
    TimeControl,
)
from tests.server.endpoint import analysis_worker, guest, random_game, serving
from tests.web.test_pages import WAIT_MS, http_url, open_page
from tests.web.test_play import shoot
from tests.web.test_review import ANALYSIS_MS

SVG = "{http://www.w3.org/2000/svg}"


async def played(url: str, game: str, setup: str, moves: list[str], resign: bool) -> str:
    """A game of `game` from `setup` between two guests with `moves` played (then White resigning if
    `resign`); its id."""
    a, b = await guest(url), await guest(url)
    seek = Seek(TimeControl(300, 0), setup, game=game, colour=ColourPreference.WHITE)
    added = await a.request(seek, SeekAdded)
    started = await b.request(AcceptSeek(added.seek.seek_id), GameStarted)
    game_id = started.game_id
    await a.wait_for(lambda c: game_id in c.games)
    for ply, text in enumerate(moves):
        mover = a if ply % 2 == 0 else b

        def reached(client: ArenaClient, ply: int = ply) -> bool:
            return client.games[game_id].ply == ply

        await mover.wait_for(reached)
        await mover.request(PlayMove(game_id, ply, text))
    await a.wait_for(lambda c: c.games[game_id].ply == len(moves))
    if resign:
        await a.request(Resign(game_id), GameEnded)
    await a.close()
    await b.close()
    return game_id


async def shared(page: Page) -> ET.Element:
    """The picture the share link points at, fetched as the page would."""
    address: str = await page.locator("#share").evaluate("link => link.href")
    reply = await page.request.get(address)
    assert reply.status == 200
    assert reply.headers["content-type"] == "image/svg+xml"
    return ET.fromstring(await reply.body())


def having(root: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in root.iter() if kind in (e.get("class") or "").split()]


@pytest.mark.asyncio
async def test_the_share_link_follows_the_position_shown(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    moves = ["b1-b3/d3", "a5-a3/a4", "e1-e4/e5"]
    async with serving(redis_url) as url:
        game_id = await played(url, "amazons", "6x6", moves, resign=True)
        page, errors = await open_page(browser, f"{http_url(url)}/game/{game_id}")
        share = page.locator("#share")
        await expect(share).to_have_attribute("href", f"/game/{game_id}.svg?ply=3", timeout=WAIT_MS)
        await expect(page.locator(".share")).to_have_text("share a picture of this position")
        root = await shared(page)
        (queen,) = having(root, "queen")
        assert (queen.get("data-from"), queen.get("data-to")) == ("e1", "e4")
        await shoot(page, [str(artifacts / "share-amazons-{size}.png")])
        await page.click("#review-back")
        await expect(share).to_have_attribute("href", f"/game/{game_id}.svg?ply=2")
        (queen,) = having(await shared(page), "queen")
        assert (queen.get("data-from"), queen.get("data-to")) == ("a5", "a3")
        await page.click("#review-start")
        await expect(share).to_have_attribute("href", f"/game/{game_id}.svg?ply=0")
        assert not having(await shared(page), "last-move")
        # The picture on its own, as whoever the link is shared with sees it.
        picture = await browser.new_page(viewport={"width": 600, "height": 600})
        await picture.goto(f"{http_url(url)}/game/{game_id}.svg?ply=2")
        await picture.screenshot(path=artifacts / "share-amazons-picture.png")
        await picture.close()
        assert errors == []


@pytest.mark.asyncio
async def test_a_spectator_shares_a_live_bao_game(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    async with serving(redis_url) as url:
        game_id = await played(url, "bao", "zanzibar", ["A6>", "A7>"], resign=False)
        page, errors = await open_page(browser, f"{http_url(url)}/game/{game_id}", "phone")
        share = page.locator("#share")
        await expect(share).to_have_attribute("href", f"/game/{game_id}.svg?ply=2", timeout=WAIT_MS)
        (last,) = having(await shared(page), "last")
        assert (last.get("data-side"), last.get("data-pit")) == ("north", "A7")
        await shoot(page, [str(artifacts / "share-bao-{size}.png")])
        picture = await browser.new_page(viewport={"width": 600, "height": 480})
        await picture.goto(f"{http_url(url)}/game/{game_id}.svg")
        await picture.screenshot(path=artifacts / "share-bao-picture.png")
        await picture.close()
        assert errors == []


@pytest.mark.asyncio
async def test_the_analysis_links_each_solved_value_to_its_thermograph(
    browser: Browser, redis_url: str, redis: Redis, artifacts: Path
) -> None:
    # After 21 moves of this game the board is three contested regions, {3|1}, 1* and 0, whose
    # sum is {4*|2*}: every one solved.
    moves = random_game("6x6", 2)
    async with analysis_worker(redis), serving(redis_url) as url:
        game_id = await played(url, "amazons", "6x6", moves, resign=False)
        page, errors = await open_page(browser, f"{http_url(url)}/game/{game_id}")
        await page.fill("#review-ply", "21")
        await page.click("#review-form button")
        await page.check("#analysis")
        links = page.locator("#analysis-note a.thermograph")
        await expect(links).to_have_text(["{4*|2*}", "{3|1}", "1*", "0"], timeout=ANALYSIS_MS)
        # The region of a4 is its black amazon alone: its 0 goes in a corner, not over it.
        corner = page.locator("#board .region-value.corner")
        await expect(corner).to_have_attribute("data-at", "a4")
        await expect(corner).to_have_text("0")
        address: str = await links.first.evaluate("link => link.href")
        reply = await page.request.get(address)
        assert reply.status == 200
        root = ET.fromstring(await reply.body())
        (left,) = having(root, "left-wall")
        # {4*|2*}: walls from the stops 4 and 2 meeting at t = 1 over 3.
        assert (left.get("data-knots") or "").split() == ["0,4", "1,3"]
        await shoot(page, [str(artifacts / "analysis-thermographs-{size}.png")])
        picture = await browser.new_page(viewport={"width": 600, "height": 420})
        await picture.goto(address)
        await picture.screenshot(path=artifacts / "analysis-thermograph-picture.png")
        await picture.close()
        assert errors == []
