"""The ladder scheduler: every round, for each ladder, rate the games that ended (Glicko-2,
`rate_ladder_game`), pair the members that are connected and have a free place (`pair_round`)
by those ratings, and start their games as any game starts. However many server
processes share the Redis, one schedules at a time: the one holding the lease, a key it renews
every round and gives up when it stops; when the holder dies the lease lapses and another
process takes it.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Protocol

import structlog

from server.clock import now_ms
from server.games import GameStore
from server.glicko import Rating
from server.ladder.pairing import Member, pair_round
from server.ladder.store import Ladder, LadderStore
from server.offers import Offered
from server.protocol import (
    Colour,
    ColourPreference,
    ErrorCode,
    GameStarted,
    GameStatus,
    Player,
    PlayerKind,
    ProtocolError,
    TimeControl,
)

__all__ = ["LEASE_MS", "ROUND_SECONDS", "GameStarter", "Scheduler"]

log = structlog.get_logger(__name__)

ROUND_SECONDS = 3.0  # between rounds: how long a bot that finished a game waits for the next
# How long the lease holds without renewal. The holder renews it every round and before each
# game it starts, so it lapses only when the holder stops or stalls for this long; another
# process then takes over within a round of that.
LEASE_MS = 10_000


class GameStarter(Protocol):
    """What starts a game between two players (the server process: server.app's Arena)."""

    async def start_game(
        self,
        first: Player,
        second: Player,
        colour: ColourPreference,
        *,
        game: str,
        setup: str,
        time: TimeControl,
        rated: bool,
        house_spec: str | None = None,
    ) -> GameStarted: ...


class Scheduler:
    """One process's scheduler: it plays rounds while it holds the lease."""

    def __init__(
        self,
        store: LadderStore,
        starter: GameStarter,
        games: GameStore,
        offered: Offered,
        *,
        round_seconds: float = ROUND_SECONDS,
        lease_ms: int = LEASE_MS,
        rng: random.Random | None = None,
    ) -> None:
        """`games` is the store of live games (a bot's every live game takes a place);
        `offered` is what this server offers, and a ladder it does not offer is skipped."""
        if lease_ms < 3 * round_seconds * 1000:
            raise ValueError(
                f"a lease of {lease_ms} ms must outlast three rounds of {round_seconds:g} s"
            )
        self.store = store
        self.starter = starter
        self.games = games
        self.offered = offered
        self.round_seconds = round_seconds
        self.lease_ms = lease_ms
        self.rng = rng or random.Random()
        self.token = secrets.token_hex(8)
        self.holding = False
        self._refused: set[str] = set()  # ladders already logged as not offered here

    async def run(self) -> None:
        """Play rounds while holding the lease, and try for it while not, until cancelled."""
        while True:
            try:
                await self.step()
            except Exception:
                log.exception("ladder_round_failed")
            await asyncio.sleep(self.round_seconds)

    async def step(self) -> list[GameStarted]:
        """Take or renew the lease and, holding it, play a round of every ladder: the games
        started."""
        held = self.holding
        self.holding = await self.store.take_lease(self.token, self.lease_ms)
        if self.holding != held:
            log.info("ladder_lease_taken" if self.holding else "ladder_lease_lost")
        if not self.holding:
            return []
        started: list[GameStarted] = []
        for ladder in await self.store.ladders():
            started += await self.play_round(ladder)
        return started

    async def play_round(self, ladder: Ladder) -> list[GameStarted]:
        """Rate the ladder's games that ended, pair its free members and start their games."""
        ratings = await self.rate_ended(ladder)
        refusal = ladder.refusal(self.offered)
        if refusal is not None:
            if ladder.name not in self._refused:
                self._refused.add(ladder.name)
                log.warning("ladder_not_offered", ladder=ladder.name, reason=refusal)
            return []
        members = []
        for bot, limit in (await self.store.members(ladder.name, now_ms())).items():
            playing = len(await self.games.games_of(bot))
            rating = ratings.get(bot, Rating()).rating
            members.append(Member(bot, bot, rating, playing=playing, limit=limit))
        history = await self.store.history(ladder.name)
        started: list[GameStarted] = []
        for pairing in pair_round(members, history, self.rng):
            # Renewed before each game: a process that lost the lease while pairing (stalled
            # past it) starts nothing the new holder may also start.
            if not await self.store.take_lease(self.token, self.lease_ms):
                self.holding = False
                log.info("ladder_lease_lost")
                break
            game = await self.starter.start_game(
                Player(pairing.white, PlayerKind.BOT),
                Player(pairing.black, PlayerKind.BOT),
                ColourPreference.WHITE,
                game=ladder.game,
                setup=ladder.setup,
                time=ladder.time,
                rated=False,
            )
            await self.store.started(ladder.name, pairing, game.game_id)
            log.info(
                "ladder_game_started",
                ladder=ladder.name,
                game_id=game.game_id,
                white=pairing.white,
                black=pairing.black,
            )
            started.append(game)
        return started

    async def rate_ended(self, ladder: Ladder) -> dict[str, Rating]:
        """Settle the ladder's games that have ended since the last round; its ratings after."""
        for game_id in await self.store.unrated(ladder.name):
            try:
                game = await self.games.load(game_id)
            except ProtocolError as error:
                if error.code is not ErrorCode.NOT_FOUND:
                    raise
                # Gone from the store: nothing to rate it by.
                await self.store.rate(ladder.name, game_id, "", "", None)
                continue
            if game.status is not GameStatus.ENDED:
                continue
            white_won = None if game.winner is None else game.winner is Colour.WHITE
            if await self.store.rate(
                ladder.name, game_id, game.white.name, game.black.name, white_won
            ):
                log.info(
                    "ladder_game_rated",
                    ladder=ladder.name,
                    game_id=game_id,
                    winner=None if game.winner is None else str(game.winner),
                )
        return await self.store.ratings(ladder.name)

    async def stop(self) -> None:
        """Give up the lease, so another process takes over at once."""
        if self.holding:
            self.holding = False
            await self.store.release_lease(self.token)
