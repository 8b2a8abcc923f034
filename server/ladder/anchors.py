"""The anchors: house bots of fixed strength that play on every ladder, through `arena worker`,
at ratings set here once and never moved, so that a ladder's scale means the same from year to
year. Each game has its own house bots, so each game has its own sets: a named ladder has its
own small set, any other ladder its game's default one. docs/ladder.md says how the ratings
were chosen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from server.ladder.results import Result

__all__ = ["ANCHORS", "ANCHOR_OWNER", "DEFAULT_ANCHORS", "Anchor", "anchors_of", "fixed_ratings"]

# The owner every anchor plays for: the pairing lets two bots of one owner meet only when
# nobody else is left, so anchors play the members rather than each other.
ANCHOR_OWNER = "house"


@dataclass(frozen=True)
class Anchor:
    """A house bot on a ladder: its `bot` (the house bot's name, which is also its name in the
    games and the standings), its `strength` (1 to 10: the share in tenths of what its time
    manager would spend, as in a challenge), its fixed `rating` (Elo) and the `games` it plays
    at once on the ladder."""

    bot: str
    strength: int
    rating: float
    games: int

    def __post_init__(self) -> None:
        if not 1 <= self.strength <= 10:
            raise ValueError(f"{self.bot}: a strength is 1 to 10, not {self.strength}")
        if self.games < 1:
            raise ValueError(f"{self.bot}: an anchor plays at least one game at once")

    @property
    def spec(self) -> str:
        """How its games store it: `alphabeta@3`, as `server.app.house_spec` writes it."""
        return f"{self.bot}@{self.strength}"


# The ratings are fitted from anchors-only runs on each ladder's terms, random held at 1000
# (bench/ladder_calibrate.py; docs/ladder.md, "Calibrating the anchors"), and are constants
# once a ladder has rated games. mcts tied greedy or lost to it in Amazons, so it would only
# crowd greedy's rating and is no anchor there; mobility did no better than random in Bao.
_FAST = (
    Anchor("random", 10, 1000.0, 1),
    Anchor("greedy", 10, 1600.0, 1),
    Anchor("alphabeta", 3, 2120.0, 1),
    Anchor("invader", 10, 2520.0, 1),
)
_MAIN = (
    Anchor("random", 10, 1000.0, 2),
    Anchor("greedy", 10, 1380.0, 2),
    Anchor("alphabeta", 3, 1730.0, 2),
    Anchor("invader", 10, 1990.0, 2),
)
_BAO = (
    Anchor("random", 10, 1000.0, 1),
    Anchor("mcts", 10, 1460.0, 1),
    Anchor("bao-alphabeta", 10, 2160.0, 1),
    Anchor("bao-deep", 10, 2390.0, 1),
)

# The anchors of each game's named ladders, by game and then ladder name; any other ladder of
# a game has its game's DEFAULT_ANCHORS, and a game with none of either has no anchors.
ANCHORS: Mapping[str, Mapping[str, tuple[Anchor, ...]]] = {
    "amazons": {"fast": _FAST, "main": _MAIN},
    "bao": {"bao": _BAO},
}
DEFAULT_ANCHORS: Mapping[str, tuple[Anchor, ...]] = {"amazons": _FAST, "bao": _BAO}


def anchors_of(ladder: str, game: str) -> tuple[Anchor, ...]:
    """The anchors of the ladder named `ladder` (in lower case, as ladders keep their names)
    whose games are of `game`: house bots that play that game."""
    return ANCHORS.get(game, {}).get(ladder, DEFAULT_ANCHORS.get(game, ()))


def fixed_ratings(ladder: str, game: str, results: Iterable[Result]) -> dict[str, float]:
    """The fixed ratings of the anchors of ladder `ladder` of `game` that have played one of
    `results`: the anchors its standings list, like every bot with a rated game, and hold at
    their ratings."""
    played = {name for result in results for name in (result.white, result.black)}
    return {
        anchor.bot: anchor.rating for anchor in anchors_of(ladder, game) if anchor.bot in played
    }
