"""House bots' time on a busy default server: an `arena serve` with its defaults (its private
Redis in a temporary folder, one house-bot worker), bots on all three default ladders and
people playing house bots at once, for a bounded time. Prints the games that ended, those with
a house player, and the house bots' losses on time (the figure wanted: none), with each ladder's
anchor games; docs/ladder.md ("Workers") says how the worker is shared.

The bots are `arena bot` processes: `b-random` (random, on main, fast and bao, three games at
once), `b-greedy` (greedy, on main and fast, two at once) and `b-mcts` (mcts, on bao). The
people are guests in this process who challenge a house bot again as soon as a game ends
(`--people N`, Amazons 6x6 at 60 s and 10x10 at 180 s in turn, random house bots of
random strengths), each taking 0.5 to 3 s a move and 10 to 60 s between games.

Run from the repository root: python -m bench.ladder_house_time [--minutes M] [--people N]
[--seed S]. It stops by itself after M minutes (30 by default) and at most a minute more to
finish the people's games, then counts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from bench.serving import arena_serve
from clients import ArenaClient
from server.db import Database
from server.db.finished_games import every_game
from server.games import open_redis
from server.ladder.store import LadderStore
from server.protocol import (
    Challenge,
    GameStarted,
    GameStatus,
    PlayerKind,
    PlayMove,
    TimeControl,
)
from server.redis_embedded import SOCKET_NAME

# Each bot account: its engine, its ladders and the games it plays at once.
BOTS = (
    ("b-random", "random", ("main", "fast", "bao"), 3),
    ("b-greedy", "greedy", ("main", "fast"), 2),
    ("b-mcts", "mcts", ("bao",), 1),
)
ACCOUNTS = {name for name, *_ in BOTS}
# What people challenge the house bots to, in turn: setup and time control.
PEOPLE_GAMES = (("6x6", TimeControl(60, 0)), ("10x10", TimeControl(180, 0)))
HOUSE_BOTS = ("random", "greedy", "alphabeta", "invader", "mcts")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--people", type=int, default=2, help="people playing house bots")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _stopped)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="house-time-") as folder:
        data = Path(folder)
        with arena_serve(data, 1, data / "serve.log") as url, _bots(data, url):
            print(f"server {url}, {args.minutes:g} min, {args.people} people", file=sys.stderr)
            asyncio.run(_people(url, args.people, args.minutes * 60, args.seed))
            asyncio.run(_report(data, (time.monotonic() - started) / 60))


async def _people(url: str, people: int, seconds: float, seed: int) -> None:
    """`people` guests playing house bots until `seconds` have passed."""
    deadline = time.monotonic() + seconds
    await asyncio.gather(
        *(_person(url, deadline, random.Random(seed + index)) for index in range(people))
    )


async def _person(url: str, deadline: float, rng: random.Random) -> None:
    client = await ArenaClient.connect(url)
    try:
        await client.guest()
        games = 0
        while time.monotonic() < deadline:
            setup, control = PEOPLE_GAMES[games % len(PEOPLE_GAMES)]
            games += 1
            challenge = Challenge(
                rng.choice(HOUSE_BOTS), control, setup=setup, strength=rng.randint(1, 10)
            )
            try:
                started = await client.request(challenge, GameStarted)
            except Exception as error:  # no worker ready yet, or one busy: try again soon
                print(f"  challenge refused: {error}", file=sys.stderr)
                await asyncio.sleep(5)
                continue
            # A minute more to finish the game under way, and no longer whatever happens.
            await _play(client, started.game_id, rng, deadline + 60)
            await asyncio.sleep(rng.uniform(10, 60))  # before the next game
    finally:
        await client.close()


async def _play(client: ArenaClient, game_id: str, rng: random.Random, end: float) -> None:
    """Play random legal moves after a person's pause until the game ends, or until the
    monotonic time `end` (the game is left as it is)."""
    assert client.user is not None
    await client.wait_for(lambda c: game_id in c.games, timeout=30)
    colour = client.games[game_id].colour_of(client.user.name)
    while time.monotonic() < end:
        try:
            await client.wait_for(
                lambda c: (
                    c.games[game_id].status is GameStatus.ENDED
                    or c.games[game_id].to_move is colour
                ),
                timeout=max(0.1, end - time.monotonic()),
            )
        except TimeoutError:
            return
        view = client.games[game_id]
        if view.status is GameStatus.ENDED:
            return
        position = view.position()
        if position.is_terminal():  # over by the rules: its `game_ended` is on its way
            return
        await asyncio.sleep(rng.uniform(0.5, 3.0))
        move = rng.choice(list(position.legal_moves))
        with contextlib.suppress(Exception):  # a game that ended meanwhile
            await client.request(PlayMove(game_id, view.ply, position.format_move(move)))


async def _report(data: Path, minutes: float) -> None:
    redis = open_redis(f"unix://{data / SOCKET_NAME}")
    database = await Database.open(None, data)
    try:
        endings: Counter[str] = Counter()
        flagged = []
        house_games = 0
        async for game in every_game(database):
            house = [seat for seat in (game.white, game.black) if seat.kind is PlayerKind.HOUSE]
            if not house:
                continue
            house_games += 1
            record = game.record
            endings[record.termination] += 1
            loser = {"white": game.black, "black": game.white}.get(record.winner or "")
            if record.termination == "time forfeit" and loser in house:
                flagged.append(game.game_id)
        print(f"{minutes:.0f} min on one worker: {house_games} ended games with a house player")
        print(f"  endings: {dict(endings)}")
        store = LadderStore(redis, database)
        for ladder in ("main", "fast", "bao"):
            results = await store.results(ladder)
            anchored = sum(1 for r in results if not {r.white, r.black} <= ACCOUNTS)
            print(f"  ladder {ladder}: {len(results)} rated games, {anchored} against anchors")
        print(f"house-bot time forfeits: {len(flagged)} {' '.join(flagged)}")
    finally:
        await database.close()
        await redis.aclose()


def _stopped(signal_number: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signal_number}")


@contextlib.contextmanager
def _bots(data: Path, url: str) -> Iterator[None]:
    """The BOTS as `arena bot` processes, stopped on the way out."""
    processes = []
    try:
        for name, engine, ladders, games in BOTS:
            create = ["token", "create", name, "--bot", "--data-dir", str(data)]
            token = subprocess.run(
                [sys.executable, "-m", "server.cli", *create],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            token_file = data / f"{name}.token"
            token_file.write_text(token + "\n")
            command = [sys.executable, "-m", "server.cli", "bot", "--server", url]
            command += ["--token-file", str(token_file), "--engine", engine]
            command += ["--games", str(games)]
            for ladder in ladders:
                command += ["--ladder", ladder]
            log = (data / f"{name}.log").open("w")
            processes.append(subprocess.Popen(command, stderr=log))
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(30)


if __name__ == "__main__":
    main()
