"""The web client in headless Chromium (Debian's, driven by Playwright): the time from `GET /`
to a playable lobby, the bytes the page loads, and the time from a click completing a move on
one page to that move shown on the opponent's page.

The server is an `arena serve` on a free port with its private Redis in a temporary folder and
no house-bot workers; a scripted guest keeps one seek open so the lobby has one to list.
- Lobby: each load is a fresh browser context (empty cache), timed in the page from its
  navigation start to the lobby being playable: online, the server's setups in the form, the
  seek listed. The first load warms the server and is not counted.
- Bytes: the bodies of every response the page's load fetches (the page, scripts, stylesheet,
  icon; the other views' modules, fetched once the lobby is online, among them), uncompressed,
  as the server sends them.
- Moves: two guests' pages play a whole 6x6 game of random moves through a seek, each move by
  three clicks on the board; the time runs from the last click's pointerup on the mover's page
  to the move appearing in the opponent's move list (both read on the same machine's clock).

Run from the repository root: python -m bench.web_client [--loads N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from playwright.async_api import Browser, Response, async_playwright

from bench.serving import arena_serve
from clients import ArenaClient
from engine.amazons import Position
from server.protocol import Seek, TimeControl

SETUP = "6x6"
SEED = 7
WAIT_MS = 15_000
PLAYABLE = """() => {
  const online = document.querySelector("#connection")?.dataset.state === "online";
  const offered = document.querySelectorAll("#setup option").length > 0;
  const listed = document.querySelectorAll("#seeks .seek").length > 0;
  return online && offered && listed ? performance.now() : false;
}"""
# Times on the page's clock, comparable across pages of one machine (ms since the epoch).
WATCH_CLICKS = """() => {
  window.benchUp = 0;
  document.addEventListener("pointerup", () => {
    window.benchUp = performance.timeOrigin + performance.now();
  }, true);
}"""
WATCH_MOVES = """() => {
  window.benchSeen = {};
  const list = document.querySelector("#moves");
  new MutationObserver(() => {
    const count = list.querySelectorAll(".move").length;
    if (!(count in window.benchSeen)) {
      window.benchSeen[count] = performance.timeOrigin + performance.now();
    }
  }).observe(list, { childList: true, subtree: true });
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=10, help="timed lobby loads after one")
    args = parser.parse_args()
    with _server() as url:
        print(f"server {url}", file=sys.stderr)
        asyncio.run(_bench(url, args.loads))


async def _bench(url: str, loads: int) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("needs Debian's chromium on the PATH (apt-get install chromium)")
    seeker = await ArenaClient.connect(url)
    await seeker.guest()
    await seeker.request(Seek(TimeControl(300, 0), setup="8x8"))
    http = url.replace("ws://", "http://")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, headless=True)
        results = [await _load(browser, http) for _ in range(loads + 1)][1:]
        times = [ms for ms, _ in results]
        print(
            f"GET / to a playable lobby: median {statistics.median(times):.0f} ms "
            f"(min {min(times):.0f}, max {max(times):.0f} over {len(times)} loads)"
        )
        print(f"bytes the page loads: {results[0][1] / 1024:.1f} KB ({results[0][1]} bytes)")
        delays = await _game(browser, http)
        print(
            f"click completing a move to the move on the opponent's page: median "
            f"{statistics.median(delays):.0f} ms (min {min(delays):.0f}, "
            f"max {max(delays):.0f} over {len(delays)} moves)"
        )
        await browser.close()
    await seeker.close()


async def _load(browser: Browser, http: str) -> tuple[float, int]:
    """One cold load of the lobby: (ms from navigation start to playable, bytes fetched)."""
    context = await browser.new_context()
    page = await context.new_page()
    responses: list[Response] = []
    page.on("response", lambda response: responses.append(response))
    # The other views' modules come a second after the page is online: their bytes count too.
    async with page.expect_response(lambda response: response.url.endswith("/game.js")):
        await page.goto(http + "/")
        ready = await page.wait_for_function(PLAYABLE, timeout=WAIT_MS, polling=5)
        ms = float(await ready.json_value())
    await page.wait_for_load_state("networkidle")
    size = 0
    for response in responses:
        with contextlib.suppress(Exception):  # a response with no body to read (a websocket)
            size += len(await response.body())
    await context.close()
    await asyncio.sleep(0.5)  # the closed context's renderer exits before the next load starts
    print(f"  lobby {ms:.0f} ms, {size} bytes", file=sys.stderr)
    return ms, size


async def _game(browser: Browser, http: str) -> list[float]:
    """A whole game between two pages; the delay of each move, in ms."""
    pages = [await (await browser.new_context()).new_page() for _ in range(2)]
    for page in pages:
        await page.goto(http + "/")
        await page.wait_for_function(PLAYABLE, timeout=WAIT_MS)
    seeker, taker = pages
    names = {}
    for page in pages:
        names[(await page.text_content("#connection") or "").removeprefix("online as ")] = page
    await seeker.select_option("#setup", SETUP)
    await seeker.select_option("#time", "300+0")
    await seeker.click("#create-seek")
    mine = seeker.locator("#seeks .seek", has_text=SETUP)
    await mine.wait_for(timeout=WAIT_MS)
    await taker.locator("#seeks .seek", has_text=SETUP).locator("button").click()
    for page in pages:
        await page.wait_for_url(re.compile(r"/game/"), timeout=WAIT_MS)
        await page.wait_for_selector("#moves", state="attached", timeout=WAIT_MS)
        await page.wait_for_function(
            "() => document.querySelector('.panel h2')?.textContent.includes('\\u2013')",
            timeout=WAIT_MS,
        )
        await page.evaluate(WATCH_CLICKS)
        await page.evaluate(WATCH_MOVES)
    heading = await seeker.text_content(".panel h2") or ""
    white_name, black_name = heading.split(" \N{EN DASH} ")
    white, black = names[white_name], names[black_name]
    delays = []
    position = Position.setup(SETUP)
    ply = 0
    while not position.is_terminal():
        move = position.random_move(SEED + ply)
        assert move is not None
        mover, other = (white, black) if ply % 2 == 0 else (black, white)
        await mover.wait_for_selector("#board[data-turn='mine']", timeout=WAIT_MS)
        for name in re.split(r"[-/]", str(move)):
            await mover.click(f'#board [data-square="{name}"]')
        await other.wait_for_function(
            f"() => window.benchSeen[{ply + 1}] !== undefined", timeout=WAIT_MS, polling=5
        )
        clicked = await mover.evaluate("() => window.benchUp")
        seen = await other.evaluate(f"() => window.benchSeen[{ply + 1}]")
        delays.append(seen - clicked)
        position.apply(move)
        ply += 1
    return delays


@contextlib.contextmanager
def _server() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder, arena_serve(Path(folder)) as url:
        yield url


if __name__ == "__main__":
    main()
