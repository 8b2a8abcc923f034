"""An engine bot playing through `clients.bot` against an in-process server on real Redis:
answering challenges, playing whole games, and finishing a game after its connection drops."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
import pytest_asyncio
import structlog
from redis.asyncio import Redis
from websockets.asyncio.server import serve

from clients import ArenaClient, GameView
from clients.bot import (
    DEFAULT_FIRST_MOVE_MS,
    BotError,
    BotPlayer,
    run_bot,
    think_budget,
)
from clients.bot_cli import main
from clients.challenges import ChallengePolicy
from clients.engines import GameSoFar
from engine.amazons import Position
from engine.search.bot import Budget
from engine.search.budget import MIN_SECONDS, REMOTE_BOT
from server.app import Arena
from server.db import Database
from server.games import GameStore
from server.hub import user_channel
from server.identity import create_bot_token, revoke_bot_token, token_id
from server.protocol import (
    Challenge,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    Clocks,
    Colour,
    ColourPreference,
    GameEvent,
    GameStatus,
    MovePlayed,
    Player,
    PlayerKind,
    PlayMove,
    Termination,
    TimeControl,
    decode_event,
)
from server.session import Session
from tests.server.endpoint import play_out

BOT = "testbot"
TIMEOUT = 60  # seconds any one test may take before it is failed rather than left hanging


@dataclass
class Server:
    arena: Arena
    url: str

    def sessions_of(self, name: str) -> list[Session]:
        return [s for s in self.arena.sessions if s.user is not None and s.user.name == name]

    def drop(self, name: str) -> None:
        """Cut `name`'s connections without a closing handshake, as a network failure would."""
        for session in self.arena.sessions:
            if session.user is not None and session.user.name == name:
                session.socket.transport.abort()


@pytest_asyncio.fixture
async def server(redis: Redis, database: Database) -> AsyncIterator[Server]:
    arena = Arena(redis, database=database)
    await arena.start()
    try:
        async with serve(arena.handle, "127.0.0.1", 0, process_request=arena.health) as ws:
            port = next(iter(ws.sockets)).getsockname()[1]
            yield Server(arena, f"ws://127.0.0.1:{port}")
    finally:
        await arena.close()


async def _guest(url: str) -> ArenaClient:
    client = await ArenaClient.connect(url)
    await client.guest()
    return client


async def _until_online(server: Server) -> None:
    """Challenges reach only a bot that is connected: wait until the server has subscribed it
    to its news (its login is then complete)."""
    while not server.arena.hub.followers(user_channel(BOT)):
        await asyncio.sleep(0.01)


async def _check_finished(redis: Redis, view: GameView) -> None:
    """The game ended by the rules, every move legal and played once, the log without gaps."""
    assert view.status is GameStatus.ENDED
    assert view.termination is Termination.NO_LEGAL_MOVE
    position = Position.parse(view.start)
    for text in view.moves:
        position.apply(position.parse_move(text))
    assert position.is_terminal()
    frames = await GameStore(redis).events_since(view.game_id, 0)
    events = [event for event in map(decode_event, frames) if isinstance(event, GameEvent)]
    assert [event.version for event in events] == list(range(1, len(frames) + 1))
    played = [event for event in events if isinstance(event, MovePlayed)]
    assert [(event.ply, event.move) for event in played] == list(enumerate(view.moves))
    assert view.version == len(events)


async def _challenge(guest: ArenaClient, colour: str, base: int = 60) -> str:
    """Challenge the bot and return the game its acceptance starts."""
    await guest.request(
        Challenge(BOT, TimeControl(base, 0), setup="6x6", colour=ColourPreference(colour)),
        ChallengeAdded,
    )
    await guest.wait_for(lambda c: bool(c.games), timeout=10)
    (game_id,) = guest.games
    return game_id


@pytest.mark.asyncio
async def test_a_bot_accepts_a_challenge_and_plays_a_6x6_game_to_the_end(
    server: Server, redis: Redis, database: Database
) -> None:
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    async with asyncio.timeout(TIMEOUT):
        bot = asyncio.create_task(run_bot(server.url, token, "greedy", stop=stop))
        await _until_online(server)
        guest = await _guest(server.url)
        game_id = await _challenge(guest, "black")
        view = guest.games[game_id]
        assert (view.white.name, view.white.kind) == (BOT, PlayerKind.BOT)
        final = await play_out(guest, game_id, seed=1)
        await _check_finished(redis, final)
        assert len(final.moves) >= 8
        stop.set()
        await bot
        await guest.close()
        while server.sessions_of(BOT):  # the server sees the bot leave
            await asyncio.sleep(0.02)


@pytest.mark.asyncio
async def test_a_bot_finishes_its_game_after_its_connection_drops_while_it_thinks(
    server: Server, redis: Redis, database: Database
) -> None:
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    drops = {2, 6}  # plies after which the bot's connection is cut while it thinks of a reply
    with structlog.testing.capture_logs() as logs:
        # A fixed number of playouts makes each move take a while (about 0.3 s here) whatever
        # the clock says, so the drop falls inside the thinking.
        player = BotPlayer(server.url, token, "mcts:playouts=10000")
        async with asyncio.timeout(TIMEOUT):
            bot = asyncio.create_task(player.run(stop))
            await _until_online(server)
            guest = await _guest(server.url)
            game_id = await _challenge(guest, "white", base=120)

            async def drop_while_thinking(ply: int) -> None:
                if ply in drops:
                    while (game_id, ply + 1) not in player.thinking:
                        await asyncio.sleep(0.005)
                    server.drop(BOT)

            await play_out(guest, game_id, seed=7, after=drop_while_thinking)
            await _check_finished(redis, guest.games[game_id])
            assert player.connections == 3  # the first, then one after each drop
            stop.set()
            await bot
            await guest.close()
    connection_of_move = {e["ply"]: e["connection"] for e in logs if e["event"] == "moved"}
    # The replies thought out across a drop were delivered on the next connection.
    assert (connection_of_move[3], connection_of_move[7]) == (2, 3)


class _FirstMoveEngine:
    """An engine through the interface alone: it plays the first legal move and notes what the
    runner asks of it."""

    def __init__(self, made: list[_FirstMoveEngine]) -> None:
        self.asked: list[str] = []
        made.append(self)

    @property
    def name(self) -> str:
        return "first-move"

    async def prepare(self) -> None:
        self.asked.append("prepare")

    async def choose(self, game: GameSoFar, budget: Budget) -> str:
        self.asked.append("choose")
        return game.state.format_move(next(iter(game.state.legal_moves)))

    async def close(self) -> None:
        self.asked.append("close")


@pytest.mark.asyncio
async def test_the_runner_plays_any_engine_through_the_interface(
    server: Server, redis: Redis, database: Database
) -> None:
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    made: list[_FirstMoveEngine] = []
    async with asyncio.timeout(TIMEOUT):
        bot = asyncio.create_task(
            run_bot(server.url, token, lambda: _FirstMoveEngine(made), stop=stop)
        )
        await _until_online(server)
        guest = await _guest(server.url)
        game_id = await _challenge(guest, "black")
        final = await play_out(guest, game_id, seed=4)
        await _check_finished(redis, final)
        prototype, game = made
        while game.asked[-1] != "close":  # the runner lets the game's engine go once it ends
            await asyncio.sleep(0.01)
        stop.set()
        await bot
        await guest.close()
    assert prototype.asked == ["prepare", "close"]  # compiled before any game, closed at the end
    bot_moves = (len(final.moves) + 1) // 2  # the bot plays White
    assert game.asked == ["prepare"] + ["choose"] * bot_moves + ["close"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("engine", "plays"), [("random", True), ("greedy", False)])
async def test_a_bot_plays_take_away_when_its_engine_does(
    server: Server, redis: Redis, engine: str, plays: bool, database: Database
) -> None:
    """The runner knows a game only through the registry: a bot whose engine plays any game
    plays the test suite's take-away game to its end; one that plays Amazons only declines."""
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    async with asyncio.timeout(TIMEOUT):
        bot = asyncio.create_task(run_bot(server.url, token, engine, stop=stop))
        await _until_online(server)
        guest = await _guest(server.url)
        challenge = Challenge(BOT, TimeControl(60, 0), setup="21", game="takeaway")
        made = await guest.request(challenge, ChallengeAdded)
        if not plays:
            removed = await guest.next_news(ChallengeRemoved)
            assert (removed.challenge_id, removed.outcome) == (
                made.challenge.challenge_id,
                ChallengeOutcome.DECLINED,
            )
        else:
            await guest.wait_for(lambda c: bool(c.games), timeout=10)
            (game_id,) = guest.games
            while (view := guest.games[game_id]).status is GameStatus.PLAYING:
                if view.colour_of(guest.user.name if guest.user else "") is view.to_move:
                    await guest.request(PlayMove(game_id, view.ply, "1"))
                await guest.wait_for(
                    lambda c, ply=view.ply: (
                        c.games[game_id].ply > ply or c.games[game_id].status is GameStatus.ENDED
                    ),
                    timeout=10,
                )
            final = guest.games[game_id]
            assert (final.game, final.termination) == ("takeaway", Termination.NO_LEGAL_MOVE)
            assert sum(int(move) for move in final.moves) == 21
        stop.set()
        await bot
        await guest.close()


@pytest.mark.asyncio
async def test_a_bot_declines_challenges_it_will_not_play(
    server: Server, redis: Redis, database: Database
) -> None:
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    policy = ChallengePolicy(setups=frozenset({"8x8"}), min_game_seconds=30, rated=False)
    async with asyncio.timeout(TIMEOUT):
        bot = asyncio.create_task(run_bot(server.url, token, "random", accept=policy, stop=stop))
        await _until_online(server)
        guest = await _guest(server.url)
        refused = [
            Challenge(BOT, TimeControl(60, 0), setup="6x6"),  # a setup it does not play
            Challenge(BOT, TimeControl(20, 0), setup="8x8"),  # too fast
        ]
        reasons = []
        for challenge in refused:
            made = await guest.request(challenge, ChallengeAdded)
            removed = await guest.next_news(ChallengeRemoved)
            assert removed.challenge_id == made.challenge.challenge_id
            assert removed.outcome is ChallengeOutcome.DECLINED
            reasons.append(removed.reason)
        # Each decline carries the bot's reason to the challenger.
        assert reasons == [
            "setup 6x6 is not played",
            "time control too fast: a game needs 30 s or more",
        ]
        assert not guest.games
        await guest.request(Challenge(BOT, TimeControl(60, 0), setup="8x8"), ChallengeAdded)
        await guest.wait_for(lambda c: bool(c.games), timeout=10)
        stop.set()
        await bot
        await guest.close()


@pytest.mark.asyncio
async def test_the_challenger_hears_game_started_first_when_the_bot_moves_at_once(
    server: Server, redis: Redis, monkeypatch: pytest.MonkeyPatch, database: Database
) -> None:
    store = server.arena.store
    read_log = store.events_since

    async def slow_read_from_the_start(game_id: str, version: int) -> list[bytes]:
        # Widens the window a busy Redis gives by chance: the challenger's server reads the new
        # game's log from the start while the bot, which plays White, moves at once.
        if version == 0:
            await asyncio.sleep(0.3)
        return await read_log(game_id, version)

    monkeypatch.setattr(store, "events_since", slow_read_from_the_start)
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    async with asyncio.timeout(TIMEOUT):
        bot = asyncio.create_task(run_bot(server.url, token, "random", stop=stop))
        await _until_online(server)
        guest = await _guest(server.url)
        game_id = await _challenge(guest, "black")
        await guest.wait_for(lambda c: c.games[game_id].ply >= 1)
        heard = []
        while not guest.news.empty():
            event = guest.news.get_nowait()
            if isinstance(event, GameEvent) and event.game_id == game_id:
                heard.append((event.TAG, event.version))
        stop.set()
        await bot
        await guest.close()
    assert heard[:2] == [("game_started", 1), ("move_played", 2)]


@pytest.mark.asyncio
async def test_a_refused_token_stops_the_bot_with_a_clear_error(
    server: Server, database: Database
) -> None:
    async with asyncio.timeout(TIMEOUT):
        # The likely cause is named: a token made on another database (another data folder).
        with pytest.raises(BotError, match="refused the bot token") as refused:
            await run_bot(server.url, "no-such-token", "random")
    assert "unknown bot token: it was not made on this server's database" in str(refused.value)
    assert "arena token create" in str(refused.value)


@pytest.mark.asyncio
async def test_a_bot_whose_token_is_revoked_stops_at_once(
    server: Server, redis: Redis, database: Database
) -> None:
    token = await create_bot_token(database, BOT)
    bot = asyncio.create_task(run_bot(server.url, token, "random"))
    try:
        async with asyncio.timeout(TIMEOUT):
            await _until_online(server)
            await revoke_bot_token(redis, database, token_id(token))
            with pytest.raises(BotError, match="refused the bot token"):
                await bot
    finally:
        bot.cancel()
        await asyncio.gather(bot, return_exceptions=True)


@pytest.mark.asyncio
async def test_the_command_plays_a_game_and_stops_cleanly_on_ctrl_c(
    server: Server, redis: Redis, tmp_path: Path, database: Database
) -> None:
    token = await create_bot_token(database, BOT)
    log = tmp_path / "bot.log"
    async with (
        _bot_command(
            log, "--server", server.url, "--engine", "greedy", "--setup", "6x6", token=token
        ) as command,
        asyncio.timeout(TIMEOUT),
    ):
        await _until_online(server)
        guest = await _guest(server.url)
        game_id = await _challenge(guest, "white")
        await _check_finished(redis, await play_out(guest, game_id, seed=9))
        await guest.close()
        command.send_signal(signal.SIGINT)
        assert await command.wait() == 0, log.read_text()
    assert '"event": "challenge_accepted"' in log.read_text()


@pytest.mark.asyncio
async def test_the_command_reads_its_token_from_a_file(
    server: Server, redis: Redis, tmp_path: Path, database: Database
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(await create_bot_token(database, BOT) + "\n")
    log = tmp_path / "bot.log"
    async with (
        _bot_command(
            log, "--server", server.url, "--engine", "random", "--token-file", str(token_file)
        ) as command,
        asyncio.timeout(TIMEOUT),
    ):
        online = asyncio.create_task(_until_online(server))
        await asyncio.wait(
            (online, asyncio.create_task(command.wait())), return_when="FIRST_COMPLETED"
        )
        online.cancel()
        assert not online.cancelled(), log.read_text()
        command.send_signal(signal.SIGINT)
        assert await command.wait() == 0, log.read_text()
    assert '"event": "bot_online"' in log.read_text()


@contextlib.asynccontextmanager
async def _bot_command(
    log: Path, *args: str, token: str | None = None
) -> AsyncIterator[asyncio.subprocess.Process]:
    """`arena bot ARGS` as its own process, its stderr in `log`, killed on the way out if it
    is still running; the token, if given, in ARENA_BOT_TOKEN, and no other ARENA_ setting of
    this environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    if token is not None:
        env["ARENA_BOT_TOKEN"] = token
    with log.open("wb") as err:
        command = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "clients.bot_cli",
            *args,
            cwd=Path(__file__).resolve().parents[2],
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=err,
        )
    try:
        yield command
    finally:
        if command.returncode is None:
            command.kill()
            await command.wait()


def _free_port() -> int:
    """A port that nothing listens on (bound and let go at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("scheme", "why"),
    [
        ("ws://", "connection refused"),
        ("wss://", "no TLS there"),  # a plain server asked for TLS
    ],
)
async def test_the_command_says_plainly_when_nothing_answers_and_keeps_trying(
    server: Server, scheme: str, why: str
) -> None:
    url = f"ws://127.0.0.1:{_free_port()}" if scheme == "ws://" else server.url
    url = url.replace("ws://", scheme)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    command = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "clients.bot_cli",
        "--server",
        url,
        "--engine",
        "random",
        cwd=Path(__file__).resolve().parents[2],
        env={**env, "ARENA_BOT_TOKEN": "bot_whatever"},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert command.stderr is not None
    said: list[str] = []
    try:
        async with asyncio.timeout(TIMEOUT):
            while not any(line.startswith("arena bot: nothing answers") for line in said):
                line = await command.stderr.readline()
                assert line, f"the bot stopped: {said}"
                said.append(line.decode())
            # Still trying after saying so: more attempts follow.
            attempts = sum("server_unreachable" in line for line in said)
            while sum("server_unreachable" in line for line in said) == attempts:
                said.append((await command.stderr.readline()).decode())
            command.send_signal(signal.SIGINT)
            assert await command.wait() == 0
    finally:
        if command.returncode is None:
            command.kill()
            await command.wait()
    notice = next(line for line in said if line.startswith("arena bot: nothing answers"))
    assert notice.startswith(f"arena bot: nothing answers at {url} ({why}")
    assert "trying again" in notice


@pytest.mark.asyncio
async def test_the_bot_says_when_a_server_that_did_not_answer_is_reached(
    server: Server, redis: Redis, database: Database
) -> None:
    port = _free_port()
    said: list[str] = []
    stop = asyncio.Event()
    token = await create_bot_token(database, BOT)
    bot = asyncio.create_task(
        run_bot(f"ws://127.0.0.1:{port}", token, "random", stop=stop, report=said.append)
    )
    try:
        async with asyncio.timeout(TIMEOUT):
            while not said:
                await asyncio.sleep(0.05)
            assert said[0].startswith(f"nothing answers at ws://127.0.0.1:{port}")
            async with serve(server.arena.handle, "127.0.0.1", port):
                while len(said) < 2:
                    await asyncio.sleep(0.05)
                stop.set()
                await bot
    finally:
        stop.set()
        await asyncio.gather(bot, return_exceptions=True)
    assert said[1] == f"connected to ws://127.0.0.1:{port} as {BOT}"


def _challenge_info(
    setup: str, base: int, increment: int, rated: bool = False, game: str = "amazons"
) -> ChallengeInfo:
    return ChallengeInfo(
        "c1",
        Player("ann", PlayerKind.HUMAN, 1500),
        Player(BOT, PlayerKind.BOT),
        setup,
        TimeControl(base, increment),
        rated,
        ColourPreference.RANDOM,
        game,
    )


def test_the_challenge_policy_names_why_it_declines() -> None:
    policy = ChallengePolicy(max_games=2, rated=False, max_game_seconds=600)
    assert policy.refusal(_challenge_info("10x10", 60, 0), playing=0) is None
    assert policy.refusal(_challenge_info("10x10", 0, 1), playing=1) is None  # 40 s a game
    cases = {
        "setup 12x12 is not played": _challenge_info("12x12", 60, 0),
        "time control too fast: a game needs 10 s or more": _challenge_info("6x6", 5, 0),
        "time control too slow: a game must take 600 s or less": _challenge_info("6x6", 0, 20),
        "rated games are not played": _challenge_info("6x6", 60, 0, rated=True),
    }
    for reason, challenge in cases.items():
        assert policy.refusal(challenge, playing=0) == reason
    assert policy.refusal(_challenge_info("6x6", 60, 0), playing=2) == "already playing 2 games"
    alone = ChallengePolicy(max_games=1)
    assert alone.refusal(_challenge_info("6x6", 60, 0), playing=1) == "already playing 1 game"


def test_the_challenge_policy_plays_only_its_games_and_their_setups() -> None:
    amazons_only = ChallengePolicy()
    assert amazons_only.refusal(_challenge_info("21", 60, 0, game="takeaway"), playing=0) == (
        "game takeaway is not played"
    )
    both = ChallengePolicy(games=frozenset({"amazons", "takeaway"}))
    assert both.refusal(_challenge_info("21", 60, 0, game="takeaway"), playing=0) is None
    # A setup is judged within its own game: 21 is a pile, not a board.
    assert both.refusal(_challenge_info("21", 60, 0), playing=0) == "setup 21 is not played"
    assert both.refusal(_challenge_info("6x6", 60, 0, game="takeaway"), playing=0) == (
        "setup 6x6 is not played"
    )
    # A game the server has and this client does not know is never accepted.
    unknown = ChallengePolicy(games=frozenset({"bao"}))
    assert unknown.refusal(_challenge_info("x", 60, 0, game="bao"), playing=0) == (
        "setup x is not played"
    )


def _view(ply: int, white_ms: int, black_ms: int, received: float) -> GameView:
    return GameView(
        "g1",
        Player(BOT, PlayerKind.BOT),
        Player("ann", PlayerKind.HUMAN),
        Position.setup("6x6").text(),
        TimeControl(300, 2),
        False,
        Clocks(white_ms, black_ms),
        "6x6",
        moves=["b1-b2/b3"] * ply,
        received=received,
    )


def test_a_game_its_last_move_ended_is_not_due_before_its_end_is_heard() -> None:
    """The opponent's last move comes a moment before `game_ended`: the bot is to move by the
    view, but the game is over by its rules and nothing is asked of the engine."""
    bot = BotPlayer("ws://127.0.0.1:1", "bot_token", "random")
    bot.name = BOT
    over = replace(_view(0, 300_000, 300_000, received=0.0), start="B5/6/6/6/xx4/Wx4 w")
    going = replace(_view(0, 300_000, 300_000, received=0.0), game_id="g2")
    client = SimpleNamespace(games={"g1": over, "g2": going})
    assert over.position().is_terminal()
    assert over.status is GameStatus.PLAYING
    assert bot._due(cast(ArenaClient, client)) == [going]


def test_the_budget_is_the_clock_less_the_time_since_it_was_read() -> None:
    budget = think_budget(_view(4, 100_000, 80_000, received=10.0), Colour.WHITE, now=13.0)
    assert budget.clock is not None
    assert budget.clock.own == pytest.approx(100 - 3 - REMOTE_BOT.margin)
    assert (budget.clock.opponent, budget.clock.increment) == (80, 2)
    black = think_budget(_view(5, 100_000, 80_000, received=10.0), Colour.BLACK, now=10.0)
    assert black.clock is not None
    assert black.clock.own == pytest.approx(80 - REMOTE_BOT.margin)
    # A first move is off the clock but due within the server's window.
    first = think_budget(_view(0, 300_000, 300_000, received=10.0), Colour.WHITE, now=11.0)
    assert first.clock is not None
    first_move_seconds = DEFAULT_FIRST_MOVE_MS / 1000 * REMOTE_BOT.first_move_share
    assert first.clock.own == pytest.approx(first_move_seconds - 1 - REMOTE_BOT.margin)
    shorter = think_budget(
        _view(1, 300_000, 300_000, received=10.0), Colour.BLACK, now=10.0, first_move_ms=8_000
    )
    assert shorter.clock is not None
    assert shorter.clock.own == pytest.approx(8 * REMOTE_BOT.first_move_share - REMOTE_BOT.margin)
    late = think_budget(_view(6, 200, 80_000, received=10.0), Colour.WHITE, now=12.0)
    assert late.clock is not None
    assert 0 < late.clock.own < 0.1


def test_a_first_move_joined_mid_window_is_planned_on_what_is_left_of_it() -> None:
    # The bot (re)joins with 10 s of the 30 s window gone: its `game_state` says 20 s are left.
    joined = replace(_view(0, 300_000, 300_000, received=10.0), first_move_by=30.0)
    budget = think_budget(joined, Colour.WHITE, now=10.0, first_move_ms=30_000)
    assert budget.clock is not None
    share = 30 * REMOTE_BOT.first_move_share
    assert budget.clock.own == pytest.approx(share - 10 - REMOTE_BOT.margin)
    # With 25 s gone, less is left than the share it would plan on: it moves at once.
    late = think_budget(replace(joined, first_move_by=15.0), Colour.WHITE, now=10.0)
    assert late.clock is not None
    assert late.clock.own == pytest.approx(MIN_SECONDS)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--engine", "greedy", "--token", "t"], "no server: give --server URL"),
        (["--engine", "greedy", "--server", "ws://localhost:1"], "no bot token"),
        (["--engine", "nosuch", "--server", "ws://x", "--token", "t"], "unknown bot 'nosuch'"),
        (["--engine", "greedy", "--server", "http://x", "--token", "t"], "not a websocket URL"),
        (["--engine", "greedy", "--games", "0"], "must be 1 or more, got 0"),
        (
            ["--engine", "greedy", "--server", "ws://x", "--token", "t", "--game", "takeaway"],
            "engine greedy does not play takeaway",
        ),
        (["--engine", "greedy", "--game", "chess"], "invalid choice: 'chess'"),
        (
            ["--engine", "random", "--server", "ws://x", "--token", "t", "--setup", "12x12"],
            "no game played has setup 12x12: setups are 10, 10x10, 21, 6x6, 8x8",
        ),
        (
            [
                "--engine",
                "random",
                "--game",
                "takeaway",
                "--setup",
                "8x8",
                "--server",
                "ws://x",
                "--token",
                "t",
            ],
            "no game played has setup 8x8: setups are 10, 21",
        ),
        (
            ["--engine", "greedy", "--server", "ws://x", "--token-file", "/nonexistent/token"],
            "cannot read the token file /nonexistent/token",
        ),
        (
            ["--engine", "greedy", "--server", "ws://x", "--token-file", "/dev/null"],
            "the token file /dev/null is empty",
        ),
        (
            ["--engine", "greedy", "--token", "t", "--token-file", "/dev/null"],
            "not allowed with argument --token",
        ),
    ],
)
def test_the_command_line_names_what_is_wrong(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    monkeypatch.delenv("ARENA_BOT_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.asyncio
async def test_a_bot_plans_its_first_moves_by_the_window_the_server_announces(
    server: Server, redis: Redis, database: Database
) -> None:
    server.arena.offers = replace(server.arena.offers, first_move_ms=8_000)
    server.arena.dispatch = server.arena.bind_handlers()  # a welcome now announces them
    token = await create_bot_token(database, BOT)
    stop = asyncio.Event()
    player = BotPlayer(server.url, token, "random")
    assert player.first_move_ms == DEFAULT_FIRST_MOVE_MS  # before it has heard the server
    async with asyncio.timeout(TIMEOUT):
        bot = asyncio.create_task(player.run(stop))
        # The server follows the bot's news before its welcome reaches the bot: wait for the
        # bot's side of the login, not the server's.
        while not player.connections:
            await asyncio.sleep(0.01)
        assert player.first_move_ms == 8_000
        stop.set()
        await bot
