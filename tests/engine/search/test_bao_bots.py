"""The bots that play Bao: legal moves within the budget, the evaluations' terms on positions
checked by hand, and what the search bots see."""

from __future__ import annotations

import gc
import random

import pytest

from engine.amazons import Position
from engine.bao import BaoPosition
from engine.search.bao_bots import BaoDeepBot
from engine.search.bao_evaluation import (
    EarlierTerms,
    capture_targets,
    earlier_terms,
    material_score,
)
from engine.search.bot import Budget, NoMoveError
from engine.search.registry import bots_for, make_bot
from tests.timing import thinking

BAO_BOTS = bots_for("bao")
# Seconds a bot may overrun its budget, as `thinking` counts them (tests/timing.py).
MARGIN = 0.2

# The rules note's worked example of the earlier evaluation (its appendix): South at the bottom.
EXAMPLE = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/1,1,1,1,0,2,2,0/1,1,1,0,0,0,0,0 0-0 - - s mtaji 40"
# South captures North's only front pit (namua, A6 in the centre: either kichwa), and wins.
WIN_IN_ONE = "0,0,0,0,0,0,0,0/0,0,0,0,0,2,0,0/1,0,0,0,0,1,0,0/0,0,0,0,0,0,0,0 5-5 - - s namua 20"


def _random_positions(count: int, seed: int) -> list[BaoPosition]:
    """Positions from random games, from the opening to the mtaji stage."""
    rng = random.Random(seed)
    found = []
    for i in range(count):
        position = BaoPosition()
        for _ in range(5 + 9 * i):
            if position.is_terminal():
                break
            position.apply(rng.choice(position.legal_moves))
        if not position.is_terminal() and len(position.legal_moves) > 1:
            found.append(position)
    return found


@pytest.mark.parametrize("spec", BAO_BOTS)
def test_bots_play_legal_moves_within_the_budget_on_random_positions(spec: str) -> None:
    bot = make_bot(spec, seed=1)
    bot.prepare()
    positions = _random_positions(6, seed=7)
    assert len(positions) >= 4
    for position in positions:
        before = position.text()
        decision, seconds = thinking(bot, position, Budget(seconds=0.1))
        assert seconds < 0.1 + MARGIN
        assert decision.move in position.legal_moves
        assert position.text() == before  # the position it was given is left as it was


@pytest.mark.parametrize("spec", ["bao-alphabeta", "bao-deep"])
def test_the_bao_search_bots_play_only_bao(spec: str) -> None:
    with pytest.raises(TypeError, match=f"bot '{spec}:depth=0,seed=0' plays only bao"):
        make_bot(spec).choose(Position.setup("6x6"), Budget(seconds=0.1))
    over = BaoPosition.parse(
        "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,0,0,0,0,1,0,0/0,0,0,0,0,0,0,0 5-5 - - n namua 21"
    )
    with pytest.raises(NoMoveError, match="no move to choose: the game is over"):
        make_bot(spec).choose(over, Budget(seconds=0.1))


@pytest.mark.parametrize("spec", ["bao-alphabeta", "bao-deep"])
def test_the_search_bots_see_a_win_in_one(spec: str) -> None:
    position = BaoPosition.parse(WIN_IN_ONE)
    assert sorted(map(str, position.legal_moves)) == ["A6<", "A6>"]
    decision = make_bot(spec).choose(position, Budget(seconds=5))
    assert decision.score is not None
    assert decision.score > 900  # a win, 1000 less its plies
    assert decision.depth == 1  # a proven result ends the deepening


@pytest.mark.parametrize("spec", ["bao-alphabeta:depth=3", "bao-deep:depth=3"])
def test_a_fixed_depth_plays_the_same_move_whatever_the_budget(spec: str) -> None:
    (position, *_) = _random_positions(3, seed=11)
    short = make_bot(spec, seed=4).choose(position, Budget(seconds=0.001))
    long = make_bot(spec, seed=4).choose(position, Budget(seconds=60))
    assert (short.move, short.depth, short.nodes) == (long.move, 3, long.nodes)


def test_the_earlier_evaluation_of_the_rules_note_example() -> None:
    board = BaoPosition.parse(EXAMPLE).board
    terms = earlier_terms(board, 0)
    assert terms == EarlierTerms(
        seeds=11 / 21,
        front=8 / 18,
        back=3 / 3,
        front_spread=6 / 8,
        back_spread=3 / 8,
        captures=10 / 13,  # North's 2, 2 and 6 against South's three singletons facing them
    )
    assert terms.score() == pytest.approx(63.113, abs=5e-4)
    # North's view: the shares of both sides add up to 1, but for the spreads.
    north = earlier_terms(board, 1)
    assert (north.seeds, north.front, north.back, north.captures) == (
        10 / 21,
        10 / 18,
        0.0,
        3 / 13,
    )
    assert (north.front_spread, north.back_spread) == (3 / 8, 0.0)


def test_the_earlier_evaluation_takes_a_half_where_there_is_nothing_to_share() -> None:
    # No back row seeds on either side, no facing pair of occupied pits.
    board = BaoPosition.parse(
        "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,2/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0-0 - - s mtaji 50"
    ).board
    terms = earlier_terms(board, 0)
    assert (terms.back, terms.captures, terms.seeds) == (0.5, 0.5, 0.5)


def test_capture_targets_in_namua_and_mtaji() -> None:
    example = BaoPosition.parse(EXAMPLE).board
    # In mtaji South captures with a sowing whose first lap ends on an occupied front pit
    # facing an occupied one: A6 (2 seeds) ends in A4 facing North's 6 (<) or in A8 (>),
    # empty; A7 (2 seeds) ends in A5, empty (<), or in the back row (>).
    assert capture_targets(example, 0) == [6]
    # North's A2 (2 seeds, its F7) sown < ends on its A5 (6 seeds), facing South's A4 (1).
    assert capture_targets(example, 1) == [1]
    start = BaoPosition().board
    assert capture_targets(start, 0) == []
    assert capture_targets(start, 1) == []
    win = BaoPosition.parse(WIN_IN_ONE).board
    assert capture_targets(win, 0) == [2]  # namua: the seeds facing an occupied pit


def test_material_score_from_the_side_to_move() -> None:
    win = BaoPosition.parse(WIN_IN_ONE).board
    # South owns 2 + 5, North 2 + 5; South threatens 2 (x 0.6), North would take 1 (x 0.3);
    # two occupied front pits against one (x 0.5); no house.
    assert material_score(win) == pytest.approx(0 + 0.6 * 2 - 0.3 * 1 + 0.5 * (2 - 1))
    assert material_score(BaoPosition().board) == 0.0


def test_the_deep_bots_table_leaves_the_garbage_collector_nothing_to_walk() -> None:
    """A full collection walks every object it tracks, so the table must hold none: it held
    the boards and moves as objects, and a collection in a game took 0.37 s. Counted in the
    table itself, since the whole process's count moves with whatever else runs."""
    bot = make_bot("bao-deep:depth=12")
    assert isinstance(bot, BaoDeepBot)
    bot.choose(BaoPosition(), Budget(seconds=60))
    # CPython stops tracking a tuple of untracked items when a collection finds it so; a tuple
    # seen before its inner tuples were untracked is untracked by the next one.
    gc.collect()
    gc.collect()
    entries = bot._table._entries
    assert len(entries) > 3_000
    tracked = [key for key, value in entries.items() if gc.is_tracked(key) or gc.is_tracked(value)]
    assert tracked == []
