"""The engine's judgement on the game page, in a real headless Chromium against a real server: a
spectator's evaluation after each move (bar, words, best line drawn on request, what it rests
on, the exact values or the note), an answer about a position passed meanwhile dropped, a busy
server asked again once, players of a live game never asking; a finished game reviewed whole,
its progress, graph, marks and summary, a click on the graph or a marked move going there.

Where the test must choose what the server says and when (an answer held back until the game
has moved on, a busy server, marks on chosen moves), the answers to `analyze` and
`analyze_game` come from `Analyst` below, which stands between the page and the server
(Playwright's websocket routing) and passes everything else through, answering as the protocol
(docs/protocol.md) says the server does; the last tests run on the server's own answers, from an
analysis worker, for Amazons (live and reviewed) and Bao. Screenshots go to
`test-artifacts/web/analysis-*`."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import msgpack
import pytest
from playwright.async_api import Browser, Page, WebSocketRoute, expect
from redis.asyncio import Redis

from clients.evaluation import chance_text
from engine.game import get_game
from server.protocol import (
    AcceptSeek,
    Analysis,
    Analyze,
    AnalyzeGame,
    Colour,
    ColourPreference,
    ErrorCode,
    ErrorReply,
    Event,
    GameAnalysis,
    GameStarted,
    ListSeeks,
    MoveMark,
    MoveReview,
    PlayerReview,
    PlayMove,
    RegionValue,
    Request,
    Seek,
    SeekAdded,
    SeekList,
    TimeControl,
    decode_request,
)
from tests.server.endpoint import analysis_worker, guest, random_game, serving, start_game
from tests.web.test_pages import SIZES, WAIT_MS, http_url, open_page
from tests.web.test_play import position_after
from tests.web.test_review import ANALYSIS_MS


class Analyst:
    """Answers the `analyze` and `analyze_game` a page sends, as the test says; every other
    frame goes to the server and back untouched."""

    def __init__(self) -> None:
        self.asked: list[Request] = []
        self.news = asyncio.Event()  # set as a request comes
        self.routes: list[WebSocketRoute] = []

    async def serve(self, page: Page) -> None:
        await page.route_web_socket(lambda url: True, self._route)

    def _route(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        self.routes.append(route)

        def from_page(frame: str | bytes) -> None:
            fields = msgpack.unpackb(frame) if isinstance(frame, bytes) else {}
            if fields.get("t") == "analyze_game":
                self.asked.append(AnalyzeGame(fields["game_id"], id=fields["id"]))
                self.news.set()
            elif fields.get("t") == "analyze":
                assert isinstance(frame, bytes)
                self.asked.append(decode_request(frame))
                self.news.set()
            else:
                server.send(frame)

        route.on_message(from_page)

    async def request(self, count: int) -> Request:
        """The `count`th request asked (from 1), once it has come."""
        async with asyncio.timeout(WAIT_MS / 1000):
            while len(self.asked) < count:
                self.news.clear()
                await self.news.wait()
        return self.asked[count - 1]

    def answer(self, request: Request, reply: Event | ErrorReply) -> None:
        self.routes[-1].send(replace(reply, id=request.id).to_wire())


def judged(request: Request, white_wins: int, line: tuple[str, ...], **fields: object) -> Analysis:
    """An analysis of the position `request` asks about, by game and ply."""
    assert isinstance(request, Analyze)
    return Analysis(
        "6/6/6/6/6/6 w",
        (),
        "?",
        game_id=request.game_id,
        ply=request.ply,
        white_wins=white_wins,
        line=line,
        **fields,  # type: ignore[arg-type]
    )


async def watching(browser: Browser, url: str, analyst: Analyst, size: str = "wide") -> Page:
    width, height = SIZES[size]
    page = await browser.new_page(viewport={"width": width, "height": height})
    page.on("pageerror", lambda error: pytest.fail(f"the page failed: {error}"))
    await analyst.serve(page)
    await page.goto(url)
    return page


async def shots(page: Page, artifacts: Path, name: str) -> None:
    """The page at 1280 and 390 wide, whole."""
    for size in ("wide", "phone"):
        width, height = SIZES[size]
        await page.set_viewport_size({"width": width, "height": height})
        await page.screenshot(path=str(artifacts / f"analysis-{name}-{size}.png"), full_page=True)
    await page.set_viewport_size({"width": 1280, "height": 800})


@pytest.mark.asyncio
async def test_a_spectator_sees_the_judgement_of_each_new_position(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    moves = random_game("6x6", seed=8)
    async with serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        for ply in range(4):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, moves[ply]))
        analyst = Analyst()
        page = await watching(browser, http_url(url) + f"/game/{game_id}", analyst)
        first = await analyst.request(1)
        assert first == Analyze(game_id=game_id, ply=4, id=first.id)
        await expect(page.locator("#eval-state")).to_have_text("Analysing…")
        analyst.answer(first, judged(first, 640, tuple(moves[4:6]), playouts=12000))
        await expect(page.locator("#eval-chance")).to_have_text("White 64%", timeout=WAIT_MS)
        await expect(page.locator("#eval-basis")).to_have_text("12,000 playouts")
        await expect(page.locator("#eval-line")).to_have_text(f"Best line: {moves[4]} {moves[5]}")
        assert await page.locator("#eval-bar .eval-white").get_attribute("width") == "640"
        # The line on the board on request: the best move and the reply after it.
        await expect(page.locator("#board .arrow")).to_have_count(0)
        await page.check("#best-line")
        await expect(page.locator("#board .arrow.best")).to_have_attribute("data-move", moves[4])
        await expect(page.locator("#board .arrow.reply")).to_have_attribute("data-move", moves[5])
        await shots(page, artifacts, "live")

        # A move comes before the answer about the one before: that answer is dropped.
        await white.request(PlayMove(game_id, 4, moves[4]))
        await expect(page.locator("#board")).to_have_attribute("data-ply", "5", timeout=WAIT_MS)
        await expect(page.locator("#eval-state")).to_have_text("Analysing…")
        second = await analyst.request(2)
        assert second == Analyze(game_id=game_id, ply=5, id=second.id)
        await black.request(PlayMove(game_id, 5, moves[5]))
        await expect(page.locator("#board")).to_have_attribute("data-ply", "6", timeout=WAIT_MS)
        analyst.answer(second, judged(second, 100, (moves[6],), depth=3))
        third = await analyst.request(3)  # one request at a time: asked once the last came
        assert third == Analyze(game_id=game_id, ply=6, id=third.id)
        await expect(page.locator("#eval-chance")).to_have_text("")
        await expect(page.locator("#eval-state")).to_have_text("Analysing…")

        # Busy: said quietly, asked once more after the time the server says.
        busy = ErrorReply(ErrorCode.UNAVAILABLE, "too many positions wait", retry_after=1)
        analyst.answer(third, busy)
        await expect(page.locator("#eval-state")).to_have_text("analysis busy, retrying")
        again = await analyst.request(4)
        assert again == Analyze(game_id=game_id, ply=6, id=again.id)
        position = position_after(moves[:6])
        regions = tuple(
            RegionValue(str(r.kind), len(r.squares), len(r.white), len(r.black), "1", "1", "0")
            for r in position.regions()
        )
        exact = replace(
            judged(again, 0, (moves[6],), exact=True, note="exact: Black wins moving first"),
            regions=regions,
            sum="3",
        )
        analyst.answer(again, exact)
        await expect(page.locator("#eval-chance")).to_have_text("Black wins (exact)")
        ones = ", ".join("1" for _ in regions)
        await expect(page.locator("#eval-exact")).to_have_text(
            f"Exact: regions {ones} · sum 3 · exact: Black wins moving first"
        )
        await expect(page.locator("#eval-state")).to_have_text("")
        await shots(page, artifacts, "live-exact")
        assert len(analyst.asked) == 4
        await white.close()
        await black.close()


@pytest.mark.asyncio
async def test_a_player_of_a_live_game_never_asks(browser: Browser, redis_url: str) -> None:
    moves = random_game("6x6", seed=3)
    async with serving(redis_url) as url:
        analyst = Analyst()
        page = await watching(browser, http_url(url) + "/", analyst)
        await page.select_option("#setup", "6x6")
        await page.click("#create-seek")
        taker = await guest(url)
        listed = await taker.request(ListSeeks(), SeekList)
        async with asyncio.timeout(WAIT_MS / 1000):
            while not listed.seeks:
                await asyncio.sleep(0.1)
                listed = await taker.request(ListSeeks(), SeekList)
        [seek] = listed.seeks
        started = await taker.request(AcceptSeek(seek.seek_id), GameStarted)
        board = page.locator("#board")
        await expect(board).to_have_attribute("data-ply", "0", timeout=WAIT_MS)
        assert taker.user is not None
        taker_moves_first = started.white.name == taker.user.name
        if not taker_moves_first:
            await expect(board).to_have_attribute("data-turn", "mine", timeout=WAIT_MS)
            await page.fill("#move-text", moves[0])
            await page.press("#move-text", "Enter")
        else:
            await taker.request(PlayMove(started.game_id, 0, moves[0]))
        await expect(board).to_have_attribute("data-ply", "1", timeout=WAIT_MS)
        await page.wait_for_timeout(500)
        await expect(page.locator("#analysis-panel")).to_have_count(0)
        await expect(page.locator("#analysis-toggle")).to_be_hidden()
        assert analyst.asked == []
        await taker.close()


def review_of(game_id: str, moves: list[str]) -> GameAnalysis:
    """A review of a game whose moves 3 and 6 are marked: a blunder by White, a mistake by
    Black, each with a better move."""
    chances = [500 + 30 * (ply % 3) for ply in range(len(moves) + 1)]
    chances[3] = 150
    chances[6] = 700
    reviews = []
    for ply, move in enumerate(moves, 1):
        mover = Colour.WHITE if ply % 2 else Colour.BLACK
        mark = {3: MoveMark.BLUNDER, 6: MoveMark.MISTAKE}.get(ply)
        better = None
        if mark is not None:
            found = position_after(moves[: ply - 1]).random_move(ply)
            assert found is not None
            better = str(found)
        reviews.append(MoveReview(ply, move, mover, 380 if mark else 10, mark, better))
    summary = (PlayerReview(Colour.WHITE, 0, 0, 1, 60), PlayerReview(Colour.BLACK, 0, 1, 0, 40))
    total = len(moves) + 1
    return GameAnalysis(game_id, total, total, True, tuple(chances), tuple(reviews), summary)


@pytest.mark.asyncio
async def test_a_finished_game_is_reviewed_whole_and_its_graph_and_marks_go_there(
    browser: Browser, redis_url: str, artifacts: Path
) -> None:
    moves = random_game("6x6", seed=5)
    async with serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        for ply, move in enumerate(moves):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))
        analyst = Analyst()
        page = await watching(browser, http_url(url) + f"/game/{game_id}", analyst)
        last = len(moves)
        await expect(page.locator("#board")).to_have_attribute(
            "data-ply", str(last), timeout=WAIT_MS
        )
        shown = await analyst.request(1)
        assert shown == Analyze(game_id=game_id, ply=last, id=shown.id)
        analyst.answer(shown, judged(shown, 0, (), exact=True))
        await page.click("#review-game")
        asked = await analyst.request(2)
        assert asked == AnalyzeGame(game_id, id=asked.id)
        total = last + 1
        analyst.answer(asked, GameAnalysis(game_id, 3, total))
        await expect(page.locator("#review-state")).to_have_text(
            f"Analysing the game: 3 of {total} positions"
        )
        await expect(page.locator("#review-game")).to_be_hidden()
        analyst.answer(asked, GameAnalysis(game_id, 9, total))
        await expect(page.locator("#review-state")).to_have_text(
            f"Analysing the game: 9 of {total} positions"
        )
        review = review_of(game_id, moves)
        analyst.answer(asked, review)
        await expect(page.locator("#eval-graph .graph-ply")).to_have_count(total, timeout=WAIT_MS)
        await expect(page.locator("#review-state")).to_have_text("")
        await expect(page.locator("#eval-graph .graph-mark")).to_have_count(2)
        marked = page.locator("#moves .move[data-mark]")
        await expect(marked).to_have_count(2)
        assert await marked.all_text_contents() == [f"{moves[2]}??", f"{moves[5]}?"]
        await expect(page.locator("#review-summary li")).to_have_text(
            [
                "White: 0 ?!, 0 ?, 1 ?? · average loss 6.0%",
                "Black: 0 ?!, 1 ?, 0 ?? · average loss 4.0%",
            ]
        )

        # A point of the graph goes to its ply; a marked move to its, the better move drawn.
        await page.locator('#eval-graph .graph-ply[data-ply="2"]').click()
        await expect(page.locator("#board")).to_have_attribute("data-ply", "2")
        await expect(page.locator("#board .arrow.better")).to_have_count(0)
        await marked.first.click()
        await expect(page.locator("#board")).to_have_attribute("data-ply", "3")
        better = review.moves[2].better
        await expect(page.locator("#board .arrow.better")).to_have_attribute(
            "data-move", str(better)
        )
        await expect(page.locator("#move-mark")).to_have_text(
            f"{moves[2]}?? blunder: {better} was better (white lost 38.0%)"
        )
        await shots(page, artifacts, "review")
        await white.close()
        await black.close()


@pytest.mark.asyncio
async def test_the_real_servers_judgement_and_review_on_the_page(
    browser: Browser, redis_url: str, redis: Redis, artifacts: Path
) -> None:
    """No test in between: the server's own answers, from an analysis worker."""
    moves = random_game("6x6", seed=5)
    async with analysis_worker(redis), serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        for ply in range(6):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, moves[ply]))
        page, errors = await open_page(browser, http_url(url) + f"/game/{game_id}")
        await expect(page.locator("#eval-chance")).not_to_be_empty(timeout=ANALYSIS_MS)
        viewer = await guest(url)
        told = await viewer.request(Analyze(game_id=game_id, ply=6), Analysis)
        assert told.white_wins is not None
        await expect(page.locator("#eval-chance")).to_have_text(
            chance_text(told.white_wins, told.exact)
        )
        if told.line:
            await expect(page.locator("#eval-line")).to_have_text(
                "Best line: " + " ".join(told.line)
            )
        if told.note and not told.exact:
            await expect(page.locator("#eval-exact")).to_have_text(told.note)
        await shots(page, artifacts, "real-live")

        for ply in range(6, len(moves)):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, moves[ply]))
        await expect(page.locator("#review-game")).to_be_visible(timeout=WAIT_MS)
        await page.click("#review-game")
        total = len(moves) + 1
        graph = page.locator("#eval-graph .graph-ply")
        await expect(graph).to_have_count(total, timeout=ANALYSIS_MS)
        review = await viewer.request(AnalyzeGame(game_id), GameAnalysis)
        assert review.complete  # reviewed once, kept: the whole review at once
        marked = [move for move in review.moves if move.mark is not None]
        await expect(page.locator("#moves .move[data-mark]")).to_have_count(len(marked))
        await expect(page.locator("#review-summary li")).to_have_count(2)
        await graph.nth(4).click()
        await expect(page.locator("#board")).to_have_attribute("data-ply", "4")
        if marked:
            await page.locator("#moves .move[data-mark]").first.click()
            await expect(page.locator("#board")).to_have_attribute("data-ply", str(marked[0].ply))
            await expect(page.locator("#board .arrow.better")).to_have_count(1)
        await shots(page, artifacts, "real-review")
        assert errors == []
        for client in (white, black, viewer):
            await client.close()


@pytest.mark.asyncio
async def test_a_bao_spectator_gets_the_real_servers_judgement(
    browser: Browser, redis_url: str, redis: Redis, artifacts: Path
) -> None:
    async with analysis_worker(redis), serving(redis_url) as url:
        white, black = await guest(url), await guest(url)
        seek = Seek(
            TimeControl(300, 0), setup="zanzibar", colour=ColourPreference.WHITE, game="bao"
        )
        added = await white.request(seek, SeekAdded)
        started = await black.request(AcceptSeek(added.seek.seek_id), GameStarted)
        game_id = started.game_id
        state = get_game("bao").new_state("zanzibar")
        for ply in range(2):
            move = next(iter(state.legal_moves))
            text = state.format_move(move)
            await (white if ply == 0 else black).request(PlayMove(game_id, ply, text))
            state.apply(move)
        page, errors = await open_page(browser, http_url(url) + f"/game/{game_id}")
        await expect(page.locator("#eval-chance")).not_to_be_empty(timeout=ANALYSIS_MS)
        viewer = await guest(url)
        told = await viewer.request(Analyze(game_id=game_id, ply=2), Analysis)
        assert told.white_wins is not None
        assert told.game == "bao"
        await expect(page.locator("#eval-chance")).to_have_text(
            chance_text(told.white_wins, told.exact)
        )
        # Bao has no regions: no region values. Its best move marks the pit it sows from.
        await expect(page.locator("#analysis-toggle")).to_be_hidden()
        assert told.line
        await page.check("#best-line")
        best = page.locator("#board .pit.hint.best")
        await expect(best).to_have_attribute("data-move", told.line[0])
        await expect(best).to_have_attribute("data-pit", told.line[0][:2])
        await expect(best).to_have_attribute("data-side", "south")
        await shots(page, artifacts, "bao-live")
        assert errors == []
        for client in (white, black, viewer):
            await client.close()
