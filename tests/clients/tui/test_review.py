"""Reviewing a finished game as a person would: a record file stepped through with the keys
and the move list, a jump to move N and a bad number refused, the analysis panel following;
`arena review` refusing a bad file in one line; a game fetched by id from a real server; and
the review opened from the game screen once the game ends."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace
from pathlib import Path

import pytest
from redis.asyncio import Redis
from textual.widgets import Static

from clients.tui import ArenaApp
from clients.tui.analysis import ServerAnalyst
from clients.tui.bao_board import BaoBoard
from clients.tui.help import HelpScreen
from clients.tui.review import MoveList, ReviewApp, ReviewScreen
from engine.amazons import Position
from engine.bao import RECOMMENDED, BaoPosition, Move
from engine.bao.board import sowing_steps
from engine.records import GameRecord
from server.cli import _fetch, main
from server.db import Database
from server.protocol import (
    AcceptSeek,
    Analysis,
    Analyze,
    GameStarted,
    GameStatus,
    PlayMove,
    Resign,
    Seek,
    TimeControl,
)
from server.storage import game_key
from tests.clients.tui.test_app import ANALYSIS_WAIT_SECONDS, keys, until
from tests.clients.tui.test_game import play_the_bot
from tests.server.endpoint import analysis_worker, guest, house_worker, random_game, serving

MOVES = random_game("6x6", seed=7)


def finished(setup: str = "6x6", moves: list[str] = MOVES) -> GameRecord:
    """A whole game of random moves as a record of `arena match --out`."""
    end = Position.setup(setup)
    for text in moves:
        end.apply(end.parse_move(text))
    return GameRecord(
        "amazons",
        Position.setup(setup).text(),
        "random",
        "greedy",
        game_id="m1",
        moves=list(moves),
        winner=str(end.winner),
        termination="no legal move",
        setup=setup,
    )


def at(review: ReviewScreen) -> tuple[int, str, str | None]:
    """Where the review stands: the move, the board's position, the move it marks as last."""
    state = review.board.state
    assert state is not None
    return review.ply, state.text(), review.board.last_move


def after(record: GameRecord, ply: int) -> tuple[int, str, str | None]:
    return ply, record.replay(ply).text(), record.moves[ply - 1] if ply else None


def mobility_line(record: GameRecord, ply: int) -> str:
    """The panel's mobility line after `ply` moves, counted by the engine."""
    position = Position.parse(record.replay(ply).text())
    board = position.text().split()[0]
    white, black = (Position.parse(f"{board} {side}").count_moves() for side in "wb")
    return f"Mobility   ○ {white}  ● {black}"


@pytest.mark.asyncio
async def test_a_record_is_stepped_through_jumped_and_chosen_from_the_list() -> None:
    record = finished()
    last = len(record.moves)
    app = ReviewApp(record, None, "games.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        review = app.review
        await pilot.pause()
        # It opens at the end, the last move marked, the result and the players shown.
        assert at(review) == after(record, last)
        texts = [str(s.content) for s in review.query(Static)]
        assert f"{record.winner} wins: no legal move" in texts
        assert str(review.query_one("#review-about", Static).content).startswith(
            "Game m1: amazons 6x6"
        )
        assert "○ white: random" in texts
        assert "● black: greedy" in texts
        assert mobility_line(record, last) in review.panel.text

        await pilot.press("left", "left")
        assert at(review) == after(record, last - 2)
        assert mobility_line(record, last - 2) in review.panel.text
        await pilot.press("right")
        assert at(review) == after(record, last - 1)
        await pilot.press("home")
        assert at(review) == after(record, 0)
        await pilot.press("left")  # nothing before the start
        assert at(review) == after(record, 0)
        await pilot.press("end")
        assert at(review) == after(record, last)

        # g, a number, Enter: that move, numbered as the game screen numbers moves (a move
        # is one of each side's): 3 is the first side's third, 3... the second side's.
        await pilot.press("g", "3", "enter")
        assert at(review) == after(record, 5)
        shown = str(review.query_one("#review-at", Static).content)
        assert shown.startswith(f"3. ○ {record.moves[4]}"), shown
        await pilot.press("g", *"2...", "enter")
        assert at(review) == after(record, 4)
        assert str(review.query_one("#review-at", Static).content).startswith("2... ● ")
        # A number past the end, or not a number: one line, the review stays.
        moves_made = (last + 1) // 2
        for typed in ("99", "x"):
            await pilot.press("g", *typed, "enter")
            notice = str(review.query_one("#review-notice", Static).content)
            assert notice == (
                f"no move {typed!r}: the moves run 0 (start) to {moves_made}, N... for the "
                "second side's"
            )
            await pilot.press("escape")
            assert at(review) == after(record, 4)
        assert isinstance(app.screen, ReviewScreen)

        # The move list: numbered as on the game screen; up and down go through it, Enter or
        # a click on a move shows it.
        moves = review.query_one(MoveList)
        assert str(moves.get_option_at_index(5).prompt) == f"  3.   ○ {record.moves[4]}"
        assert str(moves.get_option_at_index(6).prompt) == f"  3... ● {record.moves[5]}"
        assert moves.has_focus
        assert moves.highlighted == 4
        await pilot.press("down", "down", "down", "up")
        assert at(review) == after(record, 6)
        await pilot.press("home", "down", "enter")
        assert at(review) == after(record, 1)
        row = moves.region.y + 2 - int(moves.scroll_offset.y)  # the line of move 2
        await pilot.click(offset=(moves.region.x + 2, row))
        assert at(review) == after(record, 2)

        # The keys are listed by `?`.
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = dict(app.screen.keys)
        assert listed["←"] == "the move before"
        assert listed["g"] == "go to move N: g, the number (N... for the second side's), Enter"
        await pilot.press("escape")
        # Escape leaves the review, which ends `arena review`.
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 0


@pytest.mark.asyncio
async def test_the_10x10_review_fits_80x24() -> None:
    moves = random_game("10x10", seed=4)
    app = ReviewApp(finished("10x10", moves), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        review = app.review
        screen = app.screen.region
        for part in ("#board", "#review-at", "#review-moves", "#analysis"):
            region = review.query_one(part).region
            assert region.area > 0, part
            assert screen.contains_region(region), f"{part} at {region} is off the screen"
        assert review.board.region.height == 12
        # Nothing overlaps the board: the move list and the panel sit below and beside it.
        for part in ("#review-moves", "#analysis"):
            assert not review.board.region.overlaps(review.query_one(part).region), part


def write(path: Path, *records: GameRecord) -> Path:
    path.write_text("".join(r.to_json() + "\n" for r in records))
    return path


def refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What `arena ARGV` says on stderr when it exits with status 2 before any app starts."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_a_record_file_that_cannot_be_reviewed_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two = write(tmp_path / "two.jsonl", finished(), finished())
    assert refusal(["review", str(two), "--number", "3"], capsys) == (
        f"arena review: error: {two} has 2 games: there is no game 3 (games count from 1)\n"
    )
    missing = tmp_path / "gone.jsonl"
    assert refusal(["review", str(missing)], capsys) == (
        f"arena review: error: cannot read {missing}: No such file or directory\n"
    )
    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n")
    assert refusal(["review", str(junk)], capsys).startswith(
        f"arena review: error: {junk}:1: not a game record: "
    )
    empty = write(tmp_path / "empty.jsonl")
    assert refusal(["review", str(empty)], capsys) == (
        f"arena review: error: {empty} holds no game records\n"
    )
    bad = finished()
    bad.moves[3] = "a1-a1/a1"
    broken = write(tmp_path / "broken.jsonl", bad)
    assert refusal(["review", str(broken)], capsys).startswith(
        "arena review: error: move 4 'a1-a1/a1': "
    )
    takeaway = GameRecord("takeaway", "10 w", "ann", "bob", moves=["3"], winner="black")
    other = write(tmp_path / "takeaway.jsonl", takeaway)
    assert refusal(["review", str(other)], capsys) == (
        "arena review: error: no terminal board for the game 'takeaway': boards exist for "
        "amazons, bao\n"
    )


@pytest.mark.asyncio
async def test_a_finished_game_is_fetched_from_the_server_and_analysed_there(
    redis_url: str, redis: Redis
) -> None:
    async with analysis_worker(redis), serving(redis_url) as url:
        white, black = await guest(url), await guest(url)
        added = await white.request(Seek(TimeControl(300, 0), setup="6x6", colour="white"))
        started = await black.request(AcceptSeek(added.seek.seek_id), GameStarted)
        game_id = started.game_id
        await white.request(PlayMove(game_id, 0, MOVES[0]))
        viewer = await guest(url)
        with pytest.raises(ValueError, match="still being played") as live:
            await _fetch(viewer, game_id, url)
        assert str(live.value) == (
            f"game {game_id} is still being played: review it once it ends "
            "(arena watch follows it live)"
        )
        await black.request(Resign(game_id))
        record = await _fetch(viewer, game_id, url)
        assert (record.moves, record.winner, record.termination) == (
            [MOVES[0]],
            "white",
            "resignation",
        )
        with pytest.raises(ValueError, match="no game nosuchid") as unknown:
            await _fetch(viewer, "nosuchid", url)
        assert str(unknown.value) == (
            f"no game nosuchid on the server at {url}, and no file of that name"
        )

        app = ReviewApp(record, ServerAnalyst(viewer.request), f"game {game_id}")
        async with app.run_test(size=(80, 24)) as pilot:
            review = app.review
            assert str(review.query_one("#review-result", Static).content) == (
                "white wins: resignation"
            )
            # The server's analysis of the position after the one move.
            await until(
                pilot,
                lambda: review.panel is not None and review.panel.analysis is not None,
                "the server's values",
                ANALYSIS_WAIT_SECONDS,
            )
            assert mobility_line(record, 1) in review.panel.text
        for client in (white, black, viewer):
            await client.close()


@pytest.mark.asyncio
async def test_a_game_gone_from_redis_after_its_window_is_fetched_from_the_database(
    redis_url: str, redis: Redis, database: Database
) -> None:
    async with analysis_worker(redis), serving(redis_url, ended_window_ms=200) as url:
        white, black = await guest(url), await guest(url)
        added = await white.request(Seek(TimeControl(300, 0), setup="6x6", colour="white"))
        started = await black.request(AcceptSeek(added.seek.seek_id), GameStarted)
        game_id = started.game_id
        await white.request(PlayMove(game_id, 0, MOVES[0]))
        await black.request(PlayMove(game_id, 1, MOVES[1]))
        await white.request(Resign(game_id))
        viewer = await guest(url)
        in_window = await _fetch(viewer, game_id, url)
        analysed = await viewer.request(Analyze(game_id=game_id, ply=2), Analysis)
        deadline = time.monotonic() + 10
        while await redis.exists(game_key(game_id)):
            assert time.monotonic() < deadline, "the game is still in Redis"
            await asyncio.sleep(0.05)
        record = await _fetch(viewer, game_id, url)
        assert record == in_window
        # Its positions are analysed as they were: the analysis reads the game by id too.
        again = await viewer.request(Analyze(game_id=game_id, ply=2), Analysis)
        assert replace(again, id=None) == replace(analysed, id=None)
        assert (record.moves, record.winner, record.termination) == (
            MOVES[:2],
            "black",
            "resignation",
        )
        for client in (white, black, viewer):
            await client.close()


@pytest.mark.asyncio
async def test_the_game_just_played_is_reviewed_from_the_game_screen(
    redis_url: str, redis: Redis
) -> None:
    async with house_worker(redis, "tui-worker"), serving(redis_url) as url:
        app = ArenaApp(url)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.connection == "connected", "the connection")
            game = await play_the_bot(app, pilot, "6x6")
            # No review while the game is on: the key is neither shown nor working.
            assert "review" not in keys(game)
            await pilot.press("ctrl+g")
            assert app.screen is game
            await pilot.press("ctrl+r", "ctrl+r")
            await until(pilot, lambda: game.view.status is GameStatus.ENDED, "the end")
            assert "ctrl+g: review" in str(game.query_one("#turn", Static).content)
            await until(pilot, lambda: "review" in keys(game), "the review key")
            assert keys(game) & {"resign", "abort", "type_move"} == set()
            await pilot.press("ctrl+g")
            assert isinstance(app.screen, ReviewScreen)
            review = app.screen
            assert review.record.game_id == game.game_id
            assert str(review.query_one("#review-result", Static).content) == (
                "black wins: resignation"
            )
            assert at(review) == after(review.record, len(review.record.moves))
            await pilot.press("escape")
            assert app.screen is game
            await pilot.press("ctrl+q")


@pytest.mark.asyncio
async def test_a_bao_reviews_brackets_step_through_the_move_shown() -> None:
    """In review the board takes no keys, so the screen passes `[` and `]` to it: the sowing of
    the move shown, step by step; stepping to another move shows that move's position."""
    position, chooser, moves = BaoPosition(), random.Random(5), []
    while not position.is_terminal():
        move = chooser.choice(sorted(position.legal_moves))
        moves.append(str(move))
        position.apply(move)
    winner = "white" if position.winner() == 0 else "black"
    record = GameRecord(
        "bao", BaoPosition().text(), "random", "random", game_id="m2", moves=moves, winner=winner
    )
    app = ReviewApp(record, None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        review = app.review
        await pilot.press("home", "right", "right")
        board = review.board
        assert isinstance(board, BaoBoard)
        steps = sowing_steps(record.replay(1).board, RECOMMENDED, Move.parse(moves[1]))
        await pilot.press("right_square_bracket")
        assert board.sowing_step == 0
        assert board.render().plain.splitlines()[-1] == (
            f" the sowing of {moves[1]}: step 1 of {len(steps)}"
        )
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert board.sowing_step == len(steps) - 2
        await pilot.press("right")
        assert board.sowing_step is None
        assert at(review) == after(record, 3)
