"""Server load: concurrent games over loopback against `arena serve` processes that share one
Redis (the embedded one; `--stores` also redis-server alone or a local Redis Cluster, in the
same run), at human pace and at saturation, beside a bare websockets relay driven by the
same client loop, so the server's throughput reads as a share of what websockets alone carry.

Each game is a table of three guest connections: two scripted players, whose moves come from
random legal games computed before the clock starts, and one spectator. The delay measured is
from a player sending a move to its opponent (or the spectator) receiving the move's event.

Run from the repository root: python -m bench.server_load [--games N] [--seconds S] ...
Progress goes to stderr; the figures and a table go to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import multiprocessing
import os
import queue
import random
import re
import resource
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.context import SpawnContext, SpawnProcess
from pathlib import Path
from typing import Any, cast

import msgpack
import psutil  # type: ignore[import-untyped]
import structlog
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.client import ClientProtocol
from websockets.exceptions import InvalidState
from websockets.extensions.permessage_deflate import enable_client_permessage_deflate
from websockets.frames import Frame, Opcode
from websockets.uri import WebSocketURI, parse_uri

from bench.collector_pauses import LONG_MS, Collections, pauses_in
from server.protocol import (
    PROTOCOL_VERSION,
    AcceptSeek,
    CancelSeek,
    Guest,
    Hello,
    Request,
    Seek,
    TimeControl,
    Watch,
)
from server.session import RATE

LOADS = ("human", "saturation")
BASE_SECONDS = 3600  # each side's clock: no scripted game comes near it
STALL_SECONDS = 10.0  # a move its opponent has not seen by then (or the longest think) stalled
SETUP_TIMEOUT = 60.0  # one setup request (connect, log in, seek, accept, watch)
RETRY_SECONDS = 1.0  # a refused move or new game is tried again after about this long
RETRIED = frozenset({"internal", "rate_limited"})  # refusals a move is sent again after
DRAIN_SECONDS = 1.0  # after the window, time for the last events to reach the spectators
CONNECTS_AT_ONCE = 32  # connection handshakes in flight per client process
LOOPBACK_SOURCES = 4  # client addresses 127.0.0.2 and up, each with its own ephemeral ports
IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)  # Linux's number
SPARE_FILES = 1024  # open files a process needs beside its connections
PROGRESS_SECONDS = 2.0
PING_SECONDS = 10  # the relay pings like `arena serve` does
START_DELAY = 0.5  # between telling the clients the start time and that time
CORES = os.cpu_count() or 1
STORES = ("embedded", "single", "cluster")  # the Redis the servers share (`redis_store`)
SERVING = re.compile(r"serving on (ws://\S+)")
# Enough games that no connection reaches the server's rate limit (RATE requests a second)
# while the server sets the pace: 200 games stay under it up to 8,000 moves a second.
SATURATION_GAMES = 200


def raise_fd_limit(wanted: int) -> int:
    """Lift the limit on open files to `wanted` (30,000 connections need far more than the
    usual 1,024): the soft limit up to the hard one, and the hard one too where the process
    may (as root); children inherit it. Returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            soft, hard = wanted, wanted
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def random_games(setup: str, count: int, seed: int) -> list[tuple[str, ...]]:
    """`count` random legal games from `setup`, as move texts, for the players to replay."""
    from engine.amazons import Position  # numba start-up only in the process that plays games

    games = []
    for g in range(count):
        position = Position.setup(setup)
        moves: list[str] = []
        while not position.is_terminal():
            move = position.random_move(seed + 1000 * g + len(moves))
            if move is None:
                break
            moves.append(str(move))
            position.apply(move)
        games.append(tuple(moves))
    return games


# The client side: runs in the client processes.


@dataclass(frozen=True)
class Plan:
    """What one client process plays: its tables, against which servers, at what pace."""

    target: str  # "arena" or "relay"
    urls: tuple[str, ...]
    spread: bool  # a table's connections go to different servers in turn, or all to one
    tables: tuple[int, ...]
    scripts: tuple[tuple[str, ...], ...]
    setup: str
    think: float  # mean seconds a player waits before moving; 0 moves at once
    seconds: float
    compression: bool
    seed: int


@dataclass
class Tally:
    """What one client process saw. Delays are in ms; `moves` counts moves that reached the
    opponent inside the window."""

    moves: int = 0
    opponent_ms: list[float] = field(default_factory=list)
    spectator_ms: list[float] = field(default_factory=list)
    spectator_expected: int = 0
    spectator_seen: int = 0
    stalls: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    dropped: int = 0  # connections closed under a table
    failed_tables: int = 0  # tables that could not connect, log in or start a game
    failures: Counter[str] = field(default_factory=Counter)
    games_started: int = 0
    games_finished: int = 0

    def add(self, other: Tally) -> None:
        self.moves += other.moves
        self.opponent_ms += other.opponent_ms
        self.spectator_ms += other.spectator_ms
        self.spectator_expected += other.spectator_expected
        self.spectator_seen += other.spectator_seen
        self.stalls += other.stalls
        self.refused += other.refused
        self.dropped += other.dropped
        self.failed_tables += other.failed_tables
        self.failures += other.failures
        self.games_started += other.games_started
        self.games_finished += other.games_finished


class RefusedError(Exception):
    """The server answered a request with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class SeatLostError(Exception):
    """A connection of the table closed."""


class Link(asyncio.Protocol):
    """One connection at a table, a player's or the spectator's: websockets' sans-I/O client
    protocol fed straight from the transport's callbacks, with no task, reader or queue of its
    own, so that tens of thousands of them cost the load generator little. Move events go to
    the table; replies go to the requests awaiting them."""

    def __init__(self, table: Table, role: str, uri: WebSocketURI, compression: bool) -> None:
        self.table = table
        self.role = role
        self.name = ""
        extensions = enable_client_permessage_deflate(None) if compression else None
        self.protocol = ClientProtocol(uri, extensions=extensions, max_size=2**20)
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._fragments: list[bytes] = []

    # The transport's side.

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without deriving from it.
        self.transport = cast(asyncio.Transport, transport)
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self._frame(event, now)
            elif not self.opened.done():  # the handshake's response
                error = self.protocol.handshake_exc
                if error is None:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(error)
        self._flush()

    def eof_received(self) -> None:
        self.protocol.receive_eof()
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        lost = SeatLostError(f"{self.role} connection closed")
        if not self.opened.done():
            self.opened.set_exception(lost)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(lost)
        self.table.lost(self)

    def _flush(self) -> None:
        assert self.transport is not None
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():  # the protocol's end of the closing handshake
                self.transport.write_eof()

    def _frame(self, frame: Frame, now: float) -> None:
        if frame.opcode is Opcode.CONT:
            self._fragments.append(bytes(frame.data))
            if not frame.fin:
                return
            data = b"".join(self._fragments)
            self._fragments.clear()
        elif frame.opcode is Opcode.BINARY or frame.opcode is Opcode.TEXT:
            if not frame.fin:
                self._fragments.append(bytes(frame.data))
                return
            data = bytes(frame.data)
        else:
            return  # control frames: the protocol answers pings and closes itself
        message = msgpack.unpackb(data)
        tag = message.get("t")
        # "move_played" from the arena; the relay forwards the mover's "move" as is.
        if tag == "move_played" or tag == "move":
            self.table.arrived(self, message["game_id"], message["ply"], now)
            return
        request_id = message.get("id")
        future = self._pending.get(request_id) if request_id is not None else None
        if future is not None:
            if not future.done():
                future.set_result(message)
        elif tag == "error":
            self.table.refused(message.get("code", "?"), message.get("message", ""))
        elif tag == "game_started":
            self.table.joined(message["game_id"])

    # The table's side.

    def send(self, frame: bytes) -> None:
        self.protocol.send_binary(frame)
        self._flush()

    async def ask(self, request: Request | dict[str, Any]) -> dict[str, Any]:
        """Send a request and return its reply; raise RefusedError on an error reply."""
        request_id = next(self._ids)
        if isinstance(request, dict):
            frame: bytes = msgpack.packb({**request, "id": request_id})
        else:
            frame = replace(request, id=request_id).to_wire()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            self.send(frame)
            reply = await asyncio.wait_for(future, SETUP_TIMEOUT)
        finally:
            self._pending.pop(request_id, None)
        if reply["t"] == "error":
            raise RefusedError(reply.get("code", "?"), reply.get("message", ""))
        return reply

    def send_move(self, game_id: str, ply: int, move: str) -> None:
        # Packed by hand: the wire form of PlayMove, without the per-move validation cost.
        self.send(
            msgpack.packb(
                {"t": "move", "id": next(self._ids), "game_id": game_id, "ply": ply, "move": move}
            )
        )

    def close(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        with contextlib.suppress(InvalidState):
            self.protocol.send_close()
            self._flush()
        self.transport.close()


async def open_link(table: Table, role: str, url: str, source: str | None) -> Link:
    """Connect one link to `url`, from the loopback address `source` when given."""
    uri = parse_uri(url)
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if source is not None:
            # The kernel picks the port at connect time, for the whole address pair, so a
            # source address serves every server and a closed run's TIME_WAITs do not block it.
            sock.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
            sock.bind((source, 0))
        await loop.sock_connect(sock, (uri.host, uri.port))
        link = Link(table, role, uri, table.plan.compression)
        await loop.create_connection(lambda: link, sock=sock)
    except BaseException:
        sock.close()
        raise
    try:
        await link.opened
    except BaseException:
        link.close()
        raise
    return link


class Table:
    """One game's three connections and the scripted games they play one after another.

    Setting up a game (seek, accept, watch) is a coroutine; playing it is driven by callbacks
    alone: a timer for each think, the opponent's move event for the next, and a timer that
    calls a move stalled when it has not arrived in time."""

    def __init__(self, number: int, plan: Plan, tally: Tally) -> None:
        self.number = number
        self.plan = plan
        self.tally = tally
        self.rng = random.Random(plan.seed * 1_000_003 + number)
        self.links: list[Link] = []
        self.closing = False
        self.round = 0
        self.game_id = ""
        self.white: Link | None = None
        self.black: Link | None = None
        self.games_joined: set[str] = set()
        self._joined = asyncio.Event()
        self.sent: dict[str, list[float]] = {}  # game id -> send time of each ply (last two games)
        self.ply = 0  # of the current game: the move in flight, or the next one
        self.in_flight = False  # a move was sent and its opponent has not seen it yet
        self.timer: asyncio.TimerHandle | None = None  # the next move's, or the stall's
        self.starting: asyncio.Task[None] | None = None  # a new game being set up
        self.opening: asyncio.Future[None] | None = None  # an opening move's arrival
        self.window = (0.0, 0.0)
        self.stall_seconds = stall_seconds(plan.think)

    # Setting up

    async def sit_down(self, limit: asyncio.Semaphore, source: str | None) -> None:
        """Open the three connections and log them in."""
        roles = ("a", "b", "spectator")
        urls = self.plan.urls
        for index, role in enumerate(roles):
            url = urls[(self.number + (index if self.plan.spread else 0)) % len(urls)]
            async with limit:
                link = await asyncio.wait_for(open_link(self, role, url, source), SETUP_TIMEOUT)
                self.links.append(link)
                if self.plan.target == "arena":
                    await link.ask(Hello(PROTOCOL_VERSION, "bench.server_load"))
                    welcome = await link.ask(Guest())
                    link.name = welcome["user"]["name"]
                else:
                    await link.ask({"t": "join", "table": self.number, "role": role})

    async def new_game(self) -> None:
        a, b, spectator = self.links
        self.round += 1
        if self.plan.target == "relay":
            self.game_id = f"t{self.number}.{self.round}"
            self.white, self.black = a, b
        else:
            added = await a.ask(Seek(TimeControl(BASE_SECONDS, 0), setup=self.plan.setup))
            seek_id = added["seek"]["seek_id"]
            try:
                started = await b.ask(AcceptSeek(seek_id))
            except RefusedError:
                with contextlib.suppress(RefusedError, SeatLostError, TimeoutError):
                    await a.ask(CancelSeek(seek_id))
                raise
            game_id = started["game_id"]
            # The seeker follows the game once its game_started arrives: wait for it, so the
            # first move's delay is not the subscription's.
            deadline = time.monotonic() + SETUP_TIMEOUT
            while game_id not in self.games_joined:
                self._joined.clear()
                await asyncio.wait_for(self._joined.wait(), deadline - time.monotonic())
            await spectator.ask(Watch(game_id))
            self.game_id = game_id
            white_is_a = started["white"]["name"] == a.name
            self.white, self.black = (a, b) if white_is_a else (b, a)
        self.sent[self.game_id] = []
        self.ply = 0
        while len(self.sent) > 2:
            del self.sent[next(iter(self.sent))]
        self.tally.games_started += 1

    async def open_game(self) -> None:
        """Play each side's first move, unmeasured. The server aborts a game whose first moves
        do not come within 30 s of its start, and setting up the first games of 10,000 tables
        takes minutes: the ones set up first would be over before the window opens."""
        assert self.white is not None
        assert self.black is not None
        for mover in (self.white, self.black)[: len(self.script())]:
            self.opening = asyncio.get_running_loop().create_future()
            self.sent[self.game_id].append(time.monotonic())
            mover.send_move(self.game_id, self.ply, self.script()[self.ply])
            try:
                await asyncio.wait_for(self.opening, SETUP_TIMEOUT)
            finally:
                self.opening = None
            self.ply += 1

    def script(self) -> tuple[str, ...]:
        return self.plan.scripts[(self.number * 7 + self.round) % len(self.plan.scripts)]

    # Playing

    @property
    def busy(self) -> bool:
        """A move in flight or a game being set up: the table is not done with the window."""
        return self.in_flight or (self.starting is not None and not self.starting.done())

    def play(self, start: float, deadline: float) -> None:
        """Play scripted games from `start` until `deadline`, the first game already set up."""
        self.window = (start, deadline)
        if self.ply < len(self.script()):
            self._think(start)
        else:  # the opening moves were the whole game
            self.tally.games_finished += 1
            self.timer = asyncio.get_running_loop().call_at(start, self._next_game)

    def _think(self, since: float) -> None:
        """Make the next move a think after `since`, unless that is past the window."""
        at = since + self.plan.think * self.rng.uniform(0.5, 1.5) if self.plan.think > 0 else since
        if at < self.window[1] and not self.closing:
            self.timer = asyncio.get_running_loop().call_at(at, self._move)

    def _move(self) -> None:
        self.timer = None
        if self.closing or time.monotonic() >= self.window[1]:
            return
        self.sent[self.game_id].append(time.monotonic())
        self._send()

    def _send(self) -> None:
        """Send the move of `ply`, the first time or again, and start its stall timer. A move
        sent again keeps the time of its first try, as the player would feel its delay."""
        assert self.white is not None
        assert self.black is not None
        self.timer = None
        if self.closing:
            return
        mover = self.white if self.ply % 2 == 0 else self.black
        self.in_flight = True
        mover.send_move(self.game_id, self.ply, self.script()[self.ply])
        self.timer = asyncio.get_running_loop().call_later(self.stall_seconds, self._stalled)

    def _stalled(self) -> None:
        self.timer = None
        self.in_flight = False
        self.tally.stalls += 1
        self._next_game()

    def arrived(self, link: Link, game_id: str, ply: int, now: float) -> None:
        """A move event reached `link`."""
        times = self.sent.get(game_id)
        if times is None or ply >= len(times):
            return  # an event of a game no longer followed
        sent = times[ply]
        start, deadline = self.window
        if link is self.links[2]:
            self.tally.spectator_seen += 1
            if start <= sent < deadline:
                self.tally.spectator_ms.append(1000 * (now - sent))
            return
        opponent = self.black if ply % 2 == 0 else self.white
        if game_id != self.game_id or link is not opponent or ply != self.ply:
            return  # the mover's own reply, or a repeat
        if self.opening is not None:
            self.tally.spectator_expected += 1
            if not self.opening.done():
                self.opening.set_result(None)
            return
        if not self.in_flight:
            return  # already seen, or given up as stalled
        self._cancel_timer()
        self.in_flight = False
        self.tally.spectator_expected += 1
        if now < deadline:
            self.tally.moves += 1
        if start <= sent < deadline:
            self.tally.opponent_ms.append(1000 * (now - sent))
        self.ply += 1
        if self.ply < len(self.script()):
            self._think(now)
        else:
            self.tally.games_finished += 1
            self._next_game()

    def refused(self, code: str, message: str) -> None:
        """An error reply to a move: the move will not reach the opponent. One the server
        failed on is sent again after a pause, as the protocol allows (moves are idempotent);
        after any other, the table backs off as a person would and starts a new game."""
        self.tally.refused[code] += 1
        if self.opening is not None and not self.opening.done():
            self.opening.set_exception(RefusedError(code, message))
        if not self.in_flight:
            return
        self._cancel_timer()
        self.in_flight = False
        loop = asyncio.get_running_loop()
        pause = RETRY_SECONDS * self.rng.uniform(0.5, 1.5)
        if code in RETRIED and time.monotonic() < self.window[1]:
            self.in_flight = True  # still the player's move: the window waits for it
            self.timer = loop.call_later(pause, self._send)
        else:
            self.timer = loop.call_later(pause, self._next_game)

    def _next_game(self) -> None:
        self.timer = None
        if not self.closing and time.monotonic() < self.window[1]:
            self.starting = asyncio.get_running_loop().create_task(self._start_game())

    async def _start_game(self) -> None:
        while time.monotonic() < self.window[1] and not self.closing:
            try:
                await self.new_game()
            except RefusedError as refusal:
                self.tally.refused[refusal.code] += 1
                # Back off as a person would, rather than hammer a failing server.
                await asyncio.sleep(RETRY_SECONDS * self.rng.uniform(0.5, 1.5))
            except TimeoutError:
                self.tally.stalls += 1
            except SeatLostError:
                return
            else:
                self._think(time.monotonic())
                return

    def joined(self, game_id: str) -> None:
        self.games_joined.add(game_id)
        self._joined.set()

    def lost(self, link: Link) -> None:
        if self.closing:
            return
        self.tally.dropped += 1
        self.halt()

    def halt(self) -> None:
        """Stop playing: no more moves, no new game."""
        self.closing = True
        self.in_flight = False
        self._cancel_timer()
        if self.starting is not None:
            self.starting.cancel()

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def leave(self) -> None:
        self.halt()
        for link in self.links:
            link.close()


def stall_seconds(think: float) -> float:
    """How long a move may go unseen by its opponent before it counts as stalled: 10 s, or
    the longest think when that is longer, so a slow pace is not taken for a stalled server."""
    return max(STALL_SECONDS, 1.5 * think)


@dataclass
class Progress:
    """How far one client process is: the stage and the tables done in it."""

    stage: str = "connect"
    done: int = 0


def client_main(plan: Plan, index: int, control: Any, results: Any) -> None:
    """A client process: its tables on one event loop (uvloop's where it is installed),
    steered through two queues."""
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            runner.run(_client(plan, index, control, results))
    except BaseException:
        results.put(("failed", index, traceback.format_exc()))


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def _client(plan: Plan, index: int, control: Any, results: Any) -> None:
    loop = asyncio.get_running_loop()
    tally = Tally()
    tables = [Table(number, plan, tally) for number in plan.tables]
    limit = asyncio.Semaphore(CONNECTS_AT_ONCE)
    progress = Progress()
    sources = loopback_sources(plan.urls)

    async def report_progress() -> None:
        while True:
            await asyncio.sleep(PROGRESS_SECONDS / 2)
            done = tally.moves if progress.stage == "play" else progress.done
            results.put(("progress", index, (progress.stage, done)))

    async def step(table: Table, action: str) -> Table | None:
        try:
            if action == "connect":
                source = sources[table.number % len(sources)] if sources else None
                await table.sit_down(limit, source)
            else:
                # Paced like the connections: a burst of hundreds of games started in the same
                # instant is not the load under test (and overruns the server's Redis pool).
                async with limit:
                    await table.new_game()
                    await table.open_game()
        except Exception as error:
            tally.failed_tables += 1
            tally.failures[f"{action}: {type(error).__name__}: {error}"[:160]] += 1
            table.leave()
            return None
        progress.done += 1
        return table

    reporter = asyncio.create_task(report_progress())
    found = await asyncio.gather(*(step(table, "connect") for table in tables))
    tables = [table for table in found if table is not None]
    results.put(("connected", index, len(tables)))
    await loop.run_in_executor(None, control.get)
    progress.stage, progress.done = "games", 0
    found = await asyncio.gather(*(step(table, "game") for table in tables))
    tables = [table for table in found if table is not None]
    results.put(("ready", index, len(tables)))
    start: float = await loop.run_in_executor(None, control.get)
    progress.stage = "play"
    deadline = start + plan.seconds
    # The collector would walk every connection's objects in its pauses, which are the load
    # generator's, not the server's; the window makes little cyclic garbage.
    gc.collect()
    gc.freeze()
    gc.disable()
    for table in tables:
        table.play(start, deadline)
    # After the window, moves already sent are waited for until they count as stalled.
    cutoff = deadline + stall_seconds(plan.think)
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    while any(table.busy for table in tables) and time.monotonic() < cutoff:
        await asyncio.sleep(0.1)
    for table in tables:
        if table.busy:
            tally.stalls += 1
        table.halt()
    await asyncio.sleep(DRAIN_SECONDS)
    gc.enable()
    reporter.cancel()
    for table in tables:
        table.leave()
    results.put(("done", index, tally))


def loopback_sources(urls: Sequence[str]) -> list[str]:
    """Loopback addresses to connect from, when the servers are on 127.0.0.1 (on Linux, which
    answers on the whole of 127/8): one source address reaches a server port from about 28,000
    ephemeral ports, fewer than the connections of 10,000 games."""
    if sys.platform != "linux" or any(parse_uri(url).host != "127.0.0.1" for url in urls):
        return []
    return [f"127.0.0.{2 + k}" for k in range(LOOPBACK_SOURCES)]


# The bare relay: its own process, no Redis, no engine.


def relay_main(echo: bool, ready: Any) -> None:
    # The relay is the floor the server is read against: without the collector, whose pauses
    # grow with the connections (a full one walks every connection's objects: a second at
    # 15,000), and which a forwarder of bytes does not need over a bounded run.
    gc.disable()
    asyncio.run(_relay(echo, ready))


async def _relay(echo: bool, ready: Any) -> None:
    """Forward each player's frame to the other player and the spectator of its table (and
    back to the mover with `echo`), through websockets' own non-blocking broadcast."""
    tables: dict[int, dict[str, ServerConnection]] = {}

    async def handle(socket: ServerConnection) -> None:
        join = msgpack.unpackb(await socket.recv())
        seats = tables.setdefault(join["table"], {})
        role = join["role"]
        seats[role] = socket
        await socket.send(msgpack.packb({"t": "ok", "id": join["id"]}))
        try:
            async for frame in socket:
                broadcast([s for r, s in seats.items() if echo or r != role], frame)
        finally:
            seats.pop(role, None)

    async with serve(handle, "127.0.0.1", 0, ping_interval=PING_SECONDS) as server:
        ready.put(next(iter(server.sockets)).getsockname()[1])
        await asyncio.Future()


# The processes under test.


@dataclass
class Stack:
    """The server processes under test: their websocket URLs and the pids whose CPU counts."""

    urls: list[str]
    pids: dict[str, int]  # label -> pid
    logs: list[Path] = field(default_factory=list)
    pauses: list[Path] = field(default_factory=list)  # each server's collections (JSON)
    spread: bool = True  # a table's connections may go to different processes


@contextlib.contextmanager
def redis_store(store: str, folder: Path) -> Iterator[tuple[str, dict[str, int]]]:
    """A fresh Redis of the kind `store` names (STORES), its URL and the pids whose CPU
    counts: the embedded Redis (a unix socket), Redis 7's redis-server alone over TCP, or a
    local Redis Cluster of 3 masters and 3 replicas of it (the tests' starter), each node
    counted on its own."""
    if store == "single":
        from tests.redis_cluster import SERVER, free_ports

        (port,) = free_ports(1)
        folder.mkdir(parents=True, exist_ok=True)
        node = subprocess.Popen(
            [
                SERVER,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--dir",
                str(folder),
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            _wait_redis(port)
            yield f"redis://127.0.0.1:{port}", {"redis": node.pid}
        finally:
            node.terminate()
            node.wait()
        return
    if store == "cluster":
        from tests.redis_cluster import LocalCluster

        # The node timeout of a deployment (deploy/), not the tests' one second.
        with LocalCluster(folder / "cluster", node_timeout_ms=5000) as cluster:
            yield (
                cluster.url,
                {
                    f"redis {cluster.role(port)} {k}": cluster.pid(port)
                    for k, port in enumerate(cluster.ports)
                },
            )
        return
    from server.redis_embedded import EmbeddedRedis

    redis = EmbeddedRedis(folder / "redis")
    redis.start()
    try:
        yield redis.url, {"redis": redis.pid or 0}
    finally:
        redis.stop()


@contextlib.contextmanager
def arena_stack(servers: int, folder: Path, store: str = "embedded") -> Iterator[Stack]:
    """A fresh Redis (`redis_store`) and `servers` `arena serve` processes on it."""
    with redis_store(store, folder) as (url, redis_pids):
        yield from _serving_stack(servers, folder, url, redis_pids)


def _serving_stack(
    servers: int, folder: Path, url: str, redis_pids: dict[str, int]
) -> Iterator[Stack]:
    processes: list[subprocess.Popen[str]] = []
    try:
        stack = Stack([], dict(redis_pids))
        for k in range(servers):
            log_path = folder / f"server-{k}.log"
            stack.logs.append(log_path)
            stack.pauses.append(folder / f"server-{k}.gc.jsonl")
            with log_path.open("w") as log_file:
                process = subprocess.Popen(
                    [
                        *(sys.executable, "-m", "bench.collector_pauses", stack.pauses[-1]),
                        *("server.cli", "serve", "--redis-url", url),
                        *("--host", "127.0.0.1", "--port", "0", "--workers", "0"),
                    ],
                    stdout=subprocess.PIPE,
                    stderr=log_file,
                    stdin=subprocess.DEVNULL,
                    text=True,
                )
            processes.append(process)
            stack.urls.append(_serving_url(process, log_path))
            stack.pids[f"server{k}" if servers > 1 else "server"] = process.pid
        yield stack
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()


def _wait_redis(port: int) -> None:
    import redis

    deadline = time.monotonic() + 30
    while True:
        try:
            with redis.Redis(port=port) as client:
                client.ping()
                return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _serving_url(process: subprocess.Popen[str], log_path: Path) -> str:
    """The URL `arena serve` prints once it listens."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if selector.select(timeout=60):
            found = SERVING.search(process.stdout.readline())
            if found:
                return found.group(1)
    process.kill()
    raise RuntimeError(
        f"arena serve did not start; see {log_path}:\n{log_path.read_text()[-2000:]}"
    )


@contextlib.contextmanager
def relay_stack(context: SpawnContext, echo: bool, relays: int) -> Iterator[Stack]:
    """`relays` relay processes; a table's connections all go to the same one, which forwards
    only between its own connections."""
    ready = context.Queue()
    processes = [
        context.Process(target=relay_main, args=(echo, ready), daemon=True) for _ in range(relays)
    ]
    for process in processes:
        process.start()
    try:
        stack = Stack([], {}, spread=False)
        for k, process in enumerate(processes):
            stack.urls.append(f"ws://127.0.0.1:{ready.get(timeout=60)}")
            stack.pids[f"relay{k}" if relays > 1 else "relay"] = process.pid or 0
        yield stack
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(10)


def log_problems(paths: Sequence[Path]) -> tuple[Counter[str], dict[str, str]]:
    """Warnings and errors the servers logged (JSON lines), by level and event, with the last
    line of the first exception logged under each."""
    found: Counter[str] = Counter()
    samples: dict[str, str] = {}
    for path in paths:
        with contextlib.suppress(OSError), path.open() as lines:
            for line in lines:
                try:
                    entry = json.loads(line)
                except ValueError:
                    # `arena serve: ...` lines say what the server is starting, not a problem,
                    # unless one is its error.
                    progress = line.startswith("arena serve: ") and ": error: " not in line
                    if line.strip() and not progress:
                        found[f"unparsed: {line.strip()[:80]}"] += 1
                    continue
                if entry.get("level") in ("warning", "error", "critical"):
                    key = f"{entry['level']}: {entry.get('event')}"
                    found[key] += 1
                    if "exception" in entry and key not in samples:
                        samples[key] = entry["exception"].strip().splitlines()[-1][:200]
    return found, samples


# Measuring.


@dataclass
class Outcome:
    """One measured run: a load against a target."""

    load: str
    target: str
    games: int
    connections: int
    seconds: float
    tally: Tally
    cpu: dict[str, float]  # label -> % of one core over the window
    machine_busy: float  # % of one core: every process's CPU over the window, ours and others'
    load_before: float
    load_after: float
    think: float  # mean s a move; 0 at saturation
    # label -> resident bytes before the clients, with the first games started, after the window
    memory: dict[str, tuple[int, ...]] = field(default_factory=dict)
    problems: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)  # problem -> its exception
    began: float = 0.0  # the window's start, time.monotonic()
    collections: dict[str, Collections] = field(default_factory=dict)  # server -> its collector
    store: str = ""  # the Redis the servers shared (STORES); none for a relay

    @property
    def label(self) -> str:
        return f"{self.target} {self.store}" if self.store else self.target

    @property
    def rate(self) -> float:
        return self.tally.moves / self.seconds


def quantile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank quantile of sorted values; nan when there are none."""
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def resident_bytes(pids: dict[str, int]) -> dict[str, int]:
    found = {}
    for label, pid in pids.items():
        with contextlib.suppress(psutil.Error):
            found[label] = psutil.Process(pid).memory_info().rss
    return found


def cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    found = {}
    for label, pid in pids.items():
        with contextlib.suppress(psutil.Error):
            times = psutil.Process(pid).cpu_times()
            found[label] = times.user + times.system
    return found


def run_load(
    context: SpawnContext,
    stack: Stack,
    load: str,
    target: str,
    games: int,
    args: argparse.Namespace,
    scripts: list[tuple[str, ...]],
) -> Outcome:
    label = f"{load} pace, {target}" if load == "human" else f"{load}, {target}"
    procs = max(1, min(args.client_procs, games))
    think = args.think if load == "human" else 0.0
    control = [context.Queue() for _ in range(procs)]
    results = context.Queue()
    plans = [
        Plan(
            target=target,
            urls=tuple(stack.urls),
            spread=stack.spread,
            tables=tuple(range(j, games, procs)),
            scripts=tuple(scripts),
            setup=args.setup,
            think=think,
            seconds=args.seconds,
            compression=not args.no_compression,
            seed=args.seed,
        )
        for j in range(procs)
    ]
    clients: list[SpawnProcess] = [
        context.Process(target=client_main, args=(plan, j, control[j], results), daemon=True)
        for j, plan in enumerate(plans)
    ]
    idle = resident_bytes(stack.pids)
    for process in clients:
        process.start()
    try:
        outcome = _measure(
            stack, clients, control, results, label, load, target, games, args.seconds, think
        )
        outcome.memory = {
            name: (idle[name], *outcome.memory[name]) for name in idle if name in outcome.memory
        }
        return outcome
    finally:
        for process in clients:
            process.join(30)
            if process.is_alive():
                process.kill()


def _measure(
    stack: Stack,
    clients: list[SpawnProcess],
    control: list[Any],
    results: Any,
    label: str,
    load: str,
    target: str,
    games: int,
    seconds: float,
    think: float,
) -> Outcome:
    watch = Stages(clients, results, label)
    setup_limit = SETUP_TIMEOUT * 10
    what = f"{games:,} tables connected (3 connections each)"
    tables = sum(watch.wait("connected", what, games, setup_limit))
    for channel in control:
        channel.put("games")
    tables = sum(watch.wait("ready", f"{tables:,} first games started", tables, setup_limit))
    seated = resident_bytes(stack.pids)
    pids = {**stack.pids, **{f"client{j}": p.pid or 0 for j, p in enumerate(clients)}}
    start = time.monotonic() + START_DELAY
    for channel in control:
        channel.put(start)
    time.sleep(max(0.0, start - time.monotonic()))
    load_before = os.getloadavg()[0]
    machine_before = psutil.cpu_times()
    cpu_before = cpu_seconds(pids)
    watch.follow_play(start, seconds)
    cpu_after = cpu_seconds(pids)
    played = resident_bytes(stack.pids)
    machine_after = psutil.cpu_times()
    load_after = os.getloadavg()[0]
    tally = Tally()
    for part in watch.wait("done", "closing", 0, stall_seconds(think) + 60):
        tally.add(part)
    tally.opponent_ms.sort()
    tally.spectator_ms.sort()
    spent = sum(machine_after) - sum(machine_before)
    idle = machine_after.idle + machine_after.iowait - machine_before.idle - machine_before.iowait
    cpu = {
        name: 100 * (cpu_after[name] - cpu_before[name]) / seconds
        for name in cpu_before
        if name in cpu_after
    }
    outcome = Outcome(
        load=load,
        target=target,
        games=tables,
        connections=3 * tables,
        seconds=seconds,
        tally=tally,
        cpu=cpu,
        machine_busy=100 * CORES * (1 - idle / spent) if spent > 0 else float("nan"),
        load_before=load_before,
        load_after=load_after,
        think=think,
        memory={name: (seated[name], played[name]) for name in seated if name in played},
        began=start,
    )
    _progress(
        f"{label}: {outcome.rate:,.0f} moves/s, p99 {quantile(tally.opponent_ms, 0.99):.1f} ms"
    )
    return outcome


class Stages:
    """The parent's side of the client processes' queue: waits for every process to reach a
    stage, printing progress (and failing if a process dies)."""

    def __init__(self, clients: list[SpawnProcess], results: Any, label: str) -> None:
        self.clients = clients
        self.results = results
        self.label = label
        self.latest: dict[int, tuple[str, int]] = {}

    def _next(self, timeout: float, waiting: Sequence[int] = ()) -> tuple[str, int, Any] | None:
        """The next message, None after `timeout`; fails when a process of `waiting` died."""
        try:
            message: tuple[str, int, Any] = self.results.get(timeout=timeout)
        except queue.Empty:
            exited = [j for j in waiting if self.clients[j].exitcode is not None]
            if not exited:
                return None
            try:  # its last message may still be on its way through the pipe
                message = self.results.get(timeout=5.0)
            except queue.Empty:
                code = self.clients[exited[0]].exitcode
                raise RuntimeError(f"client process {exited[0]} exited (code {code})") from None
        if message[0] == "failed":
            raise RuntimeError(f"client process {message[1]} failed:\n{message[2]}")
        if message[0] == "progress":
            self.latest[message[1]] = message[2]
        return message

    def wait(self, stage: str, what: str, total: int, timeout: float) -> list[Any]:
        """Every process's message of `stage`, printing `done of what` meanwhile."""
        found: dict[int, Any] = {}
        began = shown = time.monotonic()
        while len(found) < len(self.clients):
            message = self._next(1.0, [j for j in range(len(self.clients)) if j not in found])
            now = time.monotonic()
            if message is not None and message[0] == stage:
                found[message[1]] = message[2]
            if now - began > timeout:
                raise RuntimeError(f"{self.label}: {stage} took over {timeout:g} s")
            if total and now - shown >= PROGRESS_SECONDS:
                shown = now
                done = sum(n for s, n in self.latest.values() if s != "play")
                rate = done / (now - began)
                eta = f"ETA {(total - done) / rate:.0f} s" if rate > 0 else "no ETA yet"
                _progress(f"{self.label}: {done:,} of {what}, {eta}")
        return [found[j] for j in sorted(found)]

    def follow_play(self, start: float, seconds: float) -> None:
        end = start + seconds
        shown = start
        while (now := time.monotonic()) < end:
            self._next(min(1.0, end - now))
            now = time.monotonic()
            if now - shown >= PROGRESS_SECONDS and now < end:
                shown = now
                moves = sum(n for s, n in self.latest.values() if s == "play")
                _progress(
                    f"{self.label}: {now - start:.0f} of {seconds:g} s, {moves:,} moves "
                    f"({moves / (now - start):,.0f}/s), ETA {end - now:.0f} s"
                )


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# Reporting.


def report(outcomes: list[Outcome], args: argparse.Namespace) -> None:
    relay = {o.load: o for o in outcomes if o.target == "relay"}
    width = max(6, *(len(o.label) for o in outcomes))
    print()
    header = (
        f"{'load':<11} {'target':<{width}} {'games':>6} {'conns':>6} {'moves/s':>8} "
        f"{'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'spect p50':>9} {'spect p99':>9} "
        f"{'relay mv/s':>10} {'% relay':>7}"
    )
    print(header)
    print("-" * len(header))
    for o in outcomes:
        ms = o.tally.opponent_ms
        spect = o.tally.spectator_ms
        base = relay.get(o.load)
        base_rate = f"{base.rate:,.0f}" if base is not None else "-"
        share = (
            f"{100 * o.rate / base.rate:.0f}%"
            if base is not None and o.target == "arena" and base.rate > 0
            else "-"
        )
        print(
            f"{o.load:<11} {o.label:<{width}} {o.games:>6,} {o.connections:>6,} {o.rate:>8,.0f} "
            f"{quantile(ms, 0.5):>7.1f} {quantile(ms, 0.99):>7.1f} {quantile(ms, 1.0):>7.1f} "
            f"{quantile(spect, 0.5):>9.1f} {quantile(spect, 0.99):>9.1f} "
            f"{base_rate:>10} {share:>7}"
        )
    print()
    print(f"CPU over each window, % of one core ({CORES} cores = {100 * CORES}%)")
    for o in outcomes:
        parts = ", ".join(f"{name} {value:.0f}%" for name, value in o.cpu.items())
        others = o.machine_busy - sum(o.cpu.values())
        print(
            f"  {o.load} {o.label}: {parts}; other processes {max(0.0, others):.0f}%; "
            f"load average {o.load_before:.2f} -> {o.load_after:.2f}"
        )
        # CPU per move holds on a shared machine, where a process gets what the others leave.
        if o.tally.moves:
            served = sum(v for n, v in o.cpu.items() if not n.startswith("client"))
            clients = sum(v for n, v in o.cpu.items() if n.startswith("client"))
            stored = sum(v for n, v in o.cpu.items() if n.startswith("redis"))
            per_move = 10 * o.seconds / o.tally.moves  # % of a core over the window -> ms
            cost = served * per_move
            carry = f"{1000 / cost:,.0f}" if cost > 0 else "-"
            print(
                f"    CPU per move: {o.label} side {cost:.2f} ms (a core to itself would carry "
                f"about {carry} moves/s; of it Redis {stored * per_move:.2f} ms), clients "
                f"{clients * per_move:.2f} ms"
            )
        busy_clients = [n for n, v in o.cpu.items() if n.startswith("client") and v >= 85]
        if busy_clients:
            print(
                f"    clients near a full core ({', '.join(busy_clients)}): their own delay is "
                "part of these figures; try more --client-procs"
            )
    print()
    print(
        "Memory: resident size before the clients -> with every table seated and its first "
        "game started -> after the window; per connection it holds, seated"
    )
    for o in outcomes:
        sizes = []
        # Redis serves every connection's games; the servers (or relays) share them evenly.
        shared = sum(1 for name in o.memory if not name.startswith("redis"))
        for name, (idle, seated, played) in o.memory.items():
            held = o.connections if name.startswith("redis") else o.connections / shared
            per = (seated - idle) / held / 1024 if held else float("nan")
            sizes.append(
                f"{name} {idle / 2**20:,.0f} -> {seated / 2**20:,.0f} -> "
                f"{played / 2**20:,.0f} MiB, {per:,.1f} KiB a connection"
            )
        print(f"  {o.load} {o.label}: " + "; ".join(sizes))
    _collections(outcomes)
    print()
    print("Correctness")
    for o in outcomes:
        t = o.tally
        missing = t.spectator_expected - t.spectator_seen
        notes = [
            f"{t.moves:,} moves",
            f"{t.games_started:,} games started, {t.games_finished:,} finished",
            f"stalls (a move unseen after {stall_seconds(o.think):g} s, or a new game after "
            f"{SETUP_TIMEOUT:g} s) {t.stalls}",
            f"spectator events missing {max(0, missing)}",
            f"connections dropped {t.dropped}",
            f"tables failed {t.failed_tables}",
        ]
        if t.refused:
            notes.append("refused " + ", ".join(f"{c} {n}" for c, n in t.refused.items()))
        print(f"  {o.load} {o.label}: " + "; ".join(notes))
        for failure, count in t.failures.most_common(5):
            print(f"    {count} x {failure}")
        for problem, count in o.problems.most_common(10):
            sample = o.samples.get(problem)
            print(f"    server log: {count} x {problem}" + (f" ({sample})" if sample else ""))
    _targets(outcomes, relay)


def _collections(outcomes: list[Outcome]) -> None:
    """The server processes' garbage collector over each window (bench/collector_pauses.py)."""
    timed = [o for o in outcomes if o.collections]
    if not timed:
        return
    print()
    print(
        "Garbage collector in the servers over each window, by generation: collections, their "
        f"pauses' total and longest (ms; CPU ms in brackets), pauses of {LONG_MS:g} ms or more, "
        "objects frozen"
    )
    for o in timed:
        for name, found in o.collections.items():
            parts = ", ".join(
                f"gen-{g} {p.count} in {p.total_ms:,.0f} ({p.cpu_ms:,.0f}), longest "
                f"{p.longest_ms:,.1f} ({p.longest_cpu_ms:,.1f})"
                for g, p in found.by_generation.items()
            )
            long = sum(p.long for p in found.by_generation.values())
            print(f"  {name}, {o.load} {o.label}: {parts}; {long} long; {found.frozen:,} frozen")


def _targets(outcomes: list[Outcome], relay: dict[str, Outcome]) -> None:
    print()
    for o in outcomes:
        if o.target != "arena":
            continue
        if o.load == "human":
            p99 = quantile(o.tally.opponent_ms, 0.99)
            met = o.games >= 500 and p99 < 50
            print(
                f"target 500 games at human pace, p99 under 50 ms: {'met' if met else 'not met'} "
                f"({o.games} games, {o.rate:,.0f} moves/s, p99 {p99:.1f} ms)"
            )
        elif o.load == "saturation" and o.load in relay:
            share = 100 * o.rate / relay[o.load].rate if relay[o.load].rate else float("nan")
            limited = o.tally.refused.get("rate_limited", 0)
            verdict = (
                f"not measured: {limited:,} moves were refused rate_limited, so the "
                f"connections' limit of {RATE:g} requests a second set the pace, not the server "
                "(run more --saturation-games)"
                if limited
                else "met"
                if share >= 30
                else "not met"
            )
            print(f"target at saturation, at least 30% of the relay: {verdict} ({share:.0f}%)")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="games at human pace")
    parser.add_argument(
        "--saturation-games",
        type=int,
        default=SATURATION_GAMES,
        help=f"games at saturation (default {SATURATION_GAMES})",
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window per run")
    parser.add_argument("--think", type=float, default=1.0, help="human pace: mean s per move")
    parser.add_argument("--setup", choices=("6x6", "8x8", "10x10"), default="10x10")
    parser.add_argument("--servers", type=int, default=1, help="arena serve processes, and relays")
    parser.add_argument("--client-procs", type=int, default=2, help="load generator processes")
    parser.add_argument("--loads", nargs="+", choices=LOADS, default=list(LOADS))
    parser.add_argument(
        "--stores",
        nargs="+",
        choices=STORES,
        default=["embedded"],
        help="the Redis the servers share, each load run on each in turn: the embedded one, "
        "redis-server alone over TCP, or a local cluster of 3 masters and 3 replicas "
        "(redis-server 7 must be installed for the last two)",
    )
    parser.add_argument(
        "--relay-loads",
        nargs="*",
        choices=LOADS,
        default=list(LOADS),
        help="loads also run against the bare relay (default: both; none: no relay)",
    )
    parser.add_argument("--relay-echo", action="store_true", help="relay also echoes to mover")
    parser.add_argument("--no-compression", action="store_true", help="clients offer no deflate")
    parser.add_argument("--scripts", type=int, default=32, help="random games to replay")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--work-dir", type=Path, help="keep server logs and Redis data here (short path)"
    )
    args = parser.parse_args(argv)
    if min(args.games, args.saturation_games, args.servers, args.client_procs) < 1 or (
        args.seconds <= 0
    ):
        parser.error(
            "--games, --saturation-games, --servers, --client-procs and --seconds must be positive"
        )
    if args.think < 0:
        parser.error(f"--think must be 0 or more seconds, not {args.think:g}")

    # EmbeddedRedis logs through structlog, whose default prints to stdout: keep it for figures.
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))
    # Every connection is an open file in a server (or relay) process and in a client
    # process; they all inherit the limit from here.
    connections = 3 * max(args.games, args.saturation_games)
    most = -(-connections // min(args.servers, args.client_procs))
    limit = raise_fd_limit(most + SPARE_FILES)
    if limit < most + SPARE_FILES:
        sys.exit(
            f"server_load: up to {most:,} connections a process need {most + SPARE_FILES:,} "
            f"open files, over this machine's limit of {limit:,} (ulimit -Hn): spread them "
            "over more --servers and --client-procs"
        )
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at start, open-file limit {limit}"
    )
    print(
        f"setup {args.setup}, {args.servers} arena serve process(es) on one Redis "
        f"({', then '.join(args.stores)}; and as many relays), "
        f"{args.client_procs} client process(es), {args.seconds:g} s windows, "
        f"deflate {'off' if args.no_compression else 'on'}, human pace {args.think:g} s a move "
        f"(uniform x0.5..x1.5)"
    )
    _progress(f"computing {args.scripts} random {args.setup} games")
    scripts = random_games(args.setup, args.scripts, args.seed)
    print(
        f"{len(scripts)} scripted games, {statistics.mean(map(len, scripts)):.1f} moves each "
        "on average"
    )
    context = multiprocessing.get_context("spawn")
    outcomes = []
    with contextlib.ExitStack() as cleanup:
        if args.work_dir is None:
            temp = cleanup.enter_context(tempfile.TemporaryDirectory(prefix="arena-load-"))
        else:
            temp = str(args.work_dir)
            print(f"server logs and Redis data kept in {temp}")
        for load in args.loads:
            games = args.games if load == "human" else args.saturation_games
            for store in args.stores:
                folder = Path(temp) / load / store
                with arena_stack(args.servers, folder, store) as stack:
                    outcome = run_load(context, stack, load, "arena", games, args, scripts)
                outcome.store = store if len(args.stores) > 1 else ""
                outcome.problems, outcome.samples = log_problems(stack.logs)
                outcome.collections = {
                    f"server{k}" if len(stack.pauses) > 1 else "server": pauses_in(
                        path, outcome.began, outcome.began + outcome.seconds
                    )
                    for k, path in enumerate(stack.pauses)
                    if path.exists()
                }
                outcomes.append(outcome)
            if load in args.relay_loads:
                with relay_stack(context, args.relay_echo, args.servers) as stack:
                    outcomes.append(run_load(context, stack, load, "relay", games, args, scripts))
    report(outcomes, args)
    print(f"\nload average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
