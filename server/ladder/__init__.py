"""The bot ladder's rules without the store: the pairing of a round (`pairing`), Glicko-2 with
the anchors held fixed (`rating`), the maximum-likelihood rating list over all of a ladder's
games (`likelihood`), the cross table (`results`) and the standings (`standing`). The ladders
in Redis (`server.ladder.store`) and the scheduler (`server.ladder.scheduler`) are imported
from their modules."""

from server.ladder.likelihood import PRIOR_DEVIATION, UNANCHORED_CENTRE, Estimate, rating_list
from server.ladder.pairing import (
    CANDIDATES,
    MIN_SPREAD,
    REMATCH_PENALTY,
    SPREAD_NEIGHBOURS,
    Member,
    PairHistory,
    Pairing,
    pair_round,
)
from server.ladder.rating import (
    ANCHOR_DEVIATION,
    PROVISIONAL_DEVIATION,
    anchor_rating,
    is_provisional,
    rate_ladder_game,
)
from server.ladder.results import Result, Score, cross_table, scores
from server.ladder.standing import Standing, render_standings, standings

__all__ = [
    "ANCHOR_DEVIATION",
    "CANDIDATES",
    "MIN_SPREAD",
    "PRIOR_DEVIATION",
    "PROVISIONAL_DEVIATION",
    "REMATCH_PENALTY",
    "SPREAD_NEIGHBOURS",
    "UNANCHORED_CENTRE",
    "Estimate",
    "Member",
    "PairHistory",
    "Pairing",
    "Result",
    "Score",
    "Standing",
    "anchor_rating",
    "cross_table",
    "is_provisional",
    "pair_round",
    "rate_ladder_game",
    "rating_list",
    "render_standings",
    "scores",
    "standings",
]
