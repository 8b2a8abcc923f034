"""An older data folder's keys, written under the names of servers before hash tags, are read
after the move at start: the lobby's seeks, challenges and pools, a guest and its session, a
client's sign-up count."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import msgpack
import pytest
from redis.asyncio import Redis

from server import identity
from server.lobby import Lobby, Pairing
from server.moved_keys import KEY_NAMES, MovedKeys, move_keys
from server.protocol import Player, PlayerKind, TimeControl
from server.throttle import SignupLimits, SignupThrottle

NOW = 1_800_000_000_000
ANN = Player("ann", PlayerKind.HUMAN, 1712)
BOB = Player("bob", PlayerKind.HUMAN, None)
SEEK = {
    "seek_id": "s7",
    "player": {"name": "ann", "kind": "human", "rating": 1712},
    "setup": "10x10",
    "time": {"base": 180, "increment": 2},
    "rated": True,
    "colour": "white",
}
CHALLENGE = {
    "challenge_id": "c3",
    "challenger": {"name": "ann", "kind": "human", "rating": None},
    "opponent": {"name": "bob", "kind": "human", "rating": None},
    "setup": "10x10",
    "time": {"base": 180, "increment": 2},
    "rated": False,
    "colour": "random",
}


async def _older_folder(redis: Redis) -> str:
    """The keys an older server left: a session token of the guest it kept."""
    await redis.hset("lobby:seeks", "s7", msgpack.packb(SEEK))
    await redis.zadd("lobby:seek-expiry", {"s7": NOW + 30_000})
    await redis.hset("lobby:challenges", "c3", msgpack.packb(CHALLENGE))
    await redis.set("lobby:seek-taken:s1", "bob", px=60_000)
    pool = "lobby:pool:amazons:6x6:180+2:casual"
    await redis.zadd(pool, {"ann": 1712, "bob": 1500})
    await redis.hset(pool + ":since", mapping={"ann": NOW, "bob": NOW})
    await redis.hset(
        pool + ":who",
        mapping={
            "ann": msgpack.packb({"name": "ann", "kind": "human", "rating": 1712}),
            "bob": msgpack.packb({"name": "bob", "kind": "human", "rating": None}),
        },
    )
    await redis.sadd("lobby:pools", pool)
    await redis.hset("user:guest-7", mapping={"name": "guest-7", "kind": "guest", "id": "77"})
    token = "an-older-session-token"
    digest = identity.session_digest(token)
    await redis.set(f"session:{digest}", "guest-7 77", px=60_000)
    await redis.hset("sessions:guest-7 77", mapping={digest: str(NOW), "since": str(NOW - 1)})
    await redis.set("signup:hour:10.0.0.9", 5, px=3_600_000)
    return token


@pytest.mark.asyncio
async def test_an_older_folders_keys_are_read_after_the_move(redis: Redis) -> None:
    token = await _older_folder(redis)
    moved = await move_keys(redis)
    assert moved == MovedKeys(lobby=8, accounts=2, signups=1)
    assert await redis.keys("lobby:[^p]*") == []
    assert await redis.keys("lobby:pool:[^{]*") == []
    assert not await redis.exists("user:guest-7", "sessions:guest-7 77", "signup:hour:10.0.0.9")

    lobby = Lobby(redis)
    (seek,) = await lobby.seeks(NOW)
    assert (seek.seek_id, seek.player.name) == ("s7", "ann")
    assert [c.challenge_id for c in await lobby.challenges_for("bob")] == ["c3"]
    assert await lobby.taker("s1") == "bob"
    (pairing,) = await lobby.pair(NOW + 5_000)
    assert pairing == Pairing(BOB, ANN, "amazons", "6x6", TimeControl(180, 2), False)

    account = await identity.resume_session(redis, None, token, ttl=timedelta(minutes=1))
    assert account is not None
    assert account.name == "guest-7"
    # Its session is listed under the account's tag: ended with the rest on a password change.
    assert await redis.hget(identity.sessions_key("guest-7 77"), "since") == str(NOW - 1).encode()

    throttle = SignupThrottle(redis, SignupLimits(hour=5))
    assert await throttle.take("10.0.0.9") > 0  # the hour's five are counted still

    # Once: a second start moves nothing, and a key an older server writes after is left.
    assert int(await redis.get(KEY_NAMES)) == 1
    await redis.hset("lobby:challenges", "c4", msgpack.packb(CHALLENGE))
    assert await move_keys(redis) is None
    assert await redis.exists("lobby:challenges")


@pytest.mark.asyncio
async def test_an_old_key_is_merged_into_a_new_one_a_server_already_wrote(redis: Redis) -> None:
    await redis.hset("lobby:challenges", "c3", msgpack.packb(CHALLENGE))
    await redis.hset("{lobby}:challenges", "c9", msgpack.packb({**CHALLENGE, "challenge_id": "c9"}))
    assert await move_keys(redis) == MovedKeys(lobby=1, accounts=0, signups=0)
    found = await Lobby(redis).challenges_for("bob")
    assert sorted(c.challenge_id for c in found) == ["c3", "c9"]


@pytest.mark.asyncio
async def test_a_new_folder_is_marked_and_has_nothing_to_move(redis: Redis) -> None:
    assert await move_keys(redis) == MovedKeys(0, 0, 0)
    assert await move_keys(redis) is None


@pytest.mark.asyncio
async def test_two_processes_starting_at_once_move_each_key_once(redis: Redis) -> None:
    token = await _older_folder(redis)
    first, second = await asyncio.gather(move_keys(redis), move_keys(redis))
    assert first is not None
    assert second is not None
    assert sum(first) + sum(second) == sum(MovedKeys(lobby=8, accounts=2, signups=1))
    assert len(await Lobby(redis).seeks(NOW)) == 1
    assert await identity.resume_session(redis, None, token) is not None
