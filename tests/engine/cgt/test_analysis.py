"""engine.cgt.analysis.analyze within a budget of region positions, and regions left unsolved
by size: what the engine's judgement relies on to be the same on every machine."""

from __future__ import annotations

from engine.amazons import Position
from engine.cgt.amazons import RegionSolver
from engine.cgt.analysis import analyze

# A big contested region beside a small one worth +-1.
SPLIT = "B2Wxx/xxxxxx/1B2B1/B4B/6/W5/W4W/1W2W1 w"


def test_a_region_past_the_position_budget_is_left_unknown_and_the_others_solved() -> None:
    found = analyze(Position.parse(SPLIT), positions=200, solver=RegionSolver())
    assert [None if r.value is None else str(r.value) for r in found.regions] == [None, "+-1"]
    assert found.total is None
    assert found.best_moves is None


def test_the_same_budget_gives_the_same_analysis_every_time() -> None:
    runs = [analyze(Position.parse(SPLIT), positions=200, solver=RegionSolver()) for _ in "ab"]
    assert runs[0].as_dict() == runs[1].as_dict()


def test_regions_larger_than_asked_are_not_searched() -> None:
    solver = RegionSolver()
    found = analyze(Position.parse(SPLIT), largest=4, solver=solver)
    assert [None if r.value is None else str(r.value) for r in found.regions] == [None, "+-1"]
    # Only the small region's positions were met.
    assert solver.stats.positions < 20
