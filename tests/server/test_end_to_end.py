"""Whole games over real websockets and a real Redis: players, spectators, house bots, clocks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from clients import ArenaClient, ArenaError
from engine.amazons import Position
from engine.judge import DEFAULT_EFFORT
from server.db import Database, finished_game, games
from server.db.ratings import ratings
from server.games import channel
from server.glicko import Rating
from server.identity import create_account
from server.offers import TimeControls
from server.protocol import (
    AcceptChallenge,
    AcceptSeek,
    Analysis,
    Analyze,
    CancelChallenge,
    Challenge,
    ChallengeAdded,
    ChallengeRemoved,
    ClaimVictory,
    Colour,
    DeclineChallenge,
    ErrorCode,
    GameEnded,
    GameStarted,
    GameStatus,
    ListGames,
    PlayMove,
    Presence,
    QuickPair,
    Resign,
    Seek,
    Termination,
    TimeControl,
    Watch,
)
from server.storage import online_key
from tests.server.endpoint import (
    Counted,
    analysis_worker,
    guest,
    house_worker,
    random_game,
    serving,
    start_game,
)

CLAIM_GRACE_MS = 300


@pytest_asyncio.fixture
async def arena_url(redis: Redis, redis_url: str, database: Database) -> AsyncIterator[str]:
    # A 1 s base, below what a server offers by default, lets a clock run out within a test.
    time_controls = TimeControls.parse("1-10800+180")
    async with serving(
        redis_url, claim_grace_ms=CLAIM_GRACE_MS, time_controls=time_controls
    ) as url:
        yield url


async def _play_white_against_the_house(human: ArenaClient, game_id: str, turns: int) -> None:
    """Up to `turns` times, or until the game ends: a random move when White is to move, then
    wait for the next move (the house bot's, as Black)."""
    for _ in range(turns):
        view = human.games[game_id]
        if view.status is GameStatus.ENDED:
            return
        if view.to_move is Colour.WHITE:
            position = Position.parse(view.start)
            for text in view.moves:
                position.apply(position.parse_move(text))
            move = position.random_move(view.ply)
            assert move is not None
            await human.request(PlayMove(game_id, view.ply, str(move)))
        await human.wait_for(_moved_since(game_id, human.games[game_id].ply), timeout=30)


@pytest.mark.asyncio
async def test_two_players_and_a_spectator_play_a_6x6_game_to_the_end(
    arena_url: str, database: Database
) -> None:
    white, black, game_id = await start_game(arena_url)
    spectator = await guest(arena_url)
    await spectator.request(Watch(game_id))
    moves = random_game("6x6", seed=3)
    for ply, move in enumerate(moves):
        mover = white if ply % 2 == 0 else black
        played = await mover.request(PlayMove(game_id, ply, move))
        assert played.ply == ply
    for client in (white, black, spectator):
        await client.wait_for(lambda c: c.games[game_id].status is GameStatus.ENDED)
        view = client.games[game_id]
        assert view.moves == tuple(moves)
        assert view.termination is Termination.NO_LEGAL_MOVE
        assert view.winner is (Colour.WHITE if len(moves) % 2 == 1 else Colour.BLACK)
        assert view.version == len(moves) + 2  # game_started, the moves, game_ended
    page = await games(database)
    while not page.games:  # handed over by the server just after the end it published
        await asyncio.sleep(0.05)
        page = await games(database)
    assert [game.record.moves for game in page.games] == [moves]
    record = page.games[0].record
    assert record.replay().is_terminal()
    assert (record.winner, record.termination) == (str(view.winner), "no legal move")
    assert len(record.clocks) == len(record.seconds) == len(moves)
    assert record.time == [300, 0]
    for client in (white, black, spectator):
        await client.close()


@pytest.mark.asyncio
async def test_moves_out_of_turn_illegal_or_by_a_spectator_are_refused(arena_url: str) -> None:
    white, black, game_id = await start_game(arena_url)
    spectator = await guest(arena_url)
    await spectator.request(Watch(game_id))
    cases = [
        (black, PlayMove(game_id, 0, "a5-a4/a3"), ErrorCode.NOT_YOUR_TURN),
        (spectator, PlayMove(game_id, 0, "b1-b2/b3"), ErrorCode.NOT_A_PLAYER),
        (white, PlayMove(game_id, 0, "a2-a6/a5"), ErrorCode.ILLEGAL_MOVE),
        (white, PlayMove(game_id, 0, "zz"), ErrorCode.ILLEGAL_MOVE),
        (white, PlayMove(game_id, 3, "b1-b2/b3"), ErrorCode.STALE_PLY),
        (white, PlayMove("nosuchgame", 0, "b1-b2/b3"), ErrorCode.NOT_FOUND),
        (spectator, Resign(game_id), ErrorCode.NOT_A_PLAYER),
    ]
    for client, request, code in cases:
        with pytest.raises(ArenaError) as refused:
            await client.request(request)
        assert refused.value.code is code, request
    first = await white.request(PlayMove(game_id, 0, "b1-b2/b3"))
    again = await white.request(PlayMove(game_id, 0, "b1-b2/b3"))
    assert again.version == first.version  # a resend is answered, not played twice
    ended = await black.request(Resign(game_id), GameEnded)
    assert (ended.winner, ended.termination) == (Colour.WHITE, Termination.RESIGNATION)
    with pytest.raises(ArenaError) as over:
        await black.request(PlayMove(game_id, 1, "a5-a4/a3"))
    assert over.value.code is ErrorCode.GAME_OVER
    games = await spectator.request(ListGames())
    assert game_id not in [g.game_id for g in games.games]
    for client in (white, black, spectator):
        await client.close()


@pytest.mark.asyncio
async def test_a_game_against_a_house_bot_is_played_through_a_worker(
    arena_url: str, redis: Redis
) -> None:
    async with house_worker(redis, "test-worker"):
        human = await guest(arena_url)
        started: GameStarted = await human.request(
            Challenge("greedy", TimeControl(60, 1), setup="6x6", colour="white"), GameStarted
        )
        assert started.black.kind == "house"
        game_id = started.game_id
        await _play_white_against_the_house(human, game_id, turns=60)
        view = human.games[game_id]
        assert view.status is GameStatus.ENDED
        assert view.termination is Termination.NO_LEGAL_MOVE
        assert len(view.moves) >= 8
    await human.close()


@pytest.mark.asyncio
async def test_a_rated_game_against_a_house_bot_rates_both_and_the_bot_at_its_strength(
    arena_url: str, redis: Redis, database: Database
) -> None:
    async with house_worker(redis, "test-worker"):
        human = await _account(arena_url, database, "ann")
        rated = Challenge("random", TimeControl(60, 1), "6x6", True, "white", strength=10)
        started: GameStarted = await human.request(rated, GameStarted)
        assert started.rated
        assert started.black.rating is None  # random@10 has played no rated game
        await _play_white_against_the_house(human, started.game_id, turns=60)
        ended = human.games[started.game_id]
        assert ended.status is GameStatus.ENDED
        won = ended.winner is Colour.WHITE
        async with asyncio.timeout(10):  # the worker ended it: the server's sweep hands it over
            while await finished_game(database, started.game_id) is None:
                await asyncio.sleep(0.05)
        ann = await _rating(database, "ann")
        bot = await _rating(database, "random@10")
        # Both moved from a new player's 1500, the winner up and the loser down.
        assert (ann.rating > 1500) is won
        assert (bot.rating > 1500) is not won
        assert ann.deviation < 350
        assert bot.deviation < 350
        # Another strength of the same bot is a player of its own, and untouched.
        assert await _rating(database, "random@9") == Rating()
        # The bot's next game shows its rating, rounded.
        again = await human.request(
            Challenge("random", TimeControl(60, 1), "6x6", False, "white", strength=10),
            GameStarted,
        )
        assert again.black.rating == round(bot.rating)
        await human.request(Resign(again.game_id))
        guest_client = await guest(arena_url)
        with pytest.raises(ArenaError) as refused:
            await guest_client.request(
                Challenge("random", TimeControl(60, 1), "6x6", True, strength=10)
            )
        assert "guest" in refused.value.reply.message
        await guest_client.close()
    await human.close()


def _moved_since(game_id: str, ply: int) -> Callable[[ArenaClient], bool]:
    def check(client: ArenaClient) -> bool:
        view = client.games[game_id]
        return view.ply > ply or view.status is GameStatus.ENDED

    return check


@pytest.mark.asyncio
async def test_a_player_who_drops_resumes_and_misses_no_move(arena_url: str) -> None:
    white, black, game_id = await start_game(arena_url)
    moves = random_game("6x6", seed=11)
    await white.request(PlayMove(game_id, 0, moves[0]))
    session = black.session
    assert session is not None
    await black.close()
    # While Black is away White cannot move, but the move Black sent before dropping counts.
    again = await ArenaClient.connect(arena_url)
    welcome = await again.resume(session)
    assert game_id in welcome.games
    await again.wait_for(lambda c: game_id in c.games)
    assert again.games[game_id].moves == tuple(moves[:1])
    for ply in range(1, 6):
        mover = white if ply % 2 == 0 else again
        await mover.request(PlayMove(game_id, ply, moves[ply]))
    await white.wait_for(lambda c: c.games[game_id].ply == 6)
    assert white.games[game_id].moves == tuple(moves[:6])
    await again.close()
    await white.close()


@pytest.mark.asyncio
async def test_a_move_published_while_the_subscription_is_down_still_arrives(
    arena_url: str, redis: Redis
) -> None:
    white, black, game_id = await start_game(arena_url)
    spectator = await guest(arena_url)
    await spectator.request(Watch(game_id))
    moves = random_game("6x6", seed=13)
    await white.request(PlayMove(game_id, 0, moves[0]))
    await black.wait_for(lambda c: c.games[game_id].ply == 1)
    await redis.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
    async with asyncio.timeout(2):
        while (await redis.pubsub_numsub(channel(game_id)))[0][1]:
            await asyncio.sleep(0.005)
    # Published to no one: the server's subscription is down for the moment.
    await black.request(PlayMove(game_id, 1, moves[1]))
    for client in (white, spectator):
        await client.wait_for(lambda c: c.games[game_id].moves == tuple(moves[:2]), timeout=5)
    await white.request(PlayMove(game_id, 2, moves[2]))
    await black.wait_for(lambda c: c.games[game_id].ply == 3)
    for client in (white, black, spectator):
        await client.close()


@pytest.mark.asyncio
async def test_a_clock_that_runs_out_loses_the_game_on_time(arena_url: str) -> None:
    white, black, game_id = await start_game(arena_url, base=1)
    moves = random_game("6x6", seed=5)
    await white.request(PlayMove(game_id, 0, moves[0]))
    await black.request(PlayMove(game_id, 1, moves[1]))
    # White's clock now runs with 1 s; nobody moves.
    await black.wait_for(lambda c: c.games[game_id].status is GameStatus.ENDED, timeout=10)
    view = black.games[game_id]
    assert (view.winner, view.termination) == (Colour.BLACK, Termination.TIME_FORFEIT)
    assert view.clocks.white == 0
    with pytest.raises(ArenaError) as late:
        await white.request(PlayMove(game_id, 2, moves[2]))
    assert late.value.code is ErrorCode.GAME_OVER
    await white.close()
    await black.close()


async def _rating(database: Database, holder: str) -> Rating:
    """A player's rating in Amazons in the history store (a new player's when it has none)."""
    return (await ratings(database, [holder], "amazons")).get(holder, Rating())


async def _account(url: str, database: Database, name: str) -> ArenaClient:
    await create_account(database, name, f"{name}-password")
    client = await ArenaClient.connect(url)
    await client.login(name, f"{name}-password")
    return client


@pytest.mark.asyncio
async def test_a_rated_game_between_accounts_moves_both_ratings(
    arena_url: str, redis: Redis, database: Database
) -> None:
    ann, bob = (
        await _account(arena_url, database, "ann"),
        await _account(arena_url, database, "bob"),
    )
    visitor = await guest(arena_url)
    with pytest.raises(ArenaError) as refused:
        await visitor.request(Seek(TimeControl(300, 0), setup="6x6", rated=True))
    assert refused.value.code is ErrorCode.FORBIDDEN
    added = await ann.request(Seek(TimeControl(300, 0), setup="6x6", rated=True, colour="white"))
    started: GameStarted = await bob.request(AcceptSeek(added.seek.seek_id), GameStarted)
    assert (started.white.name, started.black.name, started.rated) == ("ann", "bob", True)
    await ann.wait_for(lambda c: started.game_id in c.games)
    await ann.request(PlayMove(started.game_id, 0, "b1-b2/b3"))
    await bob.request(Resign(started.game_id))
    ann_rating, bob_rating = await _rating(database, "ann"), await _rating(database, "bob")
    assert ann_rating.rating > 1500 > bob_rating.rating
    assert ann_rating.rating - 1500 == pytest.approx(1500 - bob_rating.rating)
    again = await ArenaClient.connect(arena_url)
    welcome = await again.login("ann", "ann-password")
    assert welcome.user.rating == round(ann_rating.rating)
    for client in (ann, bob, visitor, again):
        await client.close()


@pytest.mark.asyncio
async def test_a_challenge_is_accepted_and_quick_pairing_pairs_two_players(
    arena_url: str, redis: Redis, database: Database
) -> None:
    ann, bob = (
        await _account(arena_url, database, "ann"),
        await _account(arena_url, database, "bob"),
    )
    made = await ann.request(Challenge("bob", TimeControl(60, 0), setup="8x8"), ChallengeAdded)
    incoming = await bob.next_news(ChallengeAdded)
    assert incoming.challenge == made.challenge
    with pytest.raises(ArenaError) as wrong:
        await ann.request(AcceptChallenge(made.challenge.challenge_id))
    assert wrong.value.code is ErrorCode.FORBIDDEN
    started = await bob.request(AcceptChallenge(made.challenge.challenge_id), GameStarted)
    await ann.wait_for(lambda c: started.game_id in c.games)
    assert {started.white.name, started.black.name} == {"ann", "bob"}
    with pytest.raises(ArenaError) as missing:
        await ann.request(Challenge("nobody", TimeControl(60, 0)))
    assert missing.value.code is ErrorCode.NOT_FOUND

    carol, dave = await guest(arena_url), await guest(arena_url)
    await carol.request(QuickPair(TimeControl(180, 2), setup="6x6"))
    with pytest.raises(ArenaError) as twice:
        await carol.request(QuickPair(TimeControl(180, 2), setup="6x6"))
    assert twice.value.code is ErrorCode.CONFLICT
    await dave.request(QuickPair(TimeControl(180, 2), setup="6x6"))
    paired = await carol.next_news(GameStarted)
    await dave.wait_for(lambda c: paired.game_id in c.games)
    assert {paired.white.name, paired.black.name} == {carol.user.name, dave.user.name}
    for client in (ann, bob, carol, dave):
        await client.close()


@pytest.mark.asyncio
async def test_the_opponent_of_a_player_who_left_may_claim_after_the_grace_period(
    arena_url: str,
) -> None:
    white, black, game_id = await start_game(arena_url)
    with pytest.raises(ArenaError) as present:
        await white.request(ClaimVictory(game_id))
    assert present.value.code is ErrorCode.CONFLICT
    await black.close()
    away = await white.next_news(Presence)
    assert (away.side, away.online, away.claim_after) == (Colour.BLACK, False, CLAIM_GRACE_MS)
    await asyncio.sleep(CLAIM_GRACE_MS / 1000 + 0.1)
    ended = await white.request(ClaimVictory(game_id), GameEnded)
    assert (ended.winner, ended.termination) == (Colour.WHITE, Termination.ABANDONED)
    await white.close()


@pytest.mark.asyncio
async def test_a_declined_or_cancelled_challenge_is_gone_for_both_sides(
    arena_url: str, redis: Redis, database: Database
) -> None:
    ann, bob = (
        await _account(arena_url, database, "ann"),
        await _account(arena_url, database, "bob"),
    )
    first = await ann.request(Challenge("bob", TimeControl(60, 0)), ChallengeAdded)
    await bob.next_news(ChallengeAdded)
    declined = await bob.request(
        DeclineChallenge(first.challenge.challenge_id, "not today"), ChallengeRemoved
    )
    told = await ann.next_news(ChallengeRemoved)
    assert declined.outcome == told.outcome == "declined"
    # The challenger is told why, when the one declining says.
    assert declined.reason == told.reason == "not today"
    second = await ann.request(Challenge("bob", TimeControl(60, 0)), ChallengeAdded)
    await bob.next_news(ChallengeAdded)
    with pytest.raises(ArenaError) as not_yours:
        await bob.request(CancelChallenge(second.challenge.challenge_id))
    assert not_yours.value.code is ErrorCode.FORBIDDEN
    await ann.request(CancelChallenge(second.challenge.challenge_id), ChallengeRemoved)
    assert (await bob.next_news(ChallengeRemoved)).outcome == "cancelled"
    with pytest.raises(ArenaError) as gone:
        await bob.request(AcceptChallenge(second.challenge.challenge_id))
    assert gone.value.code is ErrorCode.NOT_FOUND
    for client in (ann, bob):
        await client.close()


@pytest.mark.asyncio
async def test_a_challenge_made_while_the_user_was_away_is_sent_after_welcome(
    arena_url: str, redis: Redis, database: Database
) -> None:
    ann = await _account(arena_url, database, "ann")
    await create_account(database, "bob", "bob-password")
    made = await ann.request(Challenge("bob", TimeControl(60, 0)), ChallengeAdded)
    bob = await ArenaClient.connect(arena_url)
    await bob.login("bob", "bob-password")
    waiting = await bob.next_news(ChallengeAdded)
    assert waiting.challenge == made.challenge
    for client in (ann, bob):
        await client.close()


@pytest.mark.asyncio
async def test_analysis_of_a_position_and_of_a_game_at_a_ply(arena_url: str, redis: Redis) -> None:
    async with analysis_worker(redis, counted=Counted(DEFAULT_EFFORT)):
        client = await guest(arena_url)
        analysis = await client.request(Analyze(position="B3/W3 b"), Analysis)
        assert analysis.sum == "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}"
        assert (analysis.black_first, analysis.white_first) == (Colour.BLACK, Colour.WHITE)
        assert [(r.kind, r.squares, r.white, r.black) for r in analysis.regions] == [
            ("contested", 8, 1, 1)
        ]
        assert analysis.best_moves
        with pytest.raises(ArenaError) as bad:
            await client.request(Analyze(position="B3/W4 b"))
        assert (bad.value.code, bad.value.reply.field) == (ErrorCode.BAD_FIELD, "position")
        white, black, game_id = await start_game(arena_url)
        at_start = await client.request(Analyze(game_id=game_id, ply=0), Analysis)
        assert at_start.position == Position.setup("6x6").text()
        assert at_start.sum == "?"  # the whole 6x6 board is one region, too big to solve in time
        with pytest.raises(ArenaError) as past:
            await client.request(Analyze(game_id=game_id, ply=3))
        assert past.value.code is ErrorCode.BAD_FIELD
        # A player gets none of their own game while it is played; a spectator does.
        with pytest.raises(ArenaError) as own:
            await white.request(Analyze(game_id=game_id, ply=0))
        assert own.value.code is ErrorCode.FORBIDDEN
        assert (
            own.value.reply.message == f"no analysis of your own game {game_id} while it is played"
        )
        for c in (client, white, black):
            await c.close()


@pytest.mark.asyncio
async def test_a_house_bot_is_unavailable_until_a_worker_is_ready(arena_url: str) -> None:
    client = await guest(arena_url)
    with pytest.raises(ArenaError) as refused:
        await client.request(Challenge("greedy", TimeControl(60, 0), setup="6x6"))
    assert refused.value.code is ErrorCode.UNAVAILABLE
    assert refused.value.reply.retry_after == 10
    await client.close()


@pytest.mark.asyncio
async def test_only_open_seeks_count_against_the_limit_of_three(arena_url: str) -> None:
    seeker, taker = await guest(arena_url), await guest(arena_url)
    # Seeks that others took no longer count: a fourth and fifth seek are welcome.
    for _ in range(5):
        added = await seeker.request(Seek(TimeControl(300, 0), setup="6x6"))
        await taker.request(AcceptSeek(added.seek.seek_id), GameStarted)
    for _ in range(3):
        await seeker.request(Seek(TimeControl(300, 0), setup="6x6"))
    with pytest.raises(ArenaError) as refused:
        await seeker.request(Seek(TimeControl(300, 0), setup="6x6"))
    assert refused.value.code is ErrorCode.CONFLICT
    assert "at most 3 open seeks" in str(refused.value)
    await seeker.close()
    await taker.close()


@pytest.mark.asyncio
async def test_a_worker_that_touches_its_requests_while_thinking_serves_the_next_one(
    arena_url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The touch that keeps a request claimed runs many times during each think and is
    stopped, not cancelled, when the move is made: a cancel in the middle of its Redis command
    once left the worker waiting for it forever after its first move."""
    import server.worker

    monkeypatch.setattr(server.worker, "TOUCH_SECONDS", 0.002)
    async with house_worker(redis, "touching-worker"):
        human = await guest(arena_url)
        started: GameStarted = await human.request(
            Challenge("mcts", TimeControl(60, 1), setup="6x6", colour="white", strength=1),
            GameStarted,
        )
        game_id = started.game_id
        await _play_white_against_the_house(human, game_id, turns=6)
        assert human.games[game_id].ply >= 6
    await human.close()


@pytest.mark.asyncio
async def test_a_client_past_the_send_bound_is_cut_off_and_others_play_on(
    arena_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frames go straight to the socket; a client with more unsent than the bound is closed
    with 1008. Loopback's kernel buffers hold megabytes, so the bound is set below zero here:
    the first frame to the client (the reply to its hello) is already past it."""
    import msgpack
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    import server.session
    from server.protocol import PROTOCOL_VERSION

    monkeypatch.setattr(server.session, "SEND_BUFFER", -1)
    async with connect(arena_url) as raw:
        hello = {"t": "hello", "id": 1, "protocol": PROTOCOL_VERSION, "client": "slow"}
        await raw.send(msgpack.packb(hello))
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(raw.recv(), 10)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert "too far behind" in closed.value.rcvd.reason
    monkeypatch.undo()
    white, black, game_id = await start_game(arena_url)
    played = await white.request(PlayMove(game_id, 0, random_game("6x6", seed=1)[0]))
    assert played.ply == 0
    await white.close()
    await black.close()


@pytest.mark.asyncio
async def test_connections_stop_following_a_game_once_it_has_ended(
    redis: Redis, redis_url: str, database: Database
) -> None:
    # The players and a spectator stay connected; Redis keeps no subscription to the game,
    # nor its attendance, once the server's presence round (every third of 0.6 s) has seen it end.
    async with serving(redis_url, attendance_ms=600) as url:
        white, black, game_id = await start_game(url)
        spectator = await guest(url)
        await spectator.request(Watch(game_id))
        await white.request(PlayMove(game_id, 0, "b1-b4/d4"))
        assert await redis.pubsub_channels(channel(game_id)) == [channel(game_id).encode()]
        assert await redis.exists(online_key(game_id))
        await black.request(Resign(game_id))
        async with asyncio.timeout(10):
            while await redis.pubsub_channels(channel(game_id)):
                await asyncio.sleep(0.05)
        assert not await redis.exists(online_key(game_id))
        for client in (white, black, spectator):
            await client.close()
