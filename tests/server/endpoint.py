"""A server endpoint inside the test process, as `arena serve` runs one, for tests that talk to
it over real websockets, and what those tests share: guests, games between two of them, whole
random games, a side played out at random against a bot, a house-bot worker, a worker's
analysis."""

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict
from typing import Any

import pytest
from redis.asyncio import Redis
from websockets.asyncio.server import serve

from clients import ArenaClient, GameView
from engine.amazons import Position
from engine.judge import judge
from server.analysis_queue import ANALYSTS, Analysts
from server.app import Arena, stop_serving
from server.db import Database
from server.games import open_redis
from server.protocol import (
    AcceptSeek,
    GameStarted,
    GameStatus,
    PlayMove,
    Seek,
    SeekAdded,
    TimeControl,
)
from server.worker import Worker

# The database of the test under way, while the `database` fixture (tests/conftest.py) has it
# open: the servers the test starts keep their accounts there, as `arena serve` keeps them in
# its data folder's, and the test makes accounts there.
TEST_DATABASE: list[Database] = []


@contextlib.asynccontextmanager
async def arena_serving(
    redis_url: str, port: int = 0, **options: Any
) -> AsyncIterator[tuple[Arena, str]]:
    """A server process's endpoint, in this process on `port` (0: a free one), with its own
    Redis client as `arena serve` has it; `options` go to the Arena, whose database is by
    default the test's (TEST_DATABASE), if it has one. Yields the Arena and the URL."""
    client = open_redis(redis_url)
    if TEST_DATABASE:
        options.setdefault("database", TEST_DATABASE[-1])
    arena = Arena(client, **options)
    await arena.start()
    try:
        server = await serve(arena.handle, "127.0.0.1", port, process_request=arena.health)
        try:
            port = next(iter(server.sockets)).getsockname()[1]
            yield arena, f"ws://127.0.0.1:{port}"
        finally:
            await stop_serving(server)
    finally:
        await arena.close()
        await client.aclose()


@contextlib.asynccontextmanager
async def serving(redis_url: str, port: int = 0, **options: Any) -> AsyncIterator[str]:
    """As `arena_serving`, yielding only the URL."""
    async with arena_serving(redis_url, port, **options) as (_, url):
        yield url


async def guest(url: str) -> ArenaClient:
    """A client logged in as a guest."""
    client = await ArenaClient.connect(url)
    await client.guest()
    return client


async def start_game(
    url: str, setup: str = "6x6", base: int = 300
) -> tuple[ArenaClient, ArenaClient, str]:
    """Two guests: one seeks, the other accepts; returns (white, black, game id)."""
    a, b = await guest(url), await guest(url)
    added = await a.request(Seek(TimeControl(base, 0), setup=setup), SeekAdded)
    started = await b.request(AcceptSeek(added.seek.seek_id), GameStarted)
    await a.wait_for(lambda c: started.game_id in c.games)
    assert a.user is not None
    white = a if started.white.name == a.user.name else b
    black = b if white is a else a
    return white, black, started.game_id


def random_game(setup: str, seed: int) -> list[str]:
    """The moves of a whole game of random moves from the setup, the same for the same seed."""
    position = Position.setup(setup)
    moves: list[str] = []
    while not position.is_terminal():
        move = position.random_move(seed + len(moves))
        assert move is not None
        moves.append(str(move))
        position.apply(move)
    return moves


async def play_out(
    client: ArenaClient,
    game_id: str,
    seed: int = 0,
    after: Callable[[int], Awaitable[None]] | None = None,
) -> GameView:
    """Play `client`'s side of an Amazons game with random legal moves (the same for the same
    seed) until the game ends, and return the game as it ended. `after(ply)` is awaited after
    each move the client makes, at that ply."""
    assert client.user is not None
    colour = client.games[game_id].colour_of(client.user.name)
    while True:
        await client.wait_for(
            lambda c: (
                c.games[game_id].status is GameStatus.ENDED or c.games[game_id].to_move is colour
            ),
            timeout=30,
        )
        view = client.games[game_id]
        if view.status is GameStatus.ENDED:
            return view
        position = Position.parse(view.start)
        for text in view.moves:
            position.apply(position.parse_move(text))
        move = position.random_move(seed + view.ply)
        assert move is not None
        await client.request(PlayMove(game_id, view.ply, str(move)))
        if after is not None:
            await after(view.ply)


class Counted:
    """The engine's judgement, at `effort`, in a worker's thread pool, its calls counted."""

    def __init__(self, effort: int = 1) -> None:
        self.effort = effort
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, game: str, text: str) -> dict[str, Any]:
        with self._lock:
            self.calls += 1
        return asdict(judge(game, text, effort=self.effort))


@contextlib.asynccontextmanager
async def analysis_worker(
    redis: Redis, name: str = "w1", counted: Counted | None = None
) -> AsyncIterator[tuple[Analysts, Counted]]:
    """A worker's side of analysis, on this loop (judging in a thread: `counted`, the lowest
    effort by default), once it counts as judging."""
    counted = counted or Counted()
    worker = Analysts(redis, name, compute=counted)
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run(stop))
    async with asyncio.timeout(30):
        while await redis.zscore(ANALYSTS, name) is None:
            await asyncio.sleep(0.02)
    try:
        yield worker, counted
    finally:
        stop.set()
        await asyncio.wait_for(running, 60)


@contextlib.asynccontextmanager
async def house_worker(redis: Redis, name: str) -> AsyncIterator[None]:
    """A house-bot worker running on this loop, ready (its bots compiled) when entered."""
    stop = asyncio.Event()
    house = Worker(redis, name)
    worker = asyncio.create_task(house.run(stop))
    await asyncio.wait_for(house.ready.wait(), 300)
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(worker, 5)


async def until(condition: Callable[[], Awaitable[bool]], what: str, seconds: float = 300) -> None:
    """Wait for `condition`, looked at five times a second, failing the test after `seconds`
    (generous by default: a loaded two-core machine plays slowly)."""
    try:
        async with asyncio.timeout(seconds):
            while not await condition():
                await asyncio.sleep(0.2)
    except TimeoutError:
        pytest.fail(f"timed out waiting for {what}")


async def standings_rows(redis_url: str, ladder: str) -> dict[str, list[str]]:
    """`arena ladder standings LADDER` on the Redis at `redis_url` and the test's database (a
    SQLite file, named by its URL): its rows split into cells, by bot (the table only, not the
    ladder's last games printed under it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_") and k != "REDIS_URL"}
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "server.cli", "ladder", "standings", ladder),
        *("--redis-url", redis_url, "--database-url", TEST_DATABASE[-1].where),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    rows = [line.split() for line in out.decode().splitlines() if line.strip()]
    last_games = next((i for i, cells in enumerate(rows) if cells[:1] == ["game"]), len(rows))
    return {cells[1]: cells for cells in rows[1:last_games]}
