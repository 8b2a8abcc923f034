"""A finished game analysed whole in the terminal's review, as a person would: `a` asks, the
progress shows, then the evaluation as a line of blocks with a caret at the position shown,
each marked move's sign in the move list, each side's summary; `n` and `p` go to the next and
previous marked move, whose better move is drawn on the board; a click on the graph goes to
that position; `l` draws the best line's first move. The server's review comes from
`Reviewer` below (a scripted analyst), its progress as the app hands it to the screen, and once
from a real server and analysis worker.
Screenshots go to `test-artifacts/tui/` to be looked at."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from redis.asyncio import Redis
from textual.widgets import Static

from clients.changes import ReviewProgress
from clients.tui.analysis import ServerAnalyst
from clients.tui.messages import ServerChange
from clients.tui.review import EvaluationGraph, MoveList, ReviewApp
from engine.amazons import Position
from server.cli import _fetch
from server.protocol import (
    Analysis,
    AnalyzeGame,
    Colour,
    ErrorCode,
    GameAnalysis,
    MoveMark,
    MoveReview,
    PlayerReview,
    PlayMove,
    ProtocolError,
)
from tests.clients.tui.test_app import ANALYSIS_WAIT_SECONDS, keys, until
from tests.clients.tui.test_review import MOVES, finished
from tests.server.endpoint import analysis_worker, guest, serving, start_game

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "tui"


class Reviewer:
    """The server's analysis as the test scripts it: each position judged White 55% with the
    move played as its line; the review waits for `release` and then answers `answer`."""

    def __init__(self, *answers: GameAnalysis | ProtocolError) -> None:
        self.answers = list(answers)
        self.release = asyncio.Event()
        self.reviews: list[str] = []

    async def analyze(self, text: str, game: str) -> Analysis:
        raise AssertionError("a game of the server's is asked about by ply")

    async def analyze_ply(self, game_id: str, ply: int) -> Analysis:
        line = tuple(MOVES[ply : ply + 2])
        return Analysis(
            "6/6/6/6/6/6 w", (), "?", game_id=game_id, ply=ply, white_wins=550, line=line
        )

    async def review(self, game_id: str) -> GameAnalysis:
        self.reviews.append(game_id)
        await self.release.wait()
        answer = self.answers.pop(0)
        if isinstance(answer, ProtocolError):
            raise answer
        return answer


def better_than(ply: int) -> str:
    """A legal move in the position before move `ply` (from 1), other than the one played."""
    position = Position.setup("6x6")
    for text in MOVES[: ply - 1]:
        position.apply(position.parse_move(text))
    found = next(str(m) for m in position.legal_moves if str(m) != MOVES[ply - 1])
    return found


def review_of(game_id: str) -> GameAnalysis:
    """Moves 3 (White's) a blunder and 6 (Black's) a mistake, each with a better move."""
    chances = [500] * (len(MOVES) + 1)
    chances[3], chances[6] = 0, 1000
    marks = {3: MoveMark.BLUNDER, 6: MoveMark.MISTAKE}
    moves = tuple(
        MoveReview(
            ply,
            move,
            Colour.WHITE if ply % 2 else Colour.BLACK,
            400 if ply in marks else 0,
            marks.get(ply),
            better_than(ply) if ply in marks else None,
        )
        for ply, move in enumerate(MOVES, 1)
    )
    summary = (PlayerReview(Colour.WHITE, 0, 0, 1, 31), PlayerReview(Colour.BLACK, 0, 1, 0, 27))
    total = len(MOVES) + 1
    return GameAnalysis(game_id, total, total, True, tuple(chances), moves, summary)


def text(app: ReviewApp, name: str) -> str:
    return str(app.review.query_one(name, Static).content)


@pytest.mark.asyncio
async def test_a_game_analysed_whole_shows_its_graph_marks_and_summary() -> None:
    record = replace(finished(), game_id="g1")
    review = review_of("g1")
    reviewer = Reviewer(review)
    app = ReviewApp(record, reviewer)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.review
        graph = screen.query_one(EvaluationGraph)
        assert not graph.display
        await pilot.press("a")
        await until(pilot, lambda: reviewer.reviews == ["g1"], "the review asked")
        assert text(app, "#review-progress") == "Analysing the game..."
        total = len(MOVES) + 1
        screen.post_message(ServerChange(ReviewProgress("g1", 5, total)))
        await until(
            pilot,
            lambda: text(app, "#review-progress") == f"Analysing the game: 5 of {total} positions",
            "the progress",
        )
        reviewer.release.set()
        await until(pilot, lambda: graph.display, "the graph")
        assert not screen.query_one("#review-progress").display
        blocks, caret = str(graph.content).splitlines()
        assert len(blocks) == total  # a block a position: they fit
        assert (blocks[3], blocks[6], blocks[0]) == ("▁", "█", "▄")
        assert caret == " " * len(MOVES) + "^"  # at the end, where the review stands
        entries = [str(o.prompt) for o in screen.query_one(MoveList).options]
        assert entries[3].endswith(f"{MOVES[2]}??")
        assert entries[6].endswith(f"{MOVES[5]}?")
        assert sum(entry.endswith("?") for entry in entries) == 2
        assert text(app, "#review-summary").splitlines() == [
            "White: 0 inaccuracies, 0 mistakes, 1 blunder; average loss 3.1%",
            "Black: 0 inaccuracies, 1 mistake, 0 blunders; average loss 2.7%",
        ]
        # Already analysed: the key is gone.
        assert "review" not in keys(screen)

        await pilot.press("home")
        await pilot.press("n")
        assert screen.ply == 3
        better = review.moves[2].better
        assert text(app, "#review-mark") == (
            f"{MOVES[2]}?? blunder: {better} was better (white lost 40.0%)"
        )
        await until(pilot, lambda: screen.board.hint == better, "the better move drawn")
        await until(pilot, lambda: "White 55%" in screen.panel.text, "the judgement")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(str(ARTIFACTS / "review-analysed.svg"))
        await pilot.press("n")
        assert screen.ply == 6
        await pilot.press("n")
        assert screen.ply == 6  # no marked move after it
        await pilot.press("p")
        assert screen.ply == 3
        await pilot.press("left")
        await until(pilot, lambda: screen.board.hint is None, "no hint off a marked move")
        assert not screen.query_one("#review-mark").display
        # The best line's first move, on request.
        await pilot.press("l")
        await until(pilot, lambda: screen.board.hint == MOVES[2], "the best move drawn")
        # A click on the graph's first block goes to the start.
        await pilot.click(EvaluationGraph, offset=(0, 0))
        await until(pilot, lambda: screen.ply == 0, "the start")


@pytest.mark.asyncio
async def test_a_review_refused_says_why_in_one_line_after_a_busy_server_is_asked_again() -> None:
    busy = ProtocolError(ErrorCode.RATE_LIMITED, "one of yours is running", retry_after=0)
    refused = ProtocolError(ErrorCode.UNAVAILABLE, "no analysis worker is running")
    reviewer = Reviewer(busy, refused)
    reviewer.release.set()
    app = ReviewApp(replace(finished(), game_id="g1"), reviewer)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("a")
        await until(
            pilot,
            lambda: text(app, "#review-progress").startswith("No review: "),
            "the refusal",
        )
        assert "no analysis worker is running" in text(app, "#review-progress")
        assert reviewer.reviews == ["g1", "g1"]
        assert not app.review.query_one(EvaluationGraph).display


@pytest.mark.asyncio
async def test_a_record_file_has_no_whole_game_analysis() -> None:
    app = ReviewApp(finished(), None)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("a")
        await pilot.pause(0.2)
        assert not app.review.query_one("#review-progress").display


@pytest.mark.asyncio
async def test_a_servers_game_is_analysed_whole_by_the_server(redis_url: str, redis: Redis) -> None:
    """No script in between: the server's own review, from an analysis worker."""
    async with analysis_worker(redis), serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        for ply, move in enumerate(MOVES):
            await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))
        viewer = await guest(url)
        record = await _fetch(viewer, game_id, url)
        app = ReviewApp(record, ServerAnalyst(viewer.request), f"game {game_id}")
        async with app.run_test(size=(100, 40)) as pilot:
            screen = app.review
            await pilot.press("a")
            graph = screen.query_one(EvaluationGraph)
            await until(pilot, lambda: graph.display, "the review", ANALYSIS_WAIT_SECONDS)
            review = await viewer.request(AnalyzeGame(game_id), GameAnalysis)
            assert screen.review == replace(review, id=screen.review.id if screen.review else None)
            marked = [m for m in review.moves if m.mark is not None]
            entries = [str(o.prompt) for o in screen.query_one(MoveList).options]
            assert sum(entry.endswith(("?", "?!")) for entry in entries) == len(marked)
            assert len(text(app, "#review-summary").splitlines()) == 2
            if marked:
                await pilot.press("home", "n")
                assert screen.ply == marked[0].ply
                await until(pilot, lambda: screen.board.hint == marked[0].better, "better move")
            app.save_screenshot(str(ARTIFACTS / "review-server.svg"))
        for client in (white, black, viewer):
            await client.close()
