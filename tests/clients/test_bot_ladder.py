"""`arena bot --ladder`: the bot joins its ladders after logging in and again after every
reconnect, saying what engine it plays with, and a ladder it may not join, or whose game or
setup it does not play, stops it with one clear line; `arena bot --games N` asks each ladder
for N games at once."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest
from redis.asyncio import Redis

from clients.bot import BotError, BotPlayer, run_bot
from clients.challenges import ChallengePolicy
from server.clock import now_ms
from server.db import Database
from server.identity import create_bot_token
from server.ladder.store import LadderStore
from tests.server.endpoint import arena_serving

TIMEOUT = 60  # seconds any one test may take before it is failed rather than left hanging


@pytest.mark.asyncio
async def test_the_bot_joins_its_ladders_again_after_a_dropped_connection(
    redis: Redis, redis_url: str, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    token = await create_bot_token(database, "Climber")
    player = BotPlayer("ws://127.0.0.1:1", token, "random", ladders=["fast", "MAIN"])
    async with arena_serving(redis_url) as (arena, url):
        player.url = url
        stop = asyncio.Event()
        bot = asyncio.create_task(player.run(stop))
        try:
            async with asyncio.timeout(TIMEOUT):

                async def on_both() -> bool:
                    now = now_ms()
                    found = [await store.members(ladder, now) for ladder in ("fast", "main")]
                    return found == [{"Climber": 1}] * 2

                while not await on_both():
                    await asyncio.sleep(0.05)
                for session in arena.sessions:
                    session.socket.transport.abort()  # a network failure
                while player.connections < 2 or not await on_both():
                    await asyncio.sleep(0.05)
            # It told the ladders its engine, which their standings show.
            for ladder in ("fast", "main"):
                table = await store.table(ladder, now_ms())
                assert table.engines["Climber"] == "random"
        finally:
            stop.set()
            await asyncio.wait_for(bot, TIMEOUT)


@pytest.mark.asyncio
async def test_a_ladder_the_bot_may_not_join_or_cannot_play_stops_it_with_one_line(
    redis: Redis, redis_url: str, database: Database
) -> None:
    await LadderStore(redis, database).ensure_defaults()
    token = await create_bot_token(database, "Lost")
    refusals = []
    async with arena_serving(redis_url) as (_, url), asyncio.timeout(TIMEOUT):
        # The server knows no `nowhere`; greedy plays Amazons only, and the last bot plays
        # only on 10x10 (`--setup 10x10`). Each joins `main` first, whose games suit it.
        for engine, ladder, policy in (
            ("random", "nowhere", None),
            ("greedy", "bao", None),
            ("greedy", "fast", ChallengePolicy(setups=frozenset({"10x10"}))),
        ):
            with pytest.raises(BotError) as refused:
                await run_bot(url, token, engine, ladders=["main", ladder], accept=policy)
            refusals.append(str(refused.value))
    assert refusals == [
        "cannot join ladder nowhere: no ladder nowhere; the ladders are bao, fast, main",
        "cannot join ladder bao: its games are bao zanzibar 10+0, and game bao is not played",
        "cannot join ladder fast: its games are amazons 6x6 10+0, and setup 6x6 is not played",
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize(("options", "limit"), [((), 1), (("--games", "3"), 3)])
async def test_arena_bot_games_n_is_its_game_limit_on_each_ladder(
    redis: Redis, redis_url: str, options: tuple[str, ...], limit: int, database: Database
) -> None:
    store = LadderStore(redis, database)
    await store.ensure_defaults()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_BOT_TOKEN"] = await create_bot_token(database, "Many")
    async with arena_serving(redis_url) as (_, url):
        bot = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "clients.bot_cli", "--server", url, "--engine", "random"),
            *("--ladder", "fast", "--ladder", "bao", *options),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            async with asyncio.timeout(TIMEOUT):
                while [await store.members(name, now_ms()) for name in ("fast", "bao")] != [
                    {"Many": limit}
                ] * 2:
                    await asyncio.sleep(0.1)
        finally:
            bot.terminate()
            await bot.wait()
