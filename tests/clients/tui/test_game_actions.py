"""The game screen's actions against another player, as a person would use them: a premove
sent the moment it is the user's turn and one cancelled when the opponent's move makes it
illegal, aborting before both sides have moved, and claiming victory when the opponent has
left, after the countdown the server gives."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from textual.pilot import Pilot
from textual.widgets import Input, Static

from clients import ArenaClient
from clients.tui import ArenaApp
from clients.tui.game import GameScreen
from engine.amazons import Move, Position
from server.protocol import (
    Challenge,
    ChallengeAdded,
    Colour,
    GameStatus,
    MovePlayed,
    PlayMove,
    Termination,
    TimeControl,
)
from tests.clients.tui.test_app import as_guest, keys, playing, rows, until
from tests.clients.tui.test_game import latest
from tests.server.endpoint import guest, serving

CLAIM_GRACE_MS = 1_000


@contextlib.asynccontextmanager
async def against_white(
    redis_url: str, **options: int
) -> AsyncIterator[tuple[ArenaApp, Pilot[None], GameScreen, ArenaClient]]:
    """The app as Black on 6x6 against a scripted White, who challenged it; the game screen."""
    async with serving(redis_url, **options) as url, playing(url) as (app, pilot):
        lobby = await as_guest(app, pilot)
        assert app.user is not None
        white = await guest(url)
        await white.request(
            Challenge(app.user.name, TimeControl(180, 2), setup="6x6", colour="white"),
            ChallengeAdded,
        )
        await until(pilot, lambda: len(rows(lobby, "challenges")) == 1, "the challenge")
        await pilot.press("tab", "tab", "y")  # to the challenges, and accept
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        assert isinstance(app.screen, GameScreen)
        yield app, pilot, app.screen, white
        await white.close()


async def type_move(pilot: Pilot[None], screen: GameScreen, text: str) -> None:
    field = screen.query_one("#move-text", Input)
    field.focus()
    field.value = text
    await pilot.press("enter")


def untouched_pair(position: Position) -> tuple[Move, Move]:
    """A White move and a Black move on no square of each other: the Black one stays legal
    after the White one."""
    black_view = Position.parse(position.text().split()[0] + " b")
    for white in position.legal_moves:
        after = position.clone()
        after.apply(white)
        for black in black_view.legal_moves:
            if after.is_legal(black):
                return white, black
    raise AssertionError("no such pair")


def spoiling_pair(position: Position) -> tuple[Move, Move]:
    """A Black move and a White move that lands on the Black move's destination."""
    black_view = Position.parse(position.text().split()[0] + " b")
    for black in black_view.legal_moves:
        for white in position.legal_moves:
            if white.target == black.target:
                return white, black
    raise AssertionError("no such pair")


@pytest.mark.asyncio
async def test_a_premove_is_drawn_and_sent_on_the_users_turn_and_one_spoilt_is_cancelled(
    redis_url: str, redis: Redis
) -> None:
    async with against_white(redis_url) as (app, pilot, screen, white):
        game_id = screen.game_id
        start = latest(app, screen).position()
        assert isinstance(start, Position)
        white_move, black_move = untouched_pair(start)
        await type_move(pilot, screen, str(black_move))
        assert screen.board.premove == str(black_move)
        assert f"premove {black_move}" in str(screen.query_one("#turn", Static).render())
        assert "cancel_premove" in keys(screen)
        await white.request(PlayMove(game_id, 0, str(white_move)), MovePlayed)
        await until(pilot, lambda: latest(app, screen).ply == 2, "the premove to be played")
        assert latest(app, screen).moves == (str(white_move), str(black_move))
        assert screen.board.premove is None
        assert "cancel_premove" not in keys(screen)

        position = latest(app, screen).position()
        assert isinstance(position, Position)
        white_move, black_move = spoiling_pair(position)
        await type_move(pilot, screen, str(black_move))
        assert screen.board.premove == str(black_move)
        await white.request(PlayMove(game_id, 2, str(white_move)), MovePlayed)
        notice = screen.query_one("#game-notice", Static)
        await until(pilot, lambda: "cancelled" in str(notice.render()), "the premove to go")
        assert str(notice.render()).startswith(f"premove {black_move} cancelled: ")
        assert screen.board.premove is None
        view = latest(app, screen)
        assert (view.ply, view.to_move) == (3, Colour.BLACK)


@pytest.mark.asyncio
async def test_the_game_is_aborted_with_the_key_pressed_twice(redis_url: str, redis: Redis) -> None:
    async with against_white(redis_url) as (app, pilot, screen, _):
        # A player sees no analysis of their own live game.
        assert screen.panel is None
        assert not screen.query("#analysis")
        # Abort applies before both sides have moved; nothing to claim or unpremove.
        assert {"resign", "abort", "type_move", "to_board"} <= keys(screen)
        assert keys(screen) & {"claim", "cancel_premove", "review"} == set()
        await pilot.press("ctrl+o")
        notice = screen.query_one("#game-notice", Static)
        assert str(notice.render()) == "press the key again to abort the game"
        assert latest(app, screen).status is GameStatus.PLAYING
        await pilot.press("ctrl+o")
        await until(pilot, lambda: latest(app, screen).status is GameStatus.ENDED, "the end")
        assert latest(app, screen).termination is Termination.ABORTED
        turn = screen.query_one("#turn", Static)
        over = "Game over: no winner (aborted: you aborted it)."
        await until(pilot, lambda: str(turn.render()).startswith(over), "the end shown")
        # The board offers no move, not even a premove, in a game that is over.
        assert screen.board.ended
        assert screen.board.entry_state is None


@pytest.mark.asyncio
async def test_victory_is_claimed_once_the_opponent_has_been_away_long_enough(
    redis_url: str, redis: Redis
) -> None:
    async with against_white(redis_url, claim_grace_ms=CLAIM_GRACE_MS) as (
        app,
        pilot,
        screen,
        white,
    ):
        assert "claim" not in keys(screen)
        await white.close()
        top = screen.query_one("#top-player", Static)
        await until(pilot, lambda: "(away: ctrl+y claims)" in str(top.render()), "the countdown")
        assert "claim" in keys(screen)
        await pilot.press("ctrl+y")
        # A stall of this loaded test process past the server's outage threshold (3 s) is an
        # outage to the server: it gives the away side its grace again and refuses a claim
        # until that passes (server/outage.py). The claim is then made again, as a person
        # would after its refusal.
        deadline = asyncio.get_running_loop().time() + 30
        while latest(app, screen).status is not GameStatus.ENDED:
            assert asyncio.get_running_loop().time() < deadline, "the claim never ended the game"
            await pilot.pause(CLAIM_GRACE_MS / 1000)
            if latest(app, screen).status is not GameStatus.ENDED and "claim" in keys(screen):
                await pilot.press("ctrl+y")
        view = latest(app, screen)
        assert (view.winner, view.termination) == (Colour.BLACK, Termination.ABANDONED)
        # The screen draws the end a moment after the client's view of the game has it.
        turn = screen.query_one("#turn", Static)
        await until(pilot, lambda: "wins by abandoned" in str(turn.render()), "the end shown")
