"""The anchors of the ladders: a small set of distinct house bots per ladder, and the fixed
ratings the standings hold the ones that have played at."""

from __future__ import annotations

import pytest

from server.ladder.anchors import ANCHORS, DEFAULT_ANCHORS, Anchor, anchors_of, fixed_ratings
from server.ladder.results import Result
from server.ladder.standing import render_standings, standings
from server.worker import HOUSE_BOTS


def test_each_ladder_has_distinct_house_bots_as_anchors() -> None:
    for ladder, anchors in ANCHORS.items():
        names = [anchor.bot for anchor in anchors]
        assert len(set(names)) == len(names), ladder
        assert set(names) <= set(HOUSE_BOTS), ladder
        ratings = [anchor.rating for anchor in anchors]
        assert ratings == sorted(set(ratings)), ladder
    assert anchors_of("fast") == ANCHORS["fast"]
    assert anchors_of("some-other") == DEFAULT_ANCHORS


def test_an_anchor_is_stored_in_a_game_as_a_house_bot_at_its_strength() -> None:
    assert Anchor("alphabeta", 3, 1700.0, 1).spec == "alphabeta@3"
    with pytest.raises(ValueError, match="strength is 1 to 10"):
        Anchor("mcts", 11, 1900.0, 1)
    with pytest.raises(ValueError, match="at least one game"):
        Anchor("mcts", 5, 1900.0, 0)


def test_the_standings_hold_the_anchors_that_played_at_their_fixed_ratings() -> None:
    results = [
        Result("ada", "random", white_won=True),
        Result("greedy", "ada", white_won=False),
        Result("ada", "invader", white_won=False),
    ]
    anchors = fixed_ratings("fast", results)
    fixed = {anchor.bot: anchor.rating for anchor in ANCHORS["fast"]}
    assert anchors == {name: fixed[name] for name in ("random", "greedy", "invader")}
    rows = standings(results, anchors, members=["ada"])
    assert {row.name: row.rating for row in rows if row.anchor} == anchors
    table = render_standings(rows)
    assert table.count("anchor") == 3
    assert "alphabeta" not in table  # it has not played
