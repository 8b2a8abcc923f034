"""The bot ladder's rules without the store: the anchors and their fixed ratings (`anchors`),
the pairing of a round (`pairing`), Glicko-2 with the anchors held fixed (`rating`), the
maximum-likelihood rating list over all of a ladder's games (`likelihood`), the cross table
(`results`) and the standings (`standing`). The ladders in Redis (`server.ladder.store`) and the
scheduler (`server.ladder.scheduler`) are imported from their modules."""

from server.ladder.anchors import (
    ANCHOR_OWNER,
    ANCHORS,
    DEFAULT_ANCHORS,
    Anchor,
    anchors_of,
    fixed_ratings,
)
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
    "ANCHORS",
    "ANCHOR_DEVIATION",
    "ANCHOR_OWNER",
    "CANDIDATES",
    "DEFAULT_ANCHORS",
    "MIN_SPREAD",
    "PRIOR_DEVIATION",
    "PROVISIONAL_DEVIATION",
    "REMATCH_PENALTY",
    "SPREAD_NEIGHBOURS",
    "UNANCHORED_CENTRE",
    "Anchor",
    "Estimate",
    "Member",
    "PairHistory",
    "Pairing",
    "Result",
    "Score",
    "Standing",
    "anchor_rating",
    "anchors_of",
    "cross_table",
    "fixed_ratings",
    "is_provisional",
    "pair_round",
    "rate_ladder_game",
    "rating_list",
    "render_standings",
    "scores",
    "standings",
]
