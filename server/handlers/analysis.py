"""Analysis on request: the engine's judgement of a position given as text, or of a game's
position after some ply, made by the workers once per position (`server.analysis_queue`);
and the review of a finished game, every position judged and each move marked, kept with the
game. Never of a player's own game while it is played.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import structlog

from engine.judge import DEFAULT_EFFORT, Judgement, review, summary
from server.analysis import analysis_event, permille, position_text
from server.analysis_queue import LIVE, REVIEW, AnalysisQueue
from server.clock import now_ms
from server.games import GameStore
from server.protocol import (
    DEFAULT_GAME,
    Analyze,
    AnalyzeGame,
    Colour,
    ErrorCode,
    ErrorReply,
    Event,
    GameAnalysis,
    GameStatus,
    MoveMark,
    MoveReview,
    Player,
    PlayerReview,
    ProtocolError,
)
from server.protocol.schema import Context, decode_fields, encode_fields
from server.stored_game import StoredGame

from .route import Route, on

__all__ = ["ROUTES", "AnalysisConnection", "AnalysisServices"]

log = structlog.get_logger(__name__)

PROGRESS_SECONDS = 0.5  # a review's progress is sent at most this often


@dataclass(frozen=True)
class AnalysisServices:
    """What analysis uses."""

    store: GameStore  # the games whose positions are asked about, and their database
    queue: AnalysisQueue
    # Runs a review for as long as the process does (the request's reply is its last event).
    spawn: Callable[[Coroutine[Any, Any, Any]], None]
    # The connections with a request waiting for the workers: one each at a time.
    waiting: weakref.WeakSet[Any] = field(default_factory=weakref.WeakSet)


class AnalysisConnection(Protocol):
    """The connection as analysis sees it."""

    def me(self) -> Player: ...

    def reply(self, event: Event) -> None: ...


def _one_at_a_time(services: AnalysisServices, connection: AnalysisConnection) -> None:
    if connection in services.waiting:
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            "an analysis of yours is still being made: one at a time",
            retry_after=1,
        )


async def analyze(
    services: AnalysisServices, connection: AnalysisConnection, request: Analyze
) -> None:
    if (request.position is None) == (request.game_id is None):
        raise ProtocolError(
            ErrorCode.BAD_FIELD, "analyze takes either position or game_id", field="position"
        )
    ply = None
    if request.position is not None:
        game_name = request.game or DEFAULT_GAME
        text = position_text(game_name, request.position)
    else:
        assert request.game_id is not None
        game = await services.store.load(request.game_id)
        if game.status is GameStatus.PLAYING and game.colour_of(connection.me().name):
            # Players get no engine help in their own game while it is played.
            raise ProtocolError(
                ErrorCode.FORBIDDEN,
                f"no analysis of your own game {game.game_id} while it is played",
            )
        ply = game.ply if request.ply is None else request.ply
        if ply > game.ply:
            raise ProtocolError(
                ErrorCode.BAD_FIELD,
                f"ply {ply} is past the end of game {game.game_id} ({game.ply} moves)",
                field="ply",
            )
        game_name = game.game
        text = position_text(game_name, game.state_at(ply).text())
    judgement = await services.queue.cached(game_name, text)
    if judgement is None:
        _one_at_a_time(services, connection)
        services.waiting.add(connection)
        try:
            await services.queue.admit(connection.me().name)
            judgement = await services.queue.judgement(game_name, text, LIVE)
        finally:
            services.waiting.discard(connection)
    connection.reply(replace(analysis_event(judgement, request.game_id, ply), id=request.id))


async def analyze_game(
    services: AnalysisServices, connection: AnalysisConnection, request: AnalyzeGame
) -> None:
    game = await services.store.load(request.game_id)
    position_text(game.game, game.start)  # a game the engine judges
    if game.status is GameStatus.PLAYING:
        raise ProtocolError(
            ErrorCode.FORBIDDEN,
            f"game {game.game_id} is still being played: a game is reviewed once it has ended",
        )
    database = services.store.database
    if database is not None:
        from server.db.reviews import game_review

        kept = await game_review(database, game.game_id, DEFAULT_EFFORT)
        if kept is not None:
            connection.reply(_from_json(kept, request.id))
            return
    _one_at_a_time(services, connection)
    await services.queue.admit(connection.me().name, REVIEW)
    services.waiting.add(connection)
    # The positions take a worker seconds each: the connection's other requests go on.
    services.spawn(_review(services, connection, request, game))


async def _review(
    services: AnalysisServices,
    connection: AnalysisConnection,
    request: AnalyzeGame,
    game: StoredGame,
) -> None:
    """Judge every position of `game` (those judged before cost nothing), telling the
    connection how far it has come, then send, and keep, the whole review."""
    try:
        texts = [game.state_at(ply).text() for ply in range(game.ply + 1)]
        total = len(texts)
        judgements: list[Judgement | None] = [None] * total

        async def judged(index: int) -> None:
            judgements[index] = await services.queue.judgement(game.game, texts[index], REVIEW)

        tasks = [asyncio.create_task(judged(index)) for index in range(total)]
        done, told = 0, 0.0
        try:
            for finished in asyncio.as_completed(tasks):
                await finished
                done += 1
                now = asyncio.get_running_loop().time()
                if done < total and now - told >= PROGRESS_SECONDS:
                    told = now
                    connection.reply(GameAnalysis(game.game_id, done, total, id=request.id))
        finally:
            for task in tasks:
                task.cancel()
        complete = _complete(game, [j for j in judgements if j is not None], request.id)
        database = services.store.database
        if database is not None:
            from server.db.reviews import keep_review

            kept = json.dumps(encode_fields(complete))
            await keep_review(database, game.game_id, DEFAULT_EFFORT, kept, now_ms())
        connection.reply(complete)
    except ProtocolError as error:
        connection.reply(ErrorReply.of(error, id=request.id))
    except Exception:
        log.exception("review_failed", game_id=game.game_id)
        connection.reply(
            ErrorReply(ErrorCode.INTERNAL, "the server failed; try again", id=request.id)
        )
    finally:
        services.waiting.discard(connection)


def _complete(
    game: StoredGame, judgements: list[Judgement], request_id: int | None
) -> GameAnalysis:
    reviews = review(game.moves, judgements)
    return GameAnalysis(
        game.game_id,
        len(judgements),
        len(judgements),
        complete=True,
        white_wins=tuple(permille(j.white_wins) for j in judgements),
        moves=tuple(
            MoveReview(
                r.ply,
                r.move,
                Colour(r.mover),
                permille(r.loss),
                None if r.mark is None else MoveMark(r.mark),
                r.better,
            )
            for r in reviews
        ),
        summary=tuple(
            PlayerReview(
                Colour(s.player),
                s.inaccuracies,
                s.mistakes,
                s.blunders,
                permille(s.average_loss),
            )
            for s in summary(reviews)
        ),
        id=request_id,
    )


def _from_json(text: str, request_id: int | None) -> GameAnalysis:
    """A kept review, as the wire map it was kept as."""
    context = Context(GameAnalysis.TAG, strict=False)
    return decode_fields(GameAnalysis, json.loads(text), context, id=request_id)


ROUTES: tuple[Route[AnalysisServices, AnalysisConnection], ...] = (
    on(Analyze, analyze),
    on(AnalyzeGame, analyze_game),
)
