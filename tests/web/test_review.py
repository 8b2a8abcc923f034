"""Watching, reviewing and the ladder in a real headless Chromium against a real server: both
players' pages resync and play on after the server is restarted on the same Redis and port; a
finished game's page steps and jumps through its positions (each checked against the engine),
shows each position's analysis and saves its record; a spectator sees how many watch and the
analysis overlay that players of a live game are not offered; a ladder's standings list its bots.
Screenshots of the lobby, a game and a review at desktop and phone widths go to
`test-artifacts/web/`."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect
from redis.asyncio import Redis

from engine.amazons import Position
from engine.records import GameRecord
from server.db import Database
from server.identity import create_bot_token
from server.ladder.store import LadderStore
from server.protocol import Analysis, Analyze, PlayMove, Seek, TimeControl
from server.storage import game_key
from tests.server.endpoint import analysis_worker, guest, random_game, serving, start_game
from tests.server.wire import Wire
from tests.web.test_pages import WAIT_MS, http_url, open_page
from tests.web.test_play import online_name, position_after, shoot

RECONNECT_MS = 40_000  # the page retries at 0.5 s, doubling: a restart takes a few of those
ANALYSIS_MS = 90_000  # the analysis child process starts (and imports the engine) on first use


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def pieces(page: Page) -> dict[str, str]:
    """The board's pieces by square: `W`, `B`, or `x` for a burnt square."""
    found: dict[str, str] = {}
    for colour, piece in (("white", "W"), ("black", "B")):
        for at in await page.locator(f"#board .amazon.{colour}").evaluate_all(
            "nodes => nodes.map(n => n.dataset.at)"
        ):
            found[at] = piece
    for at in await page.locator("#board .burnt").evaluate_all(
        "nodes => nodes.map(n => n.dataset.at)"
    ):
        found[at] = "x"
    return found


def engine_pieces(position: Position) -> dict[str, str]:
    """The pieces of an engine position by square, read from its position text."""
    board = position.text().split()[0]
    found: dict[str, str] = {}
    for row, cells in enumerate(board.split("/")):
        rank = position.height - row
        file = 0
        for token in re.findall(r"\d+|[WBx]", cells):
            if token.isdigit():
                file += int(token)
                continue
            found[f"{chr(ord('a') + file)}{rank}"] = token
            file += 1
    return found


async def players_by_seek(browser: Browser, url: str) -> tuple[Page, Page, list[Page]]:
    """Two guests' pages in a 6x6 game through a seek: (white, black, both pages)."""
    seeker, _ = await open_page(browser, http_url(url) + "/")
    taker, _ = await open_page(browser, http_url(url) + "/")
    names = {await online_name(seeker): seeker, await online_name(taker): taker}
    await seeker.select_option("#setup", "6x6")
    await seeker.select_option("#time", "300+0")
    await seeker.click("#create-seek")
    offered = taker.locator("#seeks .seek")
    await expect(offered).to_contain_text("6x6", timeout=WAIT_MS)
    await offered.locator("button", has_text="Accept").click()
    for page in (seeker, taker):
        await expect(page).to_have_url(re.compile(r"/game/[A-Za-z0-9_-]+$"), timeout=WAIT_MS)
    heading = seeker.locator(".panel h2")
    await expect(heading).to_contain_text("\N{EN DASH}", timeout=WAIT_MS)
    white_name, black_name = (await heading.text_content() or "").split(" \N{EN DASH} ")
    return names[white_name], names[black_name], [seeker, taker]


async def type_move(page: Page, move: str) -> None:
    await expect(page.locator("#board")).to_have_attribute("data-turn", "mine", timeout=WAIT_MS)
    await page.fill("#move-text", move)
    await page.press("#move-text", "Enter")
    await expect(page.locator("#move-text")).to_have_value("", timeout=WAIT_MS)


@pytest.mark.asyncio
async def test_both_pages_resync_and_play_on_after_the_server_restarts(
    browser: Browser, redis_url: str
) -> None:
    port = free_port()
    moves = random_game("6x6", seed=21)
    async with serving(redis_url, port) as url:
        white, black, pages = await players_by_seek(browser, url)
        for ply in range(4):
            await type_move(white if ply % 2 == 0 else black, moves[ply])
        for page in pages:
            await expect(page.locator("#moves .move")).to_have_count(4, timeout=WAIT_MS)
    for page in pages:
        await expect(page.locator("#connection")).to_have_attribute(
            "data-state", "offline", timeout=WAIT_MS
        )
    async with serving(redis_url, port):
        for page in pages:
            await expect(page.locator("#connection")).to_have_attribute(
                "data-state", "online", timeout=RECONNECT_MS
            )
        for ply in range(4, 8):
            await type_move(white if ply % 2 == 0 else black, moves[ply])
        for page in pages:
            await expect(page.locator("#moves .move")).to_have_count(8, timeout=WAIT_MS)
            assert await page.locator("#moves .move").all_text_contents() == moves[:8]
            assert await pieces(page) == engine_pieces(position_after(moves[:8]))


@pytest.mark.asyncio
async def test_a_finished_game_is_reviewed_move_by_move_with_its_analysis_and_its_record(
    browser: Browser, redis_url: str, redis: Redis, artifacts: Path
) -> None:
    moves = random_game("6x6", seed=5)
    async with analysis_worker(redis), serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        for ply, move in enumerate(moves):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))
        page, errors = await open_page(browser, http_url(url) + f"/game/{game_id}")
        last = len(moves)
        board = page.locator("#board")
        await expect(page.locator("#review-at")).to_have_text(
            f"After move {last} of {last}: {moves[-1]}", timeout=WAIT_MS
        )
        await expect(board).to_have_attribute("data-ply", str(last))

        middle = last // 2
        await page.fill("#review-ply", str(middle))
        await page.press("#review-ply", "Enter")
        await expect(board).to_have_attribute("data-ply", str(middle))
        assert await pieces(page) == engine_pieces(position_after(moves[:middle]))
        await expect(page.locator("#moves .move.current")).to_have_text(moves[middle - 1])
        await shoot(page, [str(artifacts / "review-{size}.png")])

        await page.locator("#board").click(position={"x": 5, "y": 5})  # focus off the field
        await page.keyboard.press("ArrowLeft")
        await expect(board).to_have_attribute("data-ply", str(middle - 1))
        assert await pieces(page) == engine_pieces(position_after(moves[: middle - 1]))
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press("ArrowRight")
        await expect(board).to_have_attribute("data-ply", str(middle + 1))
        await page.keyboard.press("Home")
        await expect(board).to_have_attribute("data-ply", "0")
        assert await pieces(page) == engine_pieces(Position.setup("6x6"))
        await page.click("#review-end")
        await expect(board).to_have_attribute("data-ply", str(last))
        await page.click("#review-start")
        await page.click("#review-forward")
        await expect(board).to_have_attribute("data-ply", "1")
        await page.locator("#moves .move").nth(2).click()
        await expect(board).to_have_attribute("data-ply", "3")
        assert await pieces(page) == engine_pieces(position_after(moves[:3]))
        await page.locator("#moves .move").nth(4).focus()
        await page.keyboard.press("Enter")
        await expect(board).to_have_attribute("data-ply", "5")
        await page.click("#review-back")
        await expect(board).to_have_attribute("data-ply", "4")
        await page.click("#review-back")
        await page.click("#review-back")
        await expect(board).to_have_attribute("data-ply", "2")

        # A move number the game does not have: one line saying so, and the board stays.
        await page.fill("#review-ply", str(last + 5))
        await page.press("#review-ply", "Enter")
        await expect(page.locator("#game-error")).to_have_text(
            f"There is no move {last + 5}: choose 0 to {last}"
        )
        await expect(board).to_have_attribute("data-ply", "2")

        # The analysis of the position shown: one value per region, the server's.
        await page.fill("#review-ply", str(last - 2))
        await page.press("#review-ply", "Enter")
        await page.check("#analysis")
        regions = position_after(moves[: last - 2]).regions()
        values = page.locator("#board .region-value")
        await expect(values).to_have_count(len(regions), timeout=ANALYSIS_MS)
        told = await white.request(Analyze(game_id=game_id, ply=last - 2), Analysis)
        assert await values.all_text_contents() == [r.value for r in told.regions]
        await expect(page.locator("#analysis-note")).to_contain_text("Sum of regions:")
        await shoot(page, [str(artifacts / "review-analysis-{size}.png")])

        async with page.expect_download() as saving:
            await page.click("#download-record")
        saved = await (await saving.value).path()
        lines = Path(saved).read_text().splitlines()
        assert len(lines) == 1
        record = GameRecord.from_json(lines[0])
        assert (record.game_id, record.moves, record.setup) == (game_id, moves, "6x6")
        assert record.winner == ("black" if last % 2 == 0 else "white")
        assert record.termination == "no legal move"
        record.replay()
        assert errors == []


@pytest.mark.asyncio
async def test_a_finished_game_gone_from_redis_shows_as_it_did_from_the_database(
    browser: Browser, redis_url: str, redis: Redis, database: Database
) -> None:
    moves = random_game("6x6", seed=5)
    async with serving(redis_url, ended_window_ms=500) as url:
        white, black, game_id = await start_game(url)
        for ply, move in enumerate(moves):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))

        async def shown() -> tuple[str | None, ...]:
            page, errors = await open_page(browser, http_url(url) + f"/game/{game_id}")
            await expect(page.locator("#review-at")).to_have_text(
                f"After move {len(moves)} of {len(moves)}: {moves[-1]}", timeout=WAIT_MS
            )
            assert await pieces(page) == engine_pieces(position_after(moves))
            seen = (
                await page.locator("#game-status").text_content(),
                await page.locator(".panel h2").text_content(),
                " ".join(await page.locator("#moves .move").all_text_contents()),
            )
            assert errors == []
            await page.close()
            return seen

        in_window = await shown()
        deadline = time.monotonic() + 10
        while await redis.exists(game_key(game_id)):
            assert time.monotonic() < deadline, "the game is still in Redis"
            await asyncio.sleep(0.05)
        assert await shown() == in_window
        assert "wins" in (in_window[0] or "")


@pytest.mark.asyncio
async def test_a_spectator_sees_the_watchers_and_turns_on_the_region_values(
    browser: Browser, redis_url: str, redis: Redis, artifacts: Path
) -> None:
    moves = random_game("6x6", seed=8)
    played = len(moves) - 3
    async with analysis_worker(redis), serving(redis_url) as url:
        white, black, pages = await players_by_seek(browser, url)
        for ply in range(played):
            await type_move(white if ply % 2 == 0 else black, moves[ply])
        watcher, errors = await open_page(browser, white.url)
        await expect(watcher.locator("#moves .move")).to_have_count(played, timeout=WAIT_MS)
        for page in pages:
            await expect(page.locator("#spectators")).to_have_text("1 watching", timeout=WAIT_MS)
            await expect(page.locator("#analysis-toggle")).to_be_hidden()
        await shoot(white, [str(artifacts / "game-{size}.png")])
        await expect(watcher.locator("#analysis-toggle")).to_be_visible()
        await watcher.check("#analysis")
        regions = position_after(moves[:played]).regions()
        values = watcher.locator("#board .region-value")
        await expect(values).to_have_count(len(regions), timeout=ANALYSIS_MS)
        assert all(text for text in await values.all_text_contents())
        await expect(watcher.locator("#board .region")).not_to_have_count(0)
        await shoot(watcher, [str(artifacts / "watch-analysis-{size}.png")])

        # The next move: the overlay follows it with the new position's regions.
        await type_move(white if played % 2 == 0 else black, moves[played])
        after = position_after(moves[: played + 1]).regions()
        await expect(watcher.locator("#board")).to_have_attribute(
            "data-ply", str(played + 1), timeout=WAIT_MS
        )
        await expect(values).to_have_count(len(after), timeout=ANALYSIS_MS)
        assert errors == []


@pytest.mark.asyncio
async def test_the_standings_page_lists_a_ladders_bots(
    browser: Browser, redis: Redis, redis_url: str, artifacts: Path, database: Database
) -> None:
    await LadderStore(redis, database).ensure_defaults()
    async with serving(redis_url) as url:
        wire = await Wire.connect(url)
        await wire.call("hello", version=1)
        await wire.call("bot_login", token=await create_bot_token(database, "Webladderbot"))
        joined = await wire.call("join_ladder", ladder="fast")
        assert joined["member"] is True
        page, errors = await open_page(browser, http_url(url) + "/")
        await online_name(page)
        await page.fill("#ladder-name", "no such ladder")
        await page.click("#ladder-standings")
        await expect(page.locator("#ladder-message")).to_have_text(
            "A ladder's name is 1 to 32 letters, digits, _ or -"
        )
        await page.fill("#ladder-name", "fast")
        await page.click("#ladder-standings")
        await expect(page).to_have_url(re.compile(r"/ladder/fast$"), timeout=WAIT_MS)
        table = page.locator("#standings table")
        await expect(table).to_contain_text("Webladderbot", timeout=WAIT_MS)
        row = table.locator("tr", has_text="Webladderbot")
        await expect(row).to_contain_text("online")
        await shoot(page, [str(artifacts / "ladder-{size}.png")])

        unknown, _ = await open_page(browser, http_url(url) + "/ladder/nosuch")
        await expect(unknown.locator("#ladder-error")).to_contain_text(
            "no ladder nosuch", timeout=WAIT_MS
        )
        await wire.close()
        assert errors == []


@pytest.mark.asyncio
async def test_screenshots_of_the_lobby(browser: Browser, redis_url: str, artifacts: Path) -> None:
    async with serving(redis_url) as url:
        seeker = await guest(url)
        await seeker.request(Seek(TimeControl(300, 0), setup="8x8"))
        page, errors = await open_page(browser, http_url(url) + "/")
        await expect(page.locator("#seeks .seek")).to_have_count(1, timeout=WAIT_MS)
        await shoot(page, [str(artifacts / "lobby-{size}.png")])
        assert errors == []


STANDINGS_WITH_GAMES = """async () => {
  const { LadderPage } = await import("/static/ladder.js");
  const reply = {
    t: "standings",
    ladder: "demo",
    rows: [
      { rank: 1, bot: "alpha", rating: 1620, margin: 80, anchor: false, games: 3, wins: 2,
        provisional: false, online: false, last_seen: 1764000000000, owner: "ann",
        engine: "mcts" },
      { rank: 2, bot: "beta", rating: 1500, margin: 0, anchor: true, games: 3, wins: 1,
        provisional: false, online: true, owner: "house", engine: "greedy@10" },
    ],
    cross: [["alpha", "beta", 2, 1]],
  };
  const games = {
    t: "ladder_game_page",
    ladder: "demo",
    games: [{ game_id: "g1", white: "alpha", black: "beta", winner: "white",
              ended: 1764000000000 }],
  };
  const server = {
    online: true,
    request: async ({ t }) => (t === "ladder_games" ? games : reply),
  };
  new LadderPage(document.getElementById("main"), server, "demo").online();
}"""


@pytest.mark.asyncio
async def test_the_standings_page_shows_recent_games_and_the_cross_table_when_sent(
    browser: Browser, redis: Redis, redis_url: str, database: Database
) -> None:
    """A reply with the optional `cross` (a newer server's), and a page of the ladder's games,
    given to the page's ladder view in place of the server's."""
    await LadderStore(redis, database).ensure_defaults()
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/ladder/fast")
        await online_name(page)
        await page.evaluate(STANDINGS_WITH_GAMES)
        table = page.locator("#standings table")
        await expect(table.locator("tr", has_text="alpha")).to_contain_text("1620 ± 80")
        await expect(table.locator("tr", has_text="beta")).to_contain_text("1500 (anchor)")
        await expect(table.locator("th")).to_contain_text(["Owner", "Engine"])
        games = page.locator("#ladder-games a")
        await expect(games).to_have_text("alpha \N{EN DASH} beta")
        await expect(games).to_have_attribute("href", "/game/g1")
        cross = page.locator("#cross-table tr", has_text="1. alpha")
        await expect(cross).to_contain_text("2\N{EN DASH}1")
        await expect(page.locator("#cross-table tr", has_text="2. beta")).to_contain_text(
            "1\N{EN DASH}2"
        )
        assert errors == []
