"""Every Lua script and every MULTI/EXEC the server sends touches one cluster slot, so it runs on
a Redis Cluster (which refuses a cross-slot one). The end-to-end paths run against a Redis that
MONITOR records; each connection's MULTI..EXEC is a group, and each script's keys are those it
declares together with those the commands it calls from Lua touch (MONITOR shows them as
`lua`). Redis itself says which arguments are keys (`COMMAND GETKEYS`), and redis-py's
`key_slot` which slot each hashes to. A command of several keys outside both (an MGET, a DEL)
must keep to one slot too, and a PUBLISH inside a transaction is refused by a cluster client.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import socket
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.crc import key_slot
from redis.exceptions import ResponseError

from clients import ArenaClient, ArenaError
from server.analysis_queue import _COUNT
from server.db import Database
from server.identity import _CREATE, create_account
from server.ladder.pairing import Pairing
from server.ladder.store import LadderStore
from server.lobby import TAKE, TAKE_PAIR
from server.outage import _BEAT
from server.protocol import (
    AcceptChallenge,
    AcceptSeek,
    Analysis,
    Analyze,
    AnalyzeGame,
    Challenge,
    ChallengeAdded,
    ColourPreference,
    ErrorCode,
    GameStarted,
    PlayMove,
    QuickPair,
    Resign,
    Seek,
    SeekAdded,
    SignUp,
    TimeControl,
)
from server.protocol.account import ChangePassword
from server.protocol.bots import CreateBot, CreateToken
from server.redis_embedded import redis_server_binary
from server.storage import COMMIT
from server.throttle import _FAIL, _TAKE
from server.worker import Worker
from tests.server.endpoint import guest, serving

# A line of MONITOR: `<time> [<db> <client>] "arg" "arg" ...`, each argument quoted as Redis
# quotes it (sdscatrepr).
_LINE = re.compile(rb"^[\d.]+ \[\d+ (?P<client>\S+)\] (?P<args>.*)$", re.S)
_ARG = re.compile(rb'"((?:[^"\\]|\\.)*)"', re.S)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"a": b"\a", b"b": b"\b"}
_SCRIPTS = (b"EVAL", b"EVALSHA", b"EVAL_RO", b"EVALSHA_RO", b"FCALL", b"FCALL_RO")
# A house-bot worker blocks on all its request streams at once on a single Redis only; on a
# cluster it reads them stream by stream (server/worker.py).
_SINGLE_REDIS_ONLY = (b"XREADGROUP", b"XREAD")


def _sha1(script: bytes) -> str:
    return hashlib.sha1(script).hexdigest()


def _unquote(text: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(text):
        char = text[i : i + 1]
        if char != b"\\":
            out += char
            i += 1
            continue
        escaped = text[i + 1 : i + 2]
        if escaped == b"x":
            out.append(int(text[i + 2 : i + 4], 16))
            i += 4
        else:
            out += _ESCAPES.get(escaped, escaped)
            i += 2
    return bytes(out)


@dataclass
class Sent:
    """A command as MONITOR saw it: the connection that sent it (`lua` for a script's)."""

    client: bytes
    args: list[bytes]

    @property
    def name(self) -> bytes:
        return self.args[0].upper()

    def __str__(self) -> str:
        shown = " ".join(arg.decode(errors="replace")[:60] for arg in self.args[:8])
        return shown + (" ..." if len(self.args) > 8 else "")


@dataclass
class Group:
    """What must touch one slot: a transaction, a script with the commands it called, or one
    command."""

    kind: str
    commands: list[Sent]
    declared: list[bytes] = field(default_factory=list)  # a script's KEYS
    touched: list[bytes] = field(default_factory=list)  # every key the group's commands name


def parse(line: bytes) -> Sent | None:
    found = _LINE.match(line)
    if found is None:
        return None
    args = [_unquote(arg) for arg in _ARG.findall(found["args"])]
    return Sent(found["client"], args) if args else None


def groups(commands: list[Sent]) -> Iterator[Group]:
    """The transactions, scripts and lone commands, in order. A script's own commands follow
    it at once (it runs alone), a transaction's are its connection's between MULTI and EXEC."""
    open_transactions: dict[bytes, Group] = {}
    script: Group | None = None
    for sent in commands:
        if sent.client == b"lua":
            assert script is not None, f"a command from Lua with no script before it: {sent}"
            script.commands.append(sent)
            continue
        if script is not None:
            yield script
            script = None
        transaction = open_transactions.get(sent.client)
        if sent.name == b"MULTI":
            open_transactions[sent.client] = Group("transaction", [])
        elif sent.name in (b"EXEC", b"DISCARD") and transaction is not None:
            del open_transactions[sent.client]
            if sent.name == b"EXEC":
                yield transaction
        elif transaction is not None:
            transaction.commands.append(sent)
        elif sent.name in _SCRIPTS:
            script = Group("script", [sent])
        else:
            yield Group("command", [sent])
    if script is not None:
        yield script


class Recording:
    """A Redis on a TCP port (MONITOR tells its connections apart by port, not on a unix
    socket) and every command it was sent while `recording`."""

    def __init__(self, folder: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [
                *(str(redis_server_binary()), "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", str(folder)),
            ],
            stdout=subprocess.DEVNULL,
        )
        self.url = f"redis://127.0.0.1:{self.port}"
        self.commands: list[Sent] = []

    async def ready(self) -> None:
        async with asyncio.timeout(10):
            while True:
                try:
                    async with Redis.from_url(self.url) as client:
                        await client.ping()
                        return
                except OSError:
                    await asyncio.sleep(0.05)
                except Exception as error:  # redis-py's ConnectionError while it starts
                    if "connect" not in str(error).lower():
                        raise
                    await asyncio.sleep(0.05)

    @contextlib.asynccontextmanager
    async def recording(self) -> AsyncIterator[None]:
        # A line holds a whole command: a game's document, a script's text.
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=2**24)
        writer.write(b"MONITOR\r\n")
        assert await reader.readline() == b"+OK\r\n"

        async def read() -> None:
            while line := await reader.readline():
                # A simple string: `+...\r\n`; its quoted arguments escape any \r\n of theirs.
                sent = parse(line[1:].rstrip(b"\r\n"))
                if sent is not None:
                    self.commands.append(sent)

        task = asyncio.create_task(read())
        try:
            yield
        finally:
            await asyncio.sleep(0.3)  # the last lines on their way
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            writer.close()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


async def keys_of(client: Redis, sent: Sent) -> list[bytes]:
    """The keys of a command, as Redis finds them."""
    if sent.name in (b"MULTI", b"EXEC", b"SCRIPT", b"PUBLISH", b"SUBSCRIBE", b"PING"):
        return []
    try:
        found = await client.execute_command(b"COMMAND", b"GETKEYS", *sent.args)
    except ResponseError:  # a command that takes no key
        return []
    return list(found)


async def cross_slot(client: Redis, commands: list[Sent]) -> list[str]:
    """What in `commands` a Redis Cluster refuses: each as a line that says why."""
    found = []
    for group in groups(commands):
        for sent in group.commands:
            group.touched += await keys_of(client, sent)
        if group.kind == "script":
            head = group.commands[0]
            group.declared = await keys_of(client, head)
        if group.kind == "command" and group.commands[0].name in _SINGLE_REDIS_ONLY:
            continue
        slots = {key_slot(key) for key in group.touched}
        shown = "; ".join(str(sent) for sent in group.commands)
        if len(slots) > 1:
            keys = ", ".join(sorted({key.decode(errors="replace") for key in group.touched}))
            found.append(f"{group.kind} over {len(slots)} slots ({keys}): {shown}")
        if group.kind == "script" and set(group.touched) - set(group.declared):
            undeclared = set(group.touched) - set(group.declared)
            if not group.declared or {key_slot(key) for key in undeclared} - {
                key_slot(key) for key in group.declared
            }:
                found.append(f"script touches keys it does not declare: {shown}")
        if group.kind == "transaction" and any(s.name == b"PUBLISH" for s in group.commands):
            found.append(f"PUBLISH inside a transaction: {shown}")
    return found


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[Recording]:
    redis = Recording(tmp_path)
    try:
        yield redis
    finally:
        redis.stop()


@pytest_asyncio.fixture
async def recorded_client(recorded: Recording) -> AsyncIterator[Redis]:
    await recorded.ready()
    client = Redis.from_url(recorded.url)
    # COMMAND's reply is parsed as COMMAND INFO's by default; GETKEYS's is a plain list.
    client.set_response_callback("COMMAND", lambda response, **options: response)
    try:
        yield client
    finally:
        await client.aclose()


def test_a_cross_slot_script_transaction_or_command_is_found() -> None:
    lines = [
        b'1.0 [0 127.0.0.1:5000] "EVALSHA" "abc" "2" "a" "b"',
        b'1.0 [0 lua] "INCR" "a"',
        b'1.0 [0 127.0.0.1:5001] "MULTI"',
        b'1.0 [0 127.0.0.1:5000] "GET" "x"',
        b'1.0 [0 127.0.0.1:5001] "SET" "{t}:1" "v\\"\\x00"',
        b'1.0 [0 127.0.0.1:5001] "EXEC"',
    ]
    commands = [sent for sent in map(parse, lines) if sent is not None]
    assert commands[4].args == [b"SET", b"{t}:1", b'v"\x00']
    kinds = [(group.kind, [str(sent) for sent in group.commands]) for group in groups(commands)]
    assert kinds == [
        ("script", ["EVALSHA abc 2 a b", "INCR a"]),
        ("command", ["GET x"]),
        ("transaction", ['SET {t}:1 v"\x00']),
    ]


async def _accounts(database: Database, *names: str) -> None:
    for name in names:
        await create_account(database, name, f"{name}-password")


async def _login(url: str, name: str) -> ArenaClient:
    client = await ArenaClient.connect(url)
    await client.login(name, f"{name}-password")
    return client


@contextlib.asynccontextmanager
async def _worker_with_random(redis: Redis) -> AsyncIterator[None]:
    """A house-bot worker, once it plays the random bot (the quickest to prepare)."""
    stop = asyncio.Event()
    house = Worker(redis, "slots-worker")
    running = asyncio.create_task(house.run(stop))
    async with asyncio.timeout(300):
        while "random" not in house.prepared:
            await asyncio.sleep(0.1)
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(running, 30)


async def _house_game(client: ArenaClient, bot: str) -> GameStarted:
    """A game against the house bot `bot`, asked for again while the server says it is still
    being prepared (the server hears of a worker's bots a moment after the worker has them)."""
    async with asyncio.timeout(120):
        while True:
            try:
                return await client.request(
                    Challenge(bot, TimeControl(60, 1), setup="6x6", colour=ColourPreference.WHITE),
                    GameStarted,
                )
            except ArenaError as refused:
                if refused.reply.code is not ErrorCode.UNAVAILABLE:
                    raise
                await asyncio.sleep(refused.reply.retry_after or 1)


async def _until_a_worker_judges(ask: Callable[[], Awaitable[object]]) -> None:
    """Ask, and again while the server says no worker is there yet."""
    async with asyncio.timeout(120):
        while True:
            try:
                await ask()
                return
            except ArenaError as refused:
                if refused.reply.code is not ErrorCode.UNAVAILABLE:
                    raise
                await asyncio.sleep(1)


@pytest.mark.asyncio
async def test_every_script_and_transaction_of_the_end_to_end_paths_keeps_to_one_slot(
    recorded: Recording, recorded_client: Redis, database: Database
) -> None:
    await _accounts(database, "ann", "bob")
    async with recorded.recording(), serving(recorded.url) as url:
        # Logins: a guest, a person, a wrong password; a sign-up.
        first, second = await guest(url), await guest(url)
        ann, bob = await _login(url, "ann"), await _login(url, "bob")
        wrong = await ArenaClient.connect(url)
        with pytest.raises(ArenaError):
            await wrong.login("ann", "not-the-password")
        await wrong.request(SignUp("carol", "a fine long passphrase"))
        # A seek accepted, a move, a resignation (the game's end handed over).
        added = await first.request(Seek(TimeControl(300, 0), setup="6x6"), SeekAdded)
        started = await second.request(AcceptSeek(added.seek.seek_id), GameStarted)
        await first.wait_for(lambda c: started.game_id in c.games)
        await first.request(Resign(started.game_id))
        # A challenge accepted, a rated game between people to its end.
        made = await ann.request(
            Challenge(
                "bob", TimeControl(60, 0), setup="6x6", rated=True, colour=ColourPreference.WHITE
            ),
            ChallengeAdded,
        )
        rated = await bob.request(AcceptChallenge(made.challenge.challenge_id), GameStarted)
        await ann.wait_for(lambda c: rated.game_id in c.games)
        await ann.request(PlayMove(rated.game_id, 0, "b1-b2/b3"))
        await bob.request(Resign(rated.game_id))
        # Quick pairing.
        await first.request(QuickPair(TimeControl(180, 2), setup="6x6"))
        await second.request(QuickPair(TimeControl(180, 2), setup="6x6"))
        await first.next_news(GameStarted, timeout=30)
        # A bot and its token; a password changed, which ends the other sessions.
        await ann.request(CreateBot("annbot"))
        await ann.request(CreateToken("annbot"))
        again = await _login(url, "ann")
        await ann.request(ChangePassword("ann-password", "another long passphrase"))
        # A game against a house bot, through a worker.
        async with _worker_with_random(recorded_client):
            house = await _house_game(bob, "random")
            await bob.request(PlayMove(house.game_id, 0, "b1-b2/b3"))
            await bob.wait_for(lambda c: c.games[house.game_id].ply >= 2, timeout=60)
            await bob.request(Resign(house.game_id))
            # Its analysis by the worker (a position, then the whole game), kept for everyone.
            await _until_a_worker_judges(
                lambda: bob.request(Analyze(game_id=house.game_id, ply=1), Analysis)
            )
            await _until_a_worker_judges(lambda: bob.request(AnalyzeGame(house.game_id)))
        # The ladder's own writes.
        ladders = LadderStore(recorded_client, database)
        await ladders.join("bots", "annbot", 2, 1000, "c1")
        await ladders.started("bots", Pairing("annbot", "other"), "g1")
        await ladders.handed_over("bots", "g1")
        await ladders.leave("bots", "annbot", "c1")
        for client in (first, second, ann, bob, wrong, again):
            await client.close()
    # The paths ran as meant: transactions, and the game's commit and each of the lobby's, the
    # throttles', the accounts' and the heartbeat's scripts, were recorded.
    assert b"MULTI" in {sent.name for sent in recorded.commands}
    ran = {
        sent.args[1].decode() if sent.name.startswith(b"EVALSHA") else _sha1(sent.args[1])
        for sent in recorded.commands
        if sent.name in _SCRIPTS
    }
    scripts = (COMMIT, TAKE, TAKE_PAIR, _FAIL, _TAKE, _CREATE, _BEAT, _COUNT)
    assert {_sha1(script.encode()) for script in scripts} <= ran
    problems = await cross_slot(recorded_client, recorded.commands)
    assert not problems, "\n".join(problems)
