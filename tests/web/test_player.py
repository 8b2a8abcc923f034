"""A player's page in a real headless Chromium: two accounts play rated games through scripted
clients, and the page of one lists its games (each a link to its review, the opponent a link to
theirs) and draws its rating history with one dot per rated game; names on a game's page and in
the lobby lead there; an unknown name says so. A player's and a ladder's every game, a page at a
time, older and newer, a game ending between two pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect
from redis.asyncio import Redis

from clients import ArenaClient
from server import identity
from server.clock import now_ms
from server.db import Database
from server.db.finished_games import FinishedGame, copy_finished_games
from server.games import GameStore
from server.ladder.store import LadderStore
from server.protocol import (
    AcceptSeek,
    GameStarted,
    Player,
    PlayerKind,
    PlayMove,
    Resign,
    Seek,
    SeekAdded,
    TimeControl,
)
from server.ratings import rating_in
from tests.server.endpoint import random_game, serving
from tests.web.test_pages import SIZES, WAIT_MS, http_url, open_page

RATED_GAMES = 3
DAY = 1_764_000_000_000  # 2025-11-24, in ms: games of the paging tests end an hour apart from it
HOUR = 3_600_000


async def _account(url: str, database: Database, name: str) -> ArenaClient:
    await identity.create_account(database, name, f"{name}-secret")
    client = await ArenaClient.connect(url)
    await client.login(name, f"{name}-secret")
    return client


async def _game(seeker: ArenaClient, taker: ArenaClient, *, rated: bool, seed: int) -> str:
    """A 6x6 game: two moves each, then the seeker resigns; its id."""
    added = await seeker.request(Seek(TimeControl(300, 0), setup="6x6", rated=rated), SeekAdded)
    started = await taker.request(AcceptSeek(added.seek.seek_id), GameStarted)
    await seeker.wait_for(lambda c: started.game_id in c.games)
    assert seeker.user is not None
    white = seeker if started.white.name == seeker.user.name else taker
    black = taker if white is seeker else seeker
    for ply, move in enumerate(random_game("6x6", seed)[:4]):
        mover = white if ply % 2 == 0 else black
        await mover.wait_for(lambda c, ply=ply: c.games[started.game_id].ply == ply)
        await mover.request(PlayMove(started.game_id, ply, move))
    await seeker.wait_for(lambda c: c.games[started.game_id].ply == 4)
    await seeker.request(Resign(started.game_id))
    return started.game_id


@pytest.mark.asyncio
async def test_a_players_page_lists_its_games_and_charts_its_rating(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path, database: Database
) -> None:
    async with serving(redis_url) as url:
        ann, bob = await _account(url, database, "Ann"), await _account(url, database, "Bob")
        games = [await _game(ann, bob, rated=True, seed=seed) for seed in range(RATED_GAMES)]
        games.append(await _game(bob, ann, rated=False, seed=9))

        page, errors = await open_page(browser, http_url(url) + "/player/ann")
        await expect(page.locator(".player-view h2")).to_have_text("Ann", timeout=WAIT_MS)
        await expect(page.locator("#player-kind")).to_have_text("Player")
        rows = page.locator("#player-games .row")
        await expect(rows).to_have_count(len(games))
        for row, game_id in zip(await rows.all(), games[::-1], strict=True):
            await expect(row.locator("a.review")).to_have_attribute("href", f"/game/{game_id}")
            await expect(row.locator("a.opponent")).to_have_attribute("href", "/player/Bob")
        await expect(rows.first.locator(".result")).to_have_text("Won")  # Bob resigned
        await expect(rows.last.locator(".result")).to_have_text("Lost")  # Ann resigned
        pool = page.locator('#player-ratings .pool[data-pool="amazons"]')
        await expect(pool.locator(".chart .point")).to_have_count(RATED_GAMES)
        await expect(pool).to_contain_text(f"{RATED_GAMES} rated games")
        rating = await rating_in(redis, database, "Ann", "amazons")
        await expect(pool.locator(".rating")).to_contain_text(f"{rating} ±")
        await expect(page).to_have_title("Ann · Amazons Arena")
        for size in SIZES:
            width, height = SIZES[size]
            await page.set_viewport_size({"width": width, "height": height})
            await page.screenshot(path=artifacts / f"player-{size}.png", full_page=True)
        await page.set_viewport_size({"width": 1280, "height": 800})

        await rows.first.locator("a.opponent").click()
        await expect(page).to_have_url(f"{http_url(url)}/player/Bob")
        await expect(page.locator(".player-view h2")).to_have_text("Bob", timeout=WAIT_MS)
        await expect(page.locator("#player-games .row")).to_have_count(len(games))

        await page.goto(f"{http_url(url)}/game/{games[0]}")
        name = page.locator(".player a.name", has_text="Ann")
        await expect(name).to_have_attribute("href", "/player/Ann", timeout=WAIT_MS)
        await name.click()
        await expect(page).to_have_url(f"{http_url(url)}/player/Ann")
        await expect(page.locator("#player-games .row")).to_have_count(len(games), timeout=WAIT_MS)
        assert errors == []
        for client in (ann, bob):
            await client.close()


@pytest.mark.asyncio
async def test_an_unknown_player_says_so_and_the_lobby_opens_a_player_by_name(
    browser: Browser, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/")
        await expect(page.locator("#connection")).to_contain_text("online as", timeout=WAIT_MS)
        await page.locator("#player-name").fill("no such")
        await page.locator("#player-open").click()
        await expect(page.locator("#player-message")).to_have_text(
            "A player's name is 1 to 32 letters, digits, _ or -"
        )
        await page.locator("#player-name").fill("nosuch")
        await page.locator("#player-open").click()
        await expect(page).to_have_url(f"{http_url(url)}/player/nosuch")
        await expect(page.locator("#player-error")).to_have_text(
            "no player nosuch: no account or house bot", timeout=WAIT_MS
        )
        await page.goto(f"{http_url(url)}/player/invader")
        await expect(page.locator("#player-kind")).to_have_text("House bot", timeout=WAIT_MS)
        await expect(page.locator("#player-ratings")).to_contain_text("No rated games yet")
        assert errors == []


async def _finished(store: GameStore, white: Player, black: Player, loser: str, now: int) -> str:
    """A 6x6 game `loser` resigns at once; its id."""
    started = await store.create(
        white, black, time=TimeControl(300, 0), rated=False, now=now, setup="6x6"
    )
    await store.resign(started.game_id, loser, now + 1000)
    return started.game_id


@pytest.mark.asyncio
async def test_a_players_page_goes_through_every_game_older_and_newer(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path, database: Database
) -> None:
    await identity.create_account(database, "Lea", "secret-l")
    await identity.create_account(database, "max", "secret-m")
    lea, max_ = Player("Lea", PlayerKind.HUMAN), Player("max", PlayerKind.HUMAN)
    store = GameStore(redis, database=database)
    played = [await _finished(store, lea, max_, "max", DAY + HOUR * n) for n in range(1, 46)]
    newest = played[::-1]
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/player/lea")
        rows = page.locator("#player-games .row")
        await expect(rows).to_have_count(30, timeout=WAIT_MS)
        assert await rows.evaluate_all("rows => rows.map(row => row.dataset.game)") == newest[:30]
        await expect(page.locator("#player-games-range")).to_have_text("1\N{EN DASH}30")
        await expect(page.locator("#player-games-newer")).to_be_disabled()
        for size in SIZES:
            width, height = SIZES[size]
            await page.set_viewport_size({"width": width, "height": height})
            await page.screenshot(path=artifacts / f"player-pages-{size}.png", full_page=True)
        await page.set_viewport_size({"width": 1280, "height": 800})

        await page.locator("#player-games-older").click()
        await expect(page.locator("#player-games-range")).to_have_text("31\N{EN DASH}45")
        await expect(rows).to_have_count(15)
        assert await rows.evaluate_all("rows => rows.map(row => row.dataset.game)") == newest[30:]
        await expect(page.locator("#player-games-older")).to_be_disabled()
        await expect(rows.first.locator(".result")).to_have_text("Won")
        await expect(rows.first.locator("a.opponent")).to_have_text("max")

        # Between two pages, and now: the server would abort a game made in the past for its first
        # move not made in time.
        latest = await _finished(store, max_, lea, "Lea", now_ms())
        await page.locator("#player-games-newer").click()
        await expect(page.locator("#player-games-range")).to_have_text("1\N{EN DASH}30")
        await expect(rows.first).to_have_attribute("data-game", latest)
        await expect(rows.first.locator(".result")).to_have_text("Lost")
        assert await rows.evaluate_all("rows => rows.map(row => row.dataset.game)") == [
            latest,
            *newest[:29],
        ]
        await page.locator("#player-games-older").click()
        await expect(page.locator("#player-games-range")).to_have_text("31\N{EN DASH}46")
        assert await rows.evaluate_all("rows => rows.map(row => row.dataset.game)") == newest[29:]
        assert errors == []


@pytest.mark.asyncio
async def test_a_ladders_page_goes_through_every_game(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path, database: Database
) -> None:
    await LadderStore(redis, database).ensure_defaults()
    store = GameStore(redis)
    one, two = Player("one", PlayerKind.BOT), Player("two", PlayerKind.BOT)
    ids = [await _finished(store, one, two, "two", DAY + HOUR * n) for n in range(1, 36)]
    await copy_finished_games(
        database, [FinishedGame.of(await store.load(game_id), "fast") for game_id in ids]
    )
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/ladder/fast")
        rows = page.locator("#ladder-games .row")
        await expect(rows).to_have_count(30, timeout=WAIT_MS)
        await expect(rows.first.locator("a")).to_have_text("one \N{EN DASH} two")
        await expect(rows.first.locator("a")).to_have_attribute("href", f"/game/{ids[-1]}")
        await expect(rows.first).to_contain_text("one won")
        await page.locator("#ladder-games-older").click()
        await expect(page.locator("#ladder-games-range")).to_have_text("31\N{EN DASH}35")
        assert await rows.evaluate_all("rows => rows.map(row => row.dataset.game)") == ids[4::-1]
        for size in SIZES:
            width, height = SIZES[size]
            await page.set_viewport_size({"width": width, "height": height})
            await page.screenshot(path=artifacts / f"ladder-pages-{size}.png", full_page=True)
        await page.locator("#ladder-games-newer").click()
        await expect(page.locator("#ladder-games-range")).to_have_text("1\N{EN DASH}30")
        assert errors == []
