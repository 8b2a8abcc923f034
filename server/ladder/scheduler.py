"""The ladder scheduler: every round, for each ladder, forget the games that ended and were
handed over to the database (which rated them: `server.db.ladders`), pair the members that are
connected and have a free place, and the ladder's anchors while a house-bot worker has a free
slot (`pair_round`), by their ratings, and start their games as any game starts. However many server
processes share the Redis, one schedules at a time: the one holding the lease, a key it renews
every round and gives up when it stops; when the holder dies the lease lapses and another
process takes it.

The workers are shared by every ladder and by people's games against house bots: each worker
advertises its slots (`server.slots`), every live game with a house player holds
one, and an anchor's game starts only into a free one, so a house bot's move does not wait in
the queue behind another game's. The ladders take the free slots in turn, a different ladder
first each round.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections import Counter
from typing import Protocol

import structlog

from server.clock import now_ms
from server.games import GameStore
from server.glicko import Rating
from server.identity import owners
from server.ladder.anchors import ANCHOR_OWNER, Anchor, anchors_of
from server.ladder.pairing import Member, Pairing, pair_round
from server.ladder.rating import is_provisional
from server.ladder.store import Ladder, LadderStore
from server.offers import Offered
from server.protocol import (
    ColourPreference,
    ErrorCode,
    GameStarted,
    GameStatus,
    Player,
    PlayerKind,
    ProtocolError,
    TimeControl,
)
from server.slots import house_capacity
from server.worker import WORKERS

__all__ = ["LEASE_MS", "ROUND_SECONDS", "GameStarter", "Scheduler", "Slots"]

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


class Slots:
    """The worker slots a round may still give to anchors' games."""

    def __init__(self, free: int) -> None:
        self.free = free

    def take(self) -> bool:
        """Take a slot for a game; False when none is left."""
        if self.free <= 0:
            return False
        self.free -= 1
        return True


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
        # Rounds each member of each ladder has waited with a free place and no game (kept by
        # the process that pairs: a new lease holder starts counting afresh).
        self._waited: dict[str, Counter[str]] = {}
        self._rounds = 0  # rounds played: which ladder takes the free worker slots first

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
        # Without a database there are no ladders (and their games would never be rated).
        if not self.holding or self.store.database is None:
            return []
        started: list[GameStarted] = []
        ladders = await self.store.ladders()
        self._rounds += 1
        first = self._rounds % len(ladders) if ladders else 0
        slots = await self.free_slots()
        for ladder in ladders[first:] + ladders[:first]:
            started += await self.play_round(ladder, slots)
        return started

    async def free_slots(self) -> Slots:
        """The worker slots no live house game holds now."""
        now = now_ms()
        ready = await self.store.redis.zrangebyscore(WORKERS, now, "+inf")
        capacity = await house_capacity(self.store.redis, ready)
        held = sum(
            PlayerKind.HOUSE in (game.white.kind, game.black.kind)
            for game in await self.games.live_games(now)
        )
        return Slots(max(0, capacity - held))

    async def play_round(self, ladder: Ladder, slots: Slots | None = None) -> list[GameStarted]:
        """Forget the ladder's games handed over, pair its free members and anchors and start
        their games, an anchor's game only into one of the free worker `slots` (by default
        those free now), which it takes."""
        if slots is None:
            slots = await self.free_slots()
        anchors = {anchor.bot: anchor for anchor in anchors_of(ladder.name, ladder.game)}
        under_way = await self.forget_ended(ladder)
        refusal = ladder.refusal(self.offered)
        if refusal is not None:
            if ladder.name not in self._refused:
                self._refused.add(ladder.name)
                log.warning("ladder_not_offered", ladder=ladder.name, reason=refusal)
            return []
        ratings = await self.store.ratings(ladder.name)
        limits = await self.store.members(ladder.name, now_ms())
        owner = await owners(self.store.database, limits)
        waited = self._waited.setdefault(ladder.name, Counter())
        members = []
        for bot, limit in limits.items():
            playing = len(await self.games.games_of(bot))
            rating = ratings.get(bot.lower(), Rating())
            members.append(
                Member(
                    bot,
                    owner[bot],
                    rating.rating,
                    playing,
                    limit,
                    waited=waited[bot],
                    provisional=is_provisional(rating),
                )
            )
        # An anchor's moves come from a worker: with no slot free its moves would wait in the
        # queue on its clock, and with no worker ready its games would stand still.
        if slots.free:
            house_bots = self.offered.terms(ladder.game).house_bots
            members += [
                Member(
                    anchor.bot,
                    ANCHOR_OWNER,
                    anchor.rating,
                    playing=under_way[anchor.bot],
                    limit=anchor.games,
                    waited=waited[anchor.bot],
                )
                for anchor in anchors.values()
                if anchor.bot in house_bots
            ]
        history = await self.store.history(ladder.name)
        started: list[GameStarted] = []
        pairings = []
        for pairing in pair_round(members, history, self.rng):
            house = (pairing.white in anchors) + (pairing.black in anchors)
            # Two anchors are never played: the game would move no rating, both being fixed.
            if house == 2 or (house and not slots.take()):
                continue
            pairings.append(pairing)
        paired = {name for pairing in pairings for name in (pairing.white, pairing.black)}
        self._waited[ladder.name] = Counter(
            {m.name: waited[m.name] + 1 for m in members if m.free and m.name not in paired}
        )
        for pairing in pairings:
            # Renewed before each game: a process that lost the lease while pairing (stalled
            # past it) starts nothing the new holder may also start.
            if not await self.store.take_lease(self.token, self.lease_ms):
                self.holding = False
                log.info("ladder_lease_lost")
                break
            game = await self._start(ladder, pairing, anchors)
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

    async def _start(
        self, ladder: Ladder, pairing: Pairing, anchors: dict[str, Anchor]
    ) -> GameStarted:
        """Start the pairing's game; an anchor plays it as a house bot at its strength."""
        anchor = anchors.get(pairing.white) or anchors.get(pairing.black)

        def player(name: str) -> Player:
            return Player(name, PlayerKind.HOUSE if name in anchors else PlayerKind.BOT)

        return await self.starter.start_game(
            player(pairing.white),
            player(pairing.black),
            ColourPreference.WHITE,
            game=ladder.game,
            setup=ladder.setup,
            time=ladder.time,
            rated=False,
            house_spec=None if anchor is None else anchor.spec,
        )

    async def forget_ended(self, ladder: Ladder) -> Counter[str]:
        """Forget the ladder's games that ended and were handed over since the last round (the
        hand-over rated them), or are gone; how many of its games each player has under way."""
        under_way: Counter[str] = Counter()
        for game_id in await self.store.unrated(ladder.name):
            try:
                game = await self.games.load(game_id)
            except ProtocolError as error:
                if error.code is not ErrorCode.NOT_FOUND:
                    raise
                game = None
            if game is not None and game.status is not GameStatus.ENDED:
                under_way.update((game.white.name, game.black.name))
            elif not await self.games.index.handing_over(game_id):
                await self.store.handed_over(ladder.name, game_id)
                log.info("ladder_game_handed_over", ladder=ladder.name, game_id=game_id)
        return under_way

    async def stop(self) -> None:
        """Give up the lease, so another process takes over at once."""
        if self.holding:
            self.holding = False
            await self.store.release_lease(self.token)
