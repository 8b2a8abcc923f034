"""The server's end-to-end paths on a Redis Cluster of 3 masters and 3 replicas (started for each
test, tests/redis_cluster.py), over real websockets: guests and people log in (and a wrong
password is refused), a seek, a challenge and a quick pairing start games, a rated game between
people ends and rates both, a spectator watches, a house bot answers through a worker; three
server processes, a player on each of two and the spectator on the third, share a game whose
slot lies on any master, each version reaching each connection once; a game's master killed in the
middle of it, the game goes on once the replica takes over; a move a failover lost taken back on
every connection; and a ladder's rounds played, rated and counted."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from functools import partial

import msgpack
import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.crc import key_slot

from clients.core import ClientCore
from clients.view import GameView
from engine.amazons import Position
from server.clock import now_ms
from server.db import Database
from server.games import open_redis
from server.identity import create_account
from server.ladder.store import Ladder, LadderStore, parse_time
from server.lane import LaneCluster
from server.offers import TimeControls
from server.outage import Heartbeat, Outage
from server.protocol import GameStatus
from server.storage import game_key
from tests.redis_cluster import LocalCluster
from tests.server.endpoint import arena_serving, house_worker, serving, until
from tests.server.test_ladder_end_to_end import (
    ANCHOR_NAMES,
    LADDER,
    _all_rated,
    _counted,
    _games,
    _in_process,
    _past_first_moves,
    _rounds_played,
)
from tests.server.test_wire import SIX, _event_versions, _moves
from tests.server.wire import Frame, Wire

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def cluster_client(redis_cluster: LocalCluster) -> AsyncIterator[Redis]:
    client = open_redis(redis_cluster.url)
    assert isinstance(client, LaneCluster)
    yield client
    await client.aclose()


async def _person(url: str, name: str, password: str) -> Wire:
    wire = await Wire.connect(url)
    await wire.call("hello", version=1)
    welcome = await wire.call("login", user=name, password=password)
    assert welcome["t"] == "welcome", welcome
    return wire


async def _play(white: Wire, black: Wire, game_id: str, moves: list[str]) -> None:
    for ply, move in enumerate(moves):
        mover = white if ply % 2 == 0 else black
        reply = await mover.call("move", game_id=game_id, ply=ply, move=move)
        assert reply["t"] == "move_played", reply


def _sides(a: Wire, b: Wire, started: Frame) -> tuple[Wire, Wire]:
    white = a if started["white"]["name"] == a.user else b
    return white, (b if white is a else a)


async def test_logins_seeks_challenges_pairing_and_a_rated_game_on_a_cluster(
    redis_cluster: LocalCluster, database: Database
) -> None:
    await create_account(database, "ann", "ann-first-password")
    await create_account(database, "bob", "bob-first-password")
    async with serving(redis_cluster.url) as url:
        refused = await Wire.connect(url)
        await refused.call("hello", version=1)
        wrong = await refused.call("login", user="ann", password="not-her-password")
        assert wrong["code"] == "bad_credentials"

        # A seek taken, watched to its end.
        a, b = await Wire.guest(url), await Wire.guest(url)
        added = await a.call("seek", time=SIX, setup="6x6")
        started = await b.call("accept_seek", seek_id=added["seek"]["seek_id"])
        assert started["t"] == "game_started", started
        game_id = started["game_id"]
        spectator = await Wire.guest(url)
        assert (await spectator.call("watch", game_id=game_id))["t"] == "game_state"
        white, black = _sides(a, b, started)
        moves = _moves("6x6", 10)
        await _play(white, black, game_id, moves)
        ended = await white.call("resign", game_id=game_id)
        assert ended["t"] == "game_ended"
        last = len(moves) + 2
        for wire in (white, black, spectator):
            await wire.wait_for(lambda f: f.get("version") == last and f["t"] == "game_ended")
        await asyncio.sleep(0.2)  # time for a late duplicate to arrive
        for wire in (white, black):
            assert _event_versions(wire, game_id) == list(range(1, last + 1))
        assert _event_versions(spectator, game_id) == list(range(2, last + 1))

        # A rated challenge between two people, played to a resignation: both rated.
        ann = await _person(url, "ann", "ann-first-password")
        bob = await _person(url, "bob", "bob-first-password")
        challenge = await ann.call("challenge", opponent="bob", time=SIX, setup="6x6", rated=True)
        assert challenge["t"] == "challenge_added", challenge
        news = await bob.wait_for(lambda f: f.get("t") == "challenge_added")
        started = await bob.call("accept_challenge", challenge_id=news["challenge"]["challenge_id"])
        assert started["t"] == "game_started", started
        assert started["rated"]
        white, black = _sides(ann, bob, started)
        await _play(white, black, started["game_id"], _moves("6x6", 4))
        await black.call("resign", game_id=started["game_id"])
        for name in ("ann", "bob"):
            profile = await ann.call("player_info", name=name)
            assert [pool["game"] for pool in profile["ratings"]] == ["amazons"], profile

        # Two guests paired quickly.
        c, d = await Wire.guest(url), await Wire.guest(url)
        assert (await c.call("quick_pair", time=SIX, setup="6x6"))["t"] == "ok"
        assert (await d.call("quick_pair", time=SIX, setup="6x6"))["t"] == "ok"
        paired = await c.wait_for(lambda f: f.get("t") == "game_started")
        assert (await d.wait_for(lambda f: f.get("t") == "game_started"))["game_id"] == (
            paired["game_id"]
        )
        for wire in (refused, a, b, spectator, ann, bob, c, d):
            await wire.close()


async def test_a_house_bot_answers_through_a_worker_on_a_cluster(
    redis_cluster: LocalCluster, cluster_client: Redis, database: Database
) -> None:
    async with serving(redis_cluster.url) as url, house_worker(cluster_client, "cluster-worker"):
        player = await Wire.guest(url)
        started = await player.call(
            "challenge", opponent="random", time=SIX, setup="6x6", colour="white"
        )
        assert started["t"] == "game_started", started
        game_id = started["game_id"]
        for ply in (0, 2, 4):
            move = await _next_move(player, game_id, ply)
            reply = await player.call("move", game_id=game_id, ply=ply, move=move)
            assert reply["t"] == "move_played", reply
            await player.wait_for(_played_at(ply + 1))
        await player.close()


def _calls(cluster: LocalCluster, command: str) -> int:
    """How many times the masters have run `command`."""
    total = 0
    for port in cluster.masters():
        with cluster.node(port) as node:
            total += node.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0)
    return total


async def test_an_idle_worker_on_a_cluster_waits_rather_than_read_its_streams_again(
    redis_cluster: LocalCluster, cluster_client: Redis
) -> None:
    async with house_worker(cluster_client, "idle-worker"):
        before = _calls(redis_cluster, "xreadgroup")
        await asyncio.sleep(3)
        read = _calls(redis_cluster, "xreadgroup") - before
    # A round of the 16 streams each second it waits (READ_BLOCK_MS), not twenty.
    assert read <= 16 * 5


def _played_at(ply: int) -> Callable[[Frame], bool]:
    return lambda frame: frame.get("t") == "move_played" and frame["ply"] == ply


async def _next_move(wire: Wire, game_id: str, ply: int) -> str:
    """A legal move at `ply` of the game as `wire` has seen it."""
    frames = wire.game_frames(game_id)
    start = next(f["start"] for f in frames if "start" in f)
    position = Position.parse(start)
    for frame in sorted((f for f in frames if f["t"] == "move_played"), key=lambda f: f["ply"]):
        position.apply(position.parse_move(frame["move"]))
    move = position.random_move(ply)
    assert move is not None
    return str(move)


def _slot_master(cluster: LocalCluster, game_id: str) -> int:
    return cluster.master_of(key_slot(game_key(game_id).encode()))


async def test_three_server_processes_share_a_game_and_a_spectator_on_a_cluster(
    redis_cluster: LocalCluster, database: Database
) -> None:
    async with (
        serving(redis_cluster.url) as first,
        serving(redis_cluster.url) as second,
        serving(redis_cluster.url) as third,
    ):
        a, b = await Wire.guest(first), await Wire.guest(second)
        added = await a.call("seek", time=SIX, setup="6x6")
        started = await b.call("accept_seek", seek_id=added["seek"]["seek_id"])
        assert started["t"] == "game_started", started
        game_id = started["game_id"]
        # The game lives on one master of three, whichever its id hashes to.
        assert _slot_master(redis_cluster, game_id) in redis_cluster.masters()
        spectator = await Wire.guest(third)
        assert (await spectator.call("watch", game_id=game_id))["t"] == "game_state"
        white, black = _sides(a, b, started)
        moves = _moves("6x6", 12)
        await _play(white, black, game_id, moves)
        last = 1 + len(moves)
        for wire in (white, black, spectator):
            await wire.wait_for(lambda f: f.get("version") == last and f["t"] == "move_played")
        await asyncio.sleep(0.2)
        for wire in (white, black):
            versions = _event_versions(wire, game_id)
            assert [v for v, n in Counter(versions).items() if n > 1] == []
            assert versions == list(range(1, last + 1))
        assert _event_versions(spectator, game_id) == list(range(2, last + 1))
        for wire in (a, b, spectator):
            await wire.close()


async def test_a_game_goes_on_after_its_master_is_killed(
    redis_cluster: LocalCluster, database: Database
) -> None:
    async with serving(redis_cluster.url) as url:
        white, black, spectator, game_id = await _watched_game(url)
        moves = _moves("6x6", 10)
        await _play(white, black, game_id, moves[:4])

        master = _slot_master(redis_cluster, game_id)
        redis_cluster.kill(master)
        # The next move waits for the replica's promotion (about two seconds at a node timeout
        # of one) rather than fail, and the game goes on there.
        for ply in range(4, len(moves)):
            mover = white if ply % 2 == 0 else black
            reply = await mover.call("move", game_id=game_id, ply=ply, move=moves[ply])
            assert reply["t"] == "move_played", reply
        assert _slot_master(redis_cluster, game_id) != master
        last = 1 + len(moves)
        for wire in (white, black, spectator):
            await wire.wait_for(lambda f: f.get("version") == last and f["t"] == "move_played")
        # Every version reached every connection once and in order, the one its mover's reply
        # passed by too. The game may have logged more meanwhile (a player's attendance lapsed
        # while the slot had no master, its presence event).
        for wire, first in ((white, 1), (black, 1), (spectator, 2)):
            versions = _event_versions(wire, game_id)
            assert versions == list(range(first, max(versions) + 1)), (wire.user, versions)
        for wire in (white, black, spectator):
            await wire.close()


async def _watched_game(url: str) -> tuple[Wire, Wire, Wire, str]:
    """White, Black and a spectator of a 6x6 game between guests, and the game's id."""
    a, b = await Wire.guest(url), await Wire.guest(url)
    added = await a.call("seek", time=SIX, setup="6x6")
    started = await b.call("accept_seek", seek_id=added["seek"]["seek_id"])
    game_id = started["game_id"]
    spectator = await Wire.guest(url)
    assert (await spectator.call("watch", game_id=game_id))["t"] == "game_state"
    white, black = _sides(a, b, started)
    return white, black, spectator, game_id


def _view_of(wire: Wire, game_id: str) -> GameView:
    """The game as a client core fed every frame `wire` read would show it."""
    core = ClientCore()
    for frame in wire.frames:
        core.receive(msgpack.packb(frame))
    return core.games[game_id]


async def test_a_move_a_failover_lost_is_taken_back_on_every_connection(
    redis_cluster: LocalCluster, database: Database
) -> None:
    async with serving(redis_cluster.url) as url:
        white, black, spectator, game_id = await _watched_game(url)
        moves = _moves("6x6", 10)
        await _play(white, black, game_id, moves[:4])

        # The master's replica falls behind (cut off, and kept from coming back), the next
        # move is acknowledged by the master alone, and the master dies: the replica promoted
        # in its place never had that move. Redis replicates asynchronously; this is the loss
        # docs/server.md describes.
        master = _slot_master(redis_cluster, game_id)
        with redis_cluster.node(master) as node:
            node.config_set("requirepass", "kept-out")
            node.client_kill_filter(_type="replica")
        lost = await white.call("move", game_id=game_id, ply=4, move=moves[4])
        assert (lost["t"], lost["version"]) == ("move_played", 6)
        redis_cluster.kill(master)
        redis_cluster.wait_served(key_slot(game_key(game_id).encode()))

        # Every connection is told: the game's state as the store has it, under a new epoch.
        for wire in (white, black, spectator):
            state = await wire.wait_for(
                lambda f: f["t"] == "game_state" and f.get("epoch", 0) >= 1, timeout=30
            )
            assert state["moves"] == moves[:4], wire.user
        # The game goes on from there, the move played again, to its end.
        for ply in range(4, len(moves)):
            mover = white if ply % 2 == 0 else black
            reply = await mover.call("move", game_id=game_id, ply=ply, move=moves[ply])
            assert reply["t"] == "move_played", reply
        ended = await black.call("resign", game_id=game_id)
        assert ended["t"] == "game_ended", ended
        for wire in (white, black, spectator):
            await wire.wait_for(lambda f: f["t"] == "game_ended")
            await asyncio.sleep(0.1)
            view = _view_of(wire, game_id)
            assert (view.epoch, view.moves, view.status) == (
                1,
                tuple(moves),
                GameStatus.ENDED,
            ), wire.user
        for wire in (white, black, spectator):
            await wire.close()


async def test_a_ladder_plays_its_rounds_on_a_cluster(
    redis_cluster: LocalCluster, cluster_client: Redis, database: Database
) -> None:
    # Two bots and the anchors through a worker, paired, played, rated and counted as on one
    # Redis (tests/server/test_ladder_end_to_end.py), the ladder's keys on their masters.
    store = LadderStore(cluster_client, database)
    await store.create(Ladder(LADDER, "6x6", parse_time("2+0")))
    bots = {"Ada", "Bea"}
    async with (
        house_worker(cluster_client, "anchors"),
        arena_serving(
            redis_cluster.url,
            time_controls=TimeControls.parse("1-600+10"),
            ladder_round_seconds=0.2,
            ladder_lease_ms=10_000,
        ) as (_, url),
    ):
        async with (
            _in_process(database, url, "Ada", "random"),
            _in_process(database, url, "Bea", "greedy"),
        ):
            await _rounds_played(store, bots, ANCHOR_NAMES, rounds=2)
            for bot in bots:
                await store.leave(LADDER, bot)
            await until(partial(_past_first_moves, store), "every ladder game past its first moves")
        await _all_rated(store)
    games = await _games(store)
    played, won = _counted(games)
    assert set(played) - ANCHOR_NAMES == bots
    table = await store.table(LADDER, now_ms())
    assert {row.name: (row.score.games, row.score.wins) for row in table.rows} == {
        name: (played[name], won[name]) for name in played
    }
    ratings = await store.ratings(LADDER)
    assert all(ratings[bot.lower()].deviation < 350 for bot in bots)


async def test_a_failover_s_pause_is_an_outage_for_the_clocks(
    redis_cluster: LocalCluster, database: Database
) -> None:
    async with arena_serving(redis_cluster.url) as (arena, _):
        assert isinstance(arena.redis, LaneCluster)
        assert arena.store.heartbeat is not None
        stalls = arena.redis.lane.stalls
        assert stalls is not None
        now = now_ms()
        stalls(now - 8000, now)  # a command that waited 8 s for a replica's promotion
        await until(
            lambda: _recorded(arena.store.heartbeat, Outage(now - 8000, now)), "the outage kept"
        )


async def _recorded(heartbeat: Heartbeat | None, outage: Outage) -> bool:
    return heartbeat is not None and outage in heartbeat.outages
