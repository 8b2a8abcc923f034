"""Static evaluations of a Bao board, for the Bao search bots (docs/bao.md, "Bots").

`earlier_terms` is the earlier C++ program's evaluation (the rules note's appendix): six shares
of one player's standing, each in [0, 1], weighted 30/20/10/15/5/20 into a score from 0 to 100.
`material_score` is the `bao-deep` bot's: the seeds each side owns and what each can capture
next, in seeds, from the side to move's view.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import Final

from engine.bao.board import Board
from engine.bao.notation import PITS

__all__ = [
    "EARLIER_WEIGHTS",
    "EarlierTerms",
    "capture_targets",
    "earlier_score",
    "earlier_terms",
    "material_score",
]

FRONT: Final = 8
HOUSE: Final = 4
# seeds, front row, back row, front spread, back spread, captures (the original's weights).
EARLIER_WEIGHTS: Final = (30.0, 20.0, 10.0, 15.0, 5.0, 20.0)


@dataclass(frozen=True, slots=True)
class EarlierTerms:
    """The six shares of the earlier program's evaluation for one player, each in [0, 1]."""

    seeds: float  # my seeds on the board / all seeds on the board
    front: float  # seeds in my front row / seeds in both front rows
    back: float  # seeds in my back row / seeds in both back rows (0.5 when both are empty)
    front_spread: float  # occupied pits of my front row / 8
    back_spread: float  # occupied pits of my back row / 8
    captures: float  # seeds I could capture / (that + seeds they could), 0.5 with no pair

    def score(self) -> float:
        """The weighted sum, from 0 to 100."""
        shares: tuple[float, ...] = astuple(self)
        return sum(w * t for w, t in zip(EARLIER_WEIGHTS, shares, strict=True))


def _share(mine: int, theirs: int) -> float:
    total = mine + theirs
    return mine / total if total else 0.5


def earlier_terms(board: Board, player: int) -> EarlierTerms:
    """The earlier program's six shares for `player` (stores are not counted). A pair of
    facing front pits both occupied counts the opponent's pit as seeds `player` could
    capture and `player`'s pit as seeds the opponent could, whatever the stage."""
    pits = board.pits
    mine, theirs = player * PITS, (1 - player) * PITS
    my_front = pits[mine : mine + FRONT]
    their_front = pits[theirs : theirs + FRONT]
    my_back = pits[mine + FRONT : mine + PITS]
    their_back = pits[theirs + FRONT : theirs + PITS]
    i_take = they_take = 0
    for k in range(FRONT):
        if my_front[k] and their_front[7 - k]:
            i_take += their_front[7 - k]
            they_take += my_front[k]
    return EarlierTerms(
        seeds=_share(sum(my_front) + sum(my_back), sum(their_front) + sum(their_back)),
        front=_share(sum(my_front), sum(their_front)),
        back=_share(sum(my_back), sum(their_back)),
        front_spread=sum(1 for seeds in my_front if seeds) / FRONT,
        back_spread=sum(1 for seeds in my_back if seeds) / FRONT,
        captures=_share(i_take, they_take),
    )


def earlier_score(board: Board, player: int) -> float:
    """The earlier program's score of `board` for `player`, from 0 to 100."""
    return earlier_terms(board, player).score()


def capture_targets(board: Board, player: int) -> list[int]:
    """The seeds in each opponent pit that `player`, were it to move, could capture first:
    in namua every occupied front pit facing an occupied pit; in mtaji the pit facing the end
    of a capturing sowing's first lap (2 to 15 seeds ending on an occupied front pit)."""
    pits = board.pits
    mine, theirs = player * PITS, (1 - player) * PITS
    if board.stores[player] > 0:
        return [
            pits[theirs + 7 - k] for k in range(FRONT) if pits[mine + k] and pits[theirs + 7 - k]
        ]
    found = []
    for pit in range(PITS):
        seeds = pits[mine + pit]
        if 2 <= seeds <= 15:
            for direction in (1, -1):
                end = (pit + direction * seeds) % PITS
                if end < FRONT and pits[mine + end] and pits[theirs + 7 - end]:
                    found.append(pits[theirs + 7 - end])
    return found


# `material_score`'s weights, in seeds.
THREAT: Final = 0.6  # of the biggest capture the side to move has
EXPOSURE: Final = 0.3  # of the biggest capture the opponent would have were it their move
FRONT_PIT: Final = 0.5  # each occupied front pit (a row with few is close to being emptied)
HOUSE_KEPT: Final = 2.0  # an owned house (its tax and safari are worth a few seeds in namua)


def _owned(board: Board, player: int) -> int:
    base = player * PITS
    return sum(board.pits[base : base + PITS]) + board.stores[player]


def material_score(board: Board) -> float:
    """The side to move's standing in seeds: the seeds it owns (pits and store) less the
    opponent's, a share of the biggest capture it has and less a smaller share of the
    opponent's, half a seed for each occupied front pit, and two for an owned house (in
    namua). Positive is good for the side to move."""
    me = board.mover
    them = 1 - me
    score = float(_owned(board, me) - _owned(board, them))
    score += THREAT * max(capture_targets(board, me), default=0)
    score -= EXPOSURE * max(capture_targets(board, them), default=0)
    for player, sign in ((me, 1.0), (them, -1.0)):
        base = player * PITS
        score += sign * FRONT_PIT * sum(1 for k in range(FRONT) if board.pits[base + k])
        if board.owned[player] and board.stores[player] > 0:
            score += sign * HOUSE_KEPT
    return score
