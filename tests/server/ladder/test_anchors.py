"""The anchors of the ladders: a small set of distinct house bots per ladder, and the fixed
ratings the standings hold the ones that have played at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.search.registry import bots_for
from server.ladder.anchors import ANCHORS, DEFAULT_ANCHORS, Anchor, anchors_of, fixed_ratings
from server.ladder.results import Result
from server.ladder.standing import render_standings, standings
from server.worker import HOUSE_BOTS


def test_each_ladder_has_distinct_house_bots_of_its_game_as_anchors() -> None:
    sets = [
        (game, name, anchors) for game, named in ANCHORS.items() for name, anchors in named.items()
    ]
    sets += [(game, "any other", anchors) for game, anchors in DEFAULT_ANCHORS.items()]
    for game, ladder, anchors in sets:
        names = [anchor.bot for anchor in anchors]
        assert len(set(names)) == len(names), ladder
        assert set(names) <= set(HOUSE_BOTS) & set(bots_for(game)), (game, ladder)
        ratings = [anchor.rating for anchor in anchors]
        assert ratings == sorted(set(ratings)), ladder
        assert ratings[0] == 1000.0, ladder  # random, the scale's foot
    assert anchors_of("fast", "amazons") == ANCHORS["amazons"]["fast"]
    assert anchors_of("some-other", "amazons") == DEFAULT_ANCHORS["amazons"]


def test_a_bao_ladder_has_bao_anchors_whatever_its_name() -> None:
    bao = [anchor.spec for anchor in anchors_of("bao", "bao")]
    assert bao == ["random@10", "mcts@10", "bao-alphabeta@10", "bao-deep@10"]
    for name in ("bao-fast", "fast", "main"):
        assert anchors_of(name, "bao") == anchors_of("bao", "bao"), name
    # The Amazons ladders keep theirs.
    assert [anchor.spec for anchor in anchors_of("main", "amazons")] == [
        "random@10",
        "greedy@10",
        "alphabeta@3",
        "invader@10",
    ]
    assert anchors_of("bao", "takeaway") == ()  # a game with no anchors set has none


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
    anchors = fixed_ratings("fast", "amazons", results)
    fixed = {anchor.bot: anchor.rating for anchor in ANCHORS["amazons"]["fast"]}
    assert anchors == {name: fixed[name] for name in ("random", "greedy", "invader")}
    rows = standings(results, anchors, members=["ada"])
    assert {row.name: row.rating for row in rows if row.anchor} == anchors
    table = render_standings(rows)
    assert table.count("anchor") == 3
    assert "alphabeta" not in table  # it has not played


def test_the_anchor_table_on_the_ladder_page_is_the_anchors_set_here() -> None:
    """docs/ladder.md lists each named ladder's anchors with their strengths, their fixed
    ratings (those its calibration set) and their games at once, as server/ladder/anchors.py
    has them."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "ladder.md").read_text()
    listed = {}
    for line in page.splitlines():
        row = re.fullmatch(r"\| `([\w-]+)`(?:, and any other)? \| (\w+) \| (`.+) \|", line)
        if row is not None:
            entries = re.findall(r"`([\w-]+)@(\d+)` (\d+) \((\d+)\)", row[3])
            listed[row[2], row[1]] = [(b, int(s), float(r), int(g)) for b, s, r, g in entries]
    assert listed == {
        (game, ladder): [(a.bot, a.strength, a.rating, a.games) for a in anchors]
        for game, named in ANCHORS.items()
        for ladder, anchors in named.items()
    }
