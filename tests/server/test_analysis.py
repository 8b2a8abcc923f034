"""Analysis through the workers: one judgement per position however many wait for it and on
however many servers, a request whose worker died judged by another, the limits per user and
the busy case, and the requests over real websockets (bad input refused in one line each, Bao
answered, a finished game reviewed once and kept)."""

import asyncio
from typing import Any

import pytest
from redis.asyncio import Redis

from clients import ArenaClient, ArenaError
from engine.game import get_game
from server import analysis_queue
from server.analysis_queue import (
    ANALYSTS,
    GROUP,
    LIVE,
    MAX_LIVE_WAITING,
    REVIEW,
    AnalysisLimits,
    AnalysisQueue,
)
from server.clock import now_ms
from server.db import Database
from server.games import open_redis
from server.protocol import (
    Analysis,
    Analyze,
    AnalyzeGame,
    ErrorCode,
    GameAnalysis,
    PlayMove,
    ProtocolError,
    Resign,
    Watch,
)
from tests.redis_cluster import LocalCluster
from tests.server.endpoint import analysis_worker, guest, random_game, serving, start_game
from tests.server.wire import Wire

SIX = get_game("amazons").new_state("6x6").text()
BAO = get_game("bao").new_state().text()


@pytest.mark.asyncio
async def test_fifty_waiting_on_two_servers_cost_one_judgement(
    redis: Redis, redis_url: str
) -> None:
    servers = [AnalysisQueue(open_redis(redis_url)) for _ in range(2)]
    try:
        async with (
            analysis_worker(redis, "w1") as (first, counted),
            analysis_worker(redis, "w2", counted) as (second, _),
        ):
            got = await asyncio.gather(
                *(servers[i % 2].judgement("amazons", SIX) for i in range(50))
            )
            assert counted.calls == 1
            assert {j.position for j in got} == {SIX}
            assert len({j.white_wins for j in got}) == 1
            # Asked again later, from the cache; another position is judged once more.
            await servers[1].judgement("amazons", SIX)
            after = get_game("amazons").new_state("6x6")
            after.apply(after.parse_move(random_game("6x6", 1)[0]))
            await asyncio.gather(*(s.judgement("amazons", after.text()) for s in servers))
            assert counted.calls == 2
            assert first.computed + second.computed == 2
    finally:
        for server in servers:
            await server.close()
            await server.redis.aclose()


@pytest.mark.asyncio
async def test_a_request_whose_worker_died_is_judged_by_another(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis_queue, "RECLAIM_MS", 300)
    queue = AnalysisQueue(redis)
    await redis.xgroup_create(LIVE, GROUP, id="0", mkstream=True)
    waiting = asyncio.create_task(queue.judgement("bao", BAO))
    async with asyncio.timeout(10):
        while not await redis.xlen(LIVE):
            await asyncio.sleep(0.02)
    # A worker takes it and dies before it is judged: never acknowledged.
    taken = await redis.xreadgroup(GROUP, "dead", {LIVE: ">"}, count=1)
    assert taken
    async with analysis_worker(redis) as (worker, _):
        async with asyncio.timeout(30):
            judgement = await waiting
    assert judgement.position == BAO
    assert worker.computed == 1
    assert await redis.xlen(LIVE) == 0
    await queue.close()


@pytest.mark.asyncio
async def test_the_limits_and_the_busy_case(redis: Redis) -> None:
    queue = AnalysisQueue(redis, AnalysisLimits(per_minute=2))
    with pytest.raises(ProtocolError) as none:
        await queue.admit("ann")
    assert none.value.code is ErrorCode.UNAVAILABLE
    assert none.value.retry_after == 10
    assert str(none.value) == "no analysis worker is running; try again later"
    await redis.zadd(ANALYSTS, {"w1": now_ms() + 10_000})
    await queue.admit("ann")
    await queue.admit("Ann")
    with pytest.raises(ProtocolError) as over:
        await queue.admit("ann")
    assert over.value.code is ErrorCode.RATE_LIMITED
    assert str(over.value) == "at most 2 analyses a minute; try again"
    assert over.value.retry_after is not None
    assert 1 <= over.value.retry_after <= 60
    await queue.admit("bob")  # each user has a limit of their own
    for _ in range(MAX_LIVE_WAITING):
        await redis.xadd(LIVE, {"game": "bao", "position": BAO})
    with pytest.raises(ProtocolError) as busy:
        await queue.admit("carol")
    assert busy.value.code is ErrorCode.UNAVAILABLE
    assert str(busy.value) == f"{MAX_LIVE_WAITING} positions are waiting for analysis; try again"
    assert busy.value.retry_after is not None
    assert busy.value.retry_after >= 1


async def _refused(client: ArenaClient, request: Any) -> str:
    with pytest.raises(ArenaError) as refused:
        await client.request(request)
    reply = refused.value.reply
    assert "\n" not in reply.message
    return f"{reply.code} {reply.message}"


@pytest.mark.asyncio
async def test_analysis_over_the_wire(redis: Redis, redis_url: str) -> None:
    async with (
        analysis_worker(redis) as (worker, _),
        serving(redis_url, analysis_limits=AnalysisLimits(per_minute=3)) as url,
    ):
        white, black, game_id = await start_game(url)
        spectator = await guest(url)
        await spectator.request(Watch(game_id))
        assert await _refused(spectator, Analyze("3Q2 w")) == (
            "bad_field " + _notation_error("amazons", "3Q2 w")
        )
        assert (await _refused(spectator, Analyze(SIX, game="chess"))).startswith(
            "bad_field unknown game 'chess'"
        )
        assert await _refused(spectator, Analyze(game_id=game_id, ply=3)) == (
            f"bad_field ply 3 is past the end of game {game_id} (0 moves)"
        )
        assert await _refused(white, Analyze(game_id=game_id)) == (
            f"forbidden no analysis of your own game {game_id} while it is played"
        )
        assert await _refused(spectator, AnalyzeGame(game_id)) == (
            f"forbidden game {game_id} is still being played: a game is reviewed once it has ended"
        )
        assert (
            await _refused(spectator, AnalyzeGame("nosuchgame")) == "not_found no game nosuchgame"
        )
        # Bao is answered, with the engine's judgement and no regions.
        bao = await spectator.request(Analyze(BAO, game="bao"), Analysis)
        assert (bao.game, bao.regions, bao.sum) == ("bao", (), "?")
        assert bao.white_wins is not None
        assert 0 <= bao.white_wins <= 1000
        assert bao.line
        assert bao.note
        # A spectator's position by game and ply: the ply echoed.
        seen = await spectator.request(Analyze(game_id=game_id, ply=0), Analysis)
        assert (seen.game_id, seen.ply, seen.position) == (game_id, 0, SIX)
        assert seen.white_wins is not None
        assert seen.line
        assert worker.computed == 2
        # Positions judged before cost nothing: asked again, nothing is counted.
        await spectator.request(Analyze(SIX), Analysis)
        await spectator.request(Analyze(game_id=game_id, ply=0), Analysis)
        # Two new positions are within the limit of 3; a third is over it.
        await white.request(PlayMove(game_id, 0, random_game("6x6", 1)[0]))
        await spectator.request(Analyze(game_id=game_id, ply=1), Analysis)
        assert (await _refused(spectator, Analyze(BAO.replace("22-22", "22-21"), game="bao"))) == (
            "rate_limited at most 3 analyses a minute; try again"
        )
        for client in (white, black, spectator):
            await client.close()


def _notation_error(game: str, text: str) -> str:
    try:
        get_game(game).parse_state(text)
    except ValueError as error:
        return str(error)
    raise AssertionError(f"{text!r} is a position")


@pytest.mark.asyncio
async def test_a_finished_game_is_reviewed_once_and_kept(
    redis: Redis, redis_url: str, database: Database
) -> None:
    moves = random_game("6x6", 5)[:12]
    async with serving(redis_url) as url:
        white, black, game_id = await start_game(url)
        async with analysis_worker(redis) as (worker, _):
            for ply, move in enumerate(moves):
                await (white if ply % 2 == 0 else black).request(PlayMove(game_id, ply, move))
            await black.request(Resign(game_id))
            # One position judged before the review: it costs nothing then.
            await white.request(Analyze(game_id=game_id, ply=4), Analysis)
            assert worker.computed == 1
            wire = await Wire.guest(url)
            asked = wire.send("analyze_game", game_id=game_id)
            complete = await wire.wait_for(
                lambda f: f.get("id") == asked and f.get("complete") is True, timeout=120
            )
            replies = [f for f in wire.frames if f.get("id") == asked]
            assert all(f["t"] == "game_analysis" for f in replies)
            progress = [f["done"] for f in replies if not f.get("complete")]
            assert progress == sorted(progress)
            assert all(0 < d < 13 for d in progress)
            assert (complete["done"], complete["total"]) == (13, 13)
            assert len(complete["white_wins"]) == 13
            assert [m["move"] for m in complete["moves"]] == moves
            assert [m["mover"] for m in complete["moves"][:2]] == ["white", "black"]
            assert [s["colour"] for s in complete["summary"]] == ["white", "black"]
            assert worker.computed == 13  # 12 more: the one judged before was free
        # Asked again with no worker running: the review kept with the game, at once.
        review = await white.request(AnalyzeGame(game_id), GameAnalysis)
        assert review.complete
        assert review.white_wins == tuple(complete["white_wins"])
        assert [m.move for m in review.moves] == moves
        await wire.close()
        for client in (white, black):
            await client.close()


@pytest.mark.asyncio
async def test_a_worker_makes_its_groups_again_once_redis_has_lost_them(redis: Redis) -> None:
    queue = AnalysisQueue(redis)
    async with analysis_worker(redis) as (worker, _):
        await redis.delete(LIVE, REVIEW)  # as a Redis started afresh, with no persistence
        async with asyncio.timeout(30):
            judgement = await queue.judgement("bao", BAO)
    assert judgement.position == BAO
    assert worker.computed == 1
    await queue.close()


@pytest.mark.asyncio
async def test_analysis_on_a_redis_cluster(redis_cluster: LocalCluster) -> None:
    client = open_redis(redis_cluster.url)
    queue = AnalysisQueue(client, AnalysisLimits(per_minute=1))
    try:
        async with analysis_worker(client) as (worker, _):
            await queue.admit("ann")
            judgements = await asyncio.gather(*(queue.judgement("bao", BAO) for _ in range(5)))
            assert {j.position for j in judgements} == {BAO}
            assert worker.computed == 1
            with pytest.raises(ProtocolError) as over:
                await queue.admit("ann")
            assert over.value.code is ErrorCode.RATE_LIMITED
    finally:
        await queue.close()
        await client.aclose()


@pytest.mark.asyncio
async def test_a_judgement_of_another_effort_or_form_is_not_read(
    redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue = AnalysisQueue(redis)
    async with analysis_worker(redis):
        await queue.judgement("bao", BAO)
    assert await queue.cached("bao", BAO) is not None
    monkeypatch.setattr(analysis_queue, "DEFAULT_EFFORT", analysis_queue.DEFAULT_EFFORT + 1)
    assert await queue.cached("bao", BAO) is None
    monkeypatch.undo()
    monkeypatch.setattr(analysis_queue, "JUDGEMENT_FORM", analysis_queue.JUDGEMENT_FORM + 1)
    assert await queue.cached("bao", BAO) is None
    await queue.close()
