"""The pairing of one ladder round: which of the members free to play now meet, and who has
White. Pure: the members, the history of the pairs and a random generator in, the games out; the
scheduler that reads them from the store and starts the games is the caller.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "CANDIDATES",
    "FAR_CHANCE",
    "FAR_GAP",
    "MIN_SPREAD",
    "PATIENCE",
    "REMATCH_PENALTY",
    "SPREAD_NEIGHBOURS",
    "Member",
    "PairHistory",
    "Pairing",
    "pair_round",
]

# Each rating is shifted by a random amount from 0 up to the spread before sorting, so bots a
# little apart in rating swap places and meet. The spread is 1.5 times the widest rating gap
# between bots this many places apart in rating order (CGOS's rule), and never below MIN_SPREAD
# Elo: in a ladder of up to SPREAD_NEIGHBOURS + 1 bots any two can be sorted side by side.
SPREAD_NEIGHBOURS = 8
MIN_SPREAD = 500.0

# A bot looks at this many of the bots after it in the shuffled order for an opponent and takes
# the cheapest; more finds fresher opponents, fewer keeps games between close ratings.
CANDIDATES = 6

# Each earlier game between two bots counts as this many Elo of rating gap, so among near
# neighbours the pair that has met least plays.
REMATCH_PENALTY = 60.0

# Two bots further apart than this in rating (Elo: a 91% expected score) make a lopsided game,
# which tells the rating list little. Such a pair may meet in a round only by a draw of
# FAR_CHANCE, or once one of the two has waited PATIENCE rounds for an opponent: a bot whose
# game ends while only much weaker or much stronger bots are free waits a few rounds for a
# nearer one (on a live ladder the slow games of the strong bots end one at a time), and far
# pairs still meet now and then. A bot whose rating is still provisional is never held back:
# its rating is a guess, and games across the whole ladder place it fastest.
FAR_GAP = 400.0
FAR_CHANCE = 0.25
PATIENCE = 5


@dataclass(frozen=True)
class Member:
    """A ladder member connected now: its `name`, its `owner` (the account it plays for), its
    `rating` (Elo, the ladder's Glicko-2 rating), the games it is `playing` now, the `limit`
    of games it plays at once (1 unless the bot says it plays more), the rounds it has
    `waited` with a free place and no game, and whether its rating is still `provisional`."""

    name: str
    owner: str
    rating: float
    playing: int = 0
    limit: int = 1
    waited: int = 0
    provisional: bool = False

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise ValueError(f"{self.name}: a game limit must be at least 1, got {self.limit}")
        if self.playing < 0:
            raise ValueError(f"{self.name}: games in progress cannot be {self.playing}")

    @property
    def free(self) -> int:
        """How many more games the bot can start now."""
        return max(0, self.limit - self.playing)


@dataclass(frozen=True)
class Pairing:
    """One game of the round: `white` against `black`, by name."""

    white: str
    black: str


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass
class PairHistory:
    """The ladder's games so far between each two bots, counted when a game starts (a game in
    progress counts, so the next round already sees it): `white_games[(a, b)]` is how many
    games `a` played with White against `b`."""

    white_games: dict[tuple[str, str], int] = field(default_factory=dict)

    @classmethod
    def of(cls, games: Iterable[Pairing]) -> PairHistory:
        """The history of `games`, every game the ladder has started."""
        history = cls()
        for game in games:
            history.record(game)
        return history

    def whites(self, white: str, black: str) -> int:
        """How many games `white` played with White against `black`."""
        return self.white_games.get((white, black), 0)

    def meetings(self, a: str, b: str) -> int:
        """How many games `a` and `b` have played against each other."""
        return self.whites(a, b) + self.whites(b, a)

    def record(self, game: Pairing) -> None:
        """Count a game that starts."""
        key = (game.white, game.black)
        self.white_games[key] = self.white_games.get(key, 0) + 1


def _spread(ratings: list[float]) -> float:
    ratings = sorted(ratings)
    reach = min(SPREAD_NEIGHBOURS, len(ratings) - 1)
    widest = max((ratings[i + reach] - ratings[i] for i in range(len(ratings) - reach)), default=0)
    return max(MIN_SPREAD, 1.5 * widest)


def _colours(a: str, b: str, history: PairHistory, rng: random.Random) -> Pairing:
    a_whites, b_whites = history.whites(a, b), history.whites(b, a)
    if a_whites < b_whites or (a_whites == b_whites and rng.random() < 0.5):
        return Pairing(a, b)
    return Pairing(b, a)


def pair_round(
    members: Sequence[Member], history: PairHistory, rng: random.Random
) -> list[Pairing]:
    """The games to start this round among `members`, each (white, black).

    Every member gets as many games as it has free places (`Member.free`) where opponents allow,
    each against a different opponent, never itself. Ratings shifted by random noise are sorted,
    and each bot in turn plays the cheapest of the next CANDIDATES free bots of other owners, the
    cost being the shifted rating gap plus REMATCH_PENALTY per earlier meeting; two bots more
    than FAR_GAP apart, neither provisional, are candidates only by a draw (FAR_CHANCE a
    round) or once one of them has waited PATIENCE rounds. Passes repeat
    while they start games, for bots that play several at once. Only then may two bots of one
    owner meet, each with a free place that no bot of another owner can fill: every bot of
    another owner is full or has met it this round, so it would sit out otherwise. Whoever had
    White less often in the pair's games has White; a tie is decided at random. `history` is
    read, not changed."""
    names = [member.name for member in members]
    if len(set(names)) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise ValueError(f"members listed twice: {', '.join(twice)}")
    playing = [member for member in members if member.free > 0]
    if len(playing) < 2:
        return []
    spread = _spread([member.rating for member in playing])
    shifted = {member.name: member.rating + rng.uniform(0.0, spread) for member in playing}
    order = sorted(playing, key=lambda member: shifted[member.name])
    free = {member.name: member.free for member in playing}
    met: set[tuple[str, str]] = set()
    games: list[Pairing] = []
    far_drawn: dict[tuple[str, str], bool] = {}

    def may_meet(a: Member, b: Member) -> bool:
        if abs(a.rating - b.rating) <= FAR_GAP or max(a.waited, b.waited) >= PATIENCE:
            return True
        if a.provisional or b.provisional:
            return True
        pair = _pair(a.name, b.name)
        if pair not in far_drawn:
            far_drawn[pair] = rng.random() < FAR_CHANCE
        return far_drawn[pair]

    def one_pass(owners_may_meet: bool) -> bool:
        waiting = [member for member in order if free[member.name] > 0]
        taken = [False] * len(waiting)
        started = False
        for i, member in enumerate(waiting):
            if taken[i]:
                continue
            best, best_cost = -1, 0.0
            seen = 0
            for j in range(i + 1, len(waiting)):
                other = waiting[j]
                if taken[j] or _pair(member.name, other.name) in met:
                    continue
                if member.owner == other.owner and not owners_may_meet:
                    continue
                if not may_meet(member, other):
                    continue
                cost = abs(shifted[other.name] - shifted[member.name])
                cost += REMATCH_PENALTY * history.meetings(member.name, other.name)
                if best < 0 or cost < best_cost:
                    best, best_cost = j, cost
                seen += 1
                if seen == CANDIDATES:
                    break
            if best < 0:
                continue
            other = waiting[best]
            taken[i] = taken[best] = True
            free[member.name] -= 1
            free[other.name] -= 1
            met.add(_pair(member.name, other.name))
            games.append(_colours(member.name, other.name, history, rng))
            started = True
        return started

    # A bot a pass leaves without a game found nobody it may play after it in the order, and
    # nobody before it chose it: a pass that starts no game leaves no two bots that may meet.
    while one_pass(owners_may_meet=False):
        pass
    while one_pass(owners_may_meet=True):
        pass
    return games
