"""The server as it is deployed: `arena serve` and `arena worker` processes on one Redis. Two
servers share a game, a house-bot move survives its worker being killed mid-thought, and a
server stopped with a signal exits cleanly and, restarted on its embedded Redis, carries on the
game it had."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis, from_url
from redis.exceptions import ResponseError

from clients import ArenaClient
from server.game_index import HOUSE_STREAMS, bucket_of, house_stream
from server.games import GameStore
from server.protocol import (
    AcceptSeek,
    Challenge,
    ClaimVictory,
    Colour,
    ColourPreference,
    GameEnded,
    GameEvent,
    GameStarted,
    GameStatus,
    MovePlayed,
    PlayMove,
    Presence,
    Resign,
    Seek,
    Termination,
    TimeControl,
    Watch,
    decode_event,
)
from server.redis_embedded import EmbeddedRedis, redis_server_binary
from server.worker import GROUP
from tests.server.endpoint import guest, random_game
from tests.server.test_metrics import parse

ROOT = Path(__file__).resolve().parents[2]
SERVING = re.compile(rb"serving on (ws://\S+)")
START_SECONDS = 30  # for a process to come up (imports, an embedded Redis)
STOP_SECONDS = 20  # for a process to exit after a signal
TIMEOUT = 90  # for any one test, so a stuck process fails it rather than hanging the suite


@dataclass
class Process:
    """A child process of the test: `arena serve` (with its URL) or `arena worker`."""

    process: asyncio.subprocess.Process
    log: Path
    url: str = ""

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""

    async def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        """Send `sig` and return the exit code."""
        self.process.send_signal(sig)
        try:
            return await asyncio.wait_for(self.process.wait(), STOP_SECONDS)
        except TimeoutError:
            pytest.fail(f"the process did not stop after {sig.name}:\n{self.log_tail()}")


class Processes:
    """Starts the processes of one test and kills any still running at its end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.started: list[Process] = []

    @staticmethod
    def _env(**extra: str) -> dict[str, str]:
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("ARENA_") and name != "REDIS_URL"
        }
        return {**env, "PYTHONUNBUFFERED": "1", **extra}

    async def _spawn(
        self, name: str, *args: str, stdout: int | None, extra_env: dict[str, str] | None = None
    ) -> Process:
        log = self.folder / f"{name}-{len(self.started)}.log"
        with log.open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.cli",
                *args,
                cwd=ROOT,
                env=self._env(**(extra_env or {})),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=stdout,
                stderr=err,
            )
        started = Process(process, log)
        self.started.append(started)
        return started

    async def serve(self, *args: str) -> Process:
        """`arena serve` on a free port, without house-bot workers; returns once it listens."""
        server = await self._spawn(
            "serve", "serve", "--port", "0", "--workers", "0", *args, stdout=asyncio.subprocess.PIPE
        )
        assert server.process.stdout is not None
        try:
            line = await asyncio.wait_for(server.process.stdout.readline(), START_SECONDS)
        except TimeoutError:
            line = b""
        found = SERVING.search(line)
        if found is None:
            pytest.fail(f"arena serve did not start: {line!r}\n{server.log_tail()}")
        server.url = found.group(1).decode()
        return server

    async def worker(self, redis_url: str, **env: str) -> Process:
        """`arena worker` on `redis_url`, with `env` added to the environment."""
        return await self._spawn(
            "worker",
            "worker",
            "--redis-url",
            redis_url,
            stdout=asyncio.subprocess.DEVNULL,
            extra_env=env,
        )

    async def kill_all(self) -> None:
        for started in self.started:
            if started.process.returncode is None:
                started.process.kill()
                await started.process.wait()


@pytest_asyncio.fixture
async def processes(tmp_path: Path) -> AsyncIterator[Processes]:
    children = Processes(tmp_path)
    try:
        yield children
    finally:
        await children.kill_all()


async def _start_game(first: ArenaClient, second: ArenaClient, base: int) -> str:
    """`first` seeks a 6x6 game as White, `second` accepts; both know it when this returns."""
    added = await first.request(
        Seek(TimeControl(base, 0), setup="6x6", colour=ColourPreference.WHITE)
    )
    started: GameStarted = await second.request(AcceptSeek(added.seek.seek_id), GameStarted)
    await first.wait_for(lambda c: started.game_id in c.games)
    return started.game_id


async def _check_log(redis: Redis, game_id: str, moves: list[str]) -> int:
    """The game's log has versions 1..n with no gap and each move once, in order; returns n."""
    frames = await GameStore(redis).events_since(game_id, 0)
    events = [event for event in map(decode_event, frames) if isinstance(event, GameEvent)]
    assert [event.version for event in events] == list(range(1, len(frames) + 1))
    played = [(event.ply, event.move) for event in events if isinstance(event, MovePlayed)]
    assert played == list(enumerate(moves))
    return len(frames)


def _ended(game_id: str) -> Callable[[ArenaClient], bool]:
    def check(client: ArenaClient) -> bool:
        view = client.games.get(game_id)
        return view is not None and view.status is GameStatus.ENDED

    return check


@pytest.mark.asyncio
async def test_two_server_processes_share_a_game_with_a_spectator(
    redis_url: str, redis: Redis, processes: Processes
) -> None:
    async with asyncio.timeout(TIMEOUT):
        one = await processes.serve("--redis-url", redis_url)
        two = await processes.serve("--redis-url", redis_url)
        white, black = await guest(one.url), await guest(two.url)
        spectator = await guest(two.url)
        game_id = await _start_game(white, black, base=300)
        await spectator.request(Watch(game_id))
        moves = random_game("6x6", seed=21)
        for ply, move in enumerate(moves):
            mover = white if ply % 2 == 0 else black
            await mover.request(PlayMove(game_id, ply, move))
        versions = await _check_log(redis, game_id, moves)
        for client in (white, black, spectator):
            await client.wait_for(_ended(game_id), timeout=10)
            view = client.games[game_id]
            assert view.moves == tuple(moves)
            assert view.termination is Termination.NO_LEGAL_MOVE
            assert view.version == versions
            await client.close()
        assert await one.stop() == 0
        assert await two.stop() == 0


async def _pending(redis: Redis) -> int:
    """House-bot requests a worker has read and not yet finished."""
    pending = 0
    for stream in HOUSE_STREAMS:
        try:
            pending += int((await redis.xpending(stream, GROUP))["pending"])
        except ResponseError:  # no group yet: no worker has started
            return 0
    return pending


@pytest.mark.asyncio
async def test_a_house_bot_move_is_played_once_when_its_worker_dies_while_thinking(
    redis_url: str, redis: Redis, processes: Processes
) -> None:
    async with asyncio.timeout(TIMEOUT):
        server = await processes.serve("--redis-url", redis_url)
        workers = [await processes.worker(redis_url) for _ in range(2)]
        for worker in workers:  # both compiled their bots and read the stream
            while "worker_started" not in worker.log_tail():
                await asyncio.sleep(0.1)
        human = await guest(server.url)
        # At full strength a house bot thinks 2 s on its first move (off the clock): time
        # enough to kill its worker in the middle.
        started = await human.request(
            Challenge(
                "mcts",
                TimeControl(300, 0),
                setup="6x6",
                colour=ColourPreference.WHITE,
                strength=10,
            ),
            GameStarted,
        )
        game_id = started.game_id
        opening = random_game("6x6", seed=5)[0]
        await human.request(PlayMove(game_id, 0, opening))
        while await _pending(redis) == 0:  # a worker has taken the request for ply 1
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.5)
        assert (await GameStore(redis).load(game_id)).ply == 1, "the move came too soon"
        stream = house_stream(bucket_of(game_id))
        taker = (await redis.xpending_range(stream, GROUP, "-", "+", 1))[0]["consumer"]
        first, second = sorted(
            workers, key=lambda w: not taker.decode().endswith(f"-{w.process.pid}")
        )
        first.process.kill()
        await first.process.wait()
        await human.wait_for(lambda c: c.games[game_id].ply >= 2, timeout=40)
        view = human.games[game_id]
        await _check_log(redis, game_id, view.moves)
        assert view.moves[0] == opening
        assert len(view.moves) == 2
        while await _pending(redis):  # the worker acknowledges the request after the move
            await asyncio.sleep(0.02)
        assert "request_reclaimed" in second.log_tail()
        await human.request(Resign(game_id))
        await human.wait_for(_ended(game_id), timeout=10)
        await _check_log(redis, game_id, view.moves)  # still each move once
        await human.close()
        assert await second.stop() == 0
        assert await server.stop() == 0


@pytest.mark.asyncio
async def test_a_worker_stopped_while_it_compiles_the_house_bots_exits_at_once(
    redis_url: str, processes: Processes, tmp_path: Path
) -> None:
    # An empty numba cache makes the worker compile every kernel, as on a fresh install: a
    # minute or more, which a stop must not wait for.
    async with asyncio.timeout(TIMEOUT):
        worker = await processes.worker(redis_url, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
        while "worker_compiling" not in worker.log_tail():
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)
        assert await worker.stop(signal.SIGTERM) == 0  # within STOP_SECONDS
    log = worker.log_tail()
    assert "worker_stopped" in log
    assert "worker_started" not in log  # it stopped in the middle of compiling


def _redis_answers(data_dir: Path) -> bool:
    """Whether a Redis still listens on the data folder's socket."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(data_dir / "redis.sock"))
        except OSError:
            return False
        return True


@pytest.mark.asyncio
async def test_a_stopped_server_exits_cleanly_and_its_game_goes_on_after_a_restart(
    short_dir: Path, processes: Processes
) -> None:
    data = ["--data-dir", str(short_dir)]
    moves = random_game("6x6", seed=33)
    async with asyncio.timeout(TIMEOUT):
        before = await processes.serve(*data)
        white, black = await guest(before.url), await guest(before.url)
        game_id = await _start_game(white, black, base=600)
        for ply in range(4):
            mover = white if ply % 2 == 0 else black
            await mover.request(PlayMove(game_id, ply, moves[ply]))
        await black.wait_for(lambda c: c.games[game_id].ply == 4)
        assert await before.stop(signal.SIGINT) == 0  # Ctrl-C
        # Its Redis stopped with it, so the game can only come back from the append-only file.
        assert not _redis_answers(short_dir)
        for client in (white, black):
            await asyncio.wait_for(client.wait_closed(), 10)

        after = await processes.serve(*data)
        white = await ArenaClient.reconnect(after.url, white)
        black = await ArenaClient.reconnect(after.url, black)
        for client in (white, black):
            assert client.games[game_id].moves == tuple(moves[:4])
        for ply in range(4, len(moves)):
            mover = white if ply % 2 == 0 else black
            await mover.request(PlayMove(game_id, ply, moves[ply]))
        for client in (white, black):
            await client.wait_for(_ended(game_id), timeout=10)
            assert client.games[game_id].moves == tuple(moves)
            assert client.games[game_id].termination is Termination.NO_LEGAL_MOVE
        redis = from_url(f"unix://{short_dir / 'redis.sock'}")
        try:
            versions = await _check_log(redis, game_id, moves)
        finally:
            await redis.aclose()
        for client in (white, black):
            assert client.games[game_id].version == versions
            await client.close()
        assert await after.stop(signal.SIGTERM) == 0
        assert not _redis_answers(short_dir)


def _pid_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def _gone(pid: int, seconds: float = STOP_SECONDS) -> bool:
    async with asyncio.timeout(seconds):
        while _pid_alive(pid):
            await asyncio.sleep(0.05)
    return True


@pytest.mark.asyncio
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal")
async def test_a_server_killed_with_sigkill_takes_its_redis_with_it(
    short_dir: Path, processes: Processes
) -> None:
    async with asyncio.timeout(TIMEOUT):
        server = await processes.serve("--data-dir", str(short_dir))
        redis_pid = int((short_dir / "redis.pid").read_text())
        server.process.kill()
        await server.process.wait()
        assert await _gone(redis_pid)
        # The next start owns a Redis of its own, and its clean stop leaves none running.
        again = await processes.serve("--data-dir", str(short_dir))
        second_pid = int((short_dir / "redis.pid").read_text())
        assert second_pid != redis_pid
        assert await again.stop(signal.SIGTERM) == 0
        assert not _pid_alive(second_pid)


@pytest.mark.asyncio
async def test_a_redis_orphaned_by_a_killed_server_is_taken_over_and_stopped(
    short_dir: Path, processes: Processes
) -> None:
    """Where no parent-death signal ended it: a redis-server of the folder still running,
    whose owner is gone."""
    embedded = EmbeddedRedis(short_dir)
    short_dir.chmod(0o700)
    orphan = subprocess.Popen(
        [str(redis_server_binary()), *embedded._arguments()],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=short_dir,
        process_group=0,
    )
    try:
        async with asyncio.timeout(TIMEOUT):
            while not _redis_answers(short_dir):
                await asyncio.sleep(0.05)
            (short_dir / "redis.owner").write_text(f"{_exited_pid()}\n")
            server = await processes.serve("--data-dir", str(short_dir))
            assert "redis_orphan_adopted" in server.log_tail()
            assert await server.stop(signal.SIGTERM) == 0
            await asyncio.to_thread(orphan.wait, STOP_SECONDS)
            assert orphan.returncode == 0  # a clean SHUTDOWN, the append-only file flushed
            assert not _redis_answers(short_dir)
    finally:
        if orphan.poll() is None:
            orphan.kill()
            orphan.wait()


def _exited_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@pytest.mark.asyncio
async def test_a_player_of_a_server_that_died_can_be_claimed_against(
    redis_url: str, redis: Redis, processes: Processes
) -> None:
    """White's server is killed with SIGKILL, so nothing says White left: White's presence
    lapses when no process renews it, and Black, on the other server, may then claim."""
    timing = ("--presence-lapse", "1", "--claim-grace", "1")
    async with asyncio.timeout(TIMEOUT):
        doomed = await processes.serve("--redis-url", redis_url, *timing)
        other = await processes.serve("--redis-url", redis_url, *timing)
        white, black = await guest(doomed.url), await guest(other.url)
        game_id = await _start_game(white, black, base=600)
        await white.request(PlayMove(game_id, 0, random_game("6x6", seed=3)[0]))
        doomed.process.kill()
        await doomed.process.wait()
        away = await black.next_news(Presence, timeout=15)
        assert (away.side, away.online, away.claim_after) == (Colour.WHITE, False, 1000)
        await asyncio.sleep(1.1)
        ended = await black.request(ClaimVictory(game_id), GameEnded)
        assert (ended.termination, ended.winner) == (Termination.ABANDONED, Colour.BLACK)
        await black.close()
        assert await other.stop() == 0


def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        return parse(reply.read().decode())


@pytest.mark.asyncio
async def test_a_server_and_a_worker_answer_prometheus_scrapes(
    redis_url: str, processes: Processes
) -> None:
    with socket.socket() as probe:  # a port free a moment ago
        probe.bind(("127.0.0.1", 0))
        metrics_port = probe.getsockname()[1]
    async with asyncio.timeout(TIMEOUT):
        server = await processes.serve("--redis-url", redis_url)
        worker = await processes.worker(redis_url, ARENA_METRICS_PORT=str(metrics_port))
        client = await guest(server.url)
        while "worker_started" not in worker.log_tail():
            await asyncio.sleep(0.1)
        served = await asyncio.to_thread(_scrape, int(server.url.rsplit(":", 1)[1]))
        worked = await asyncio.to_thread(_scrape, metrics_port)
        await client.close()
        assert await worker.stop() == 0
        assert await server.stop() == 0
    assert served[("arena_connections", ())] == 1
    assert served[("arena_sessions", (("kind", "guest"),))] == 1
    assert worked[("arena_worker_requests_total", (("outcome", "played"),))] == 0
    assert worked[("arena_worker_queue_length", ())] == 0
    assert f"127.0.0.1:{metrics_port}" in worker.log_tail()  # its metrics_serving line


@pytest.mark.asyncio
async def test_a_worker_whose_metrics_port_is_taken_says_so_before_compiling(
    redis_url: str, processes: Processes
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        worker = await processes.worker(redis_url, ARENA_METRICS_PORT=str(port))
        assert await asyncio.wait_for(worker.process.wait(), START_SECONDS) == 2
    log = worker.log_tail()
    assert (
        f"arena worker: error: cannot listen for metrics on 127.0.0.1:{port}: "
        "Address already in use"
    ) in log
    assert "worker_compiling" not in log
