"""Exact endgame play: every move it plays keeps a win (checked by a separate solver), it
declines lost, open and settled positions, plays in the hottest region when told to, reads the
endgame database, and stays within its time."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.amazons.notation import Side
from engine.amazons.position import Position
from engine.amazons.regions import RegionKind
from engine.cgt.amazons import RegionSolver
from engine.cgt.analysis import winner
from engine.cgt.endgame import DatabaseError, EndgameDatabase, build
from engine.cgt.player import ExactEndgame
from engine.search.bot import Budget
from engine.search.invader import InvaderBot


def endgames(count: int, max_empty: int) -> list[Position]:
    """Positions of random 6x6 games once their contested regions hold at most `max_empty`
    empty squares in all (and some region is still contested)."""
    found = []
    seed = 0
    while len(found) < count:
        seed += 1
        position = Position.setup("6x6")
        while not position.is_terminal():
            contested = [r for r in position.regions() if r.kind is RegionKind.CONTESTED]
            if not contested:
                break
            if sum(r.empty for r in contested) <= max_empty:
                found.append(position.clone())
                break
            move = position.random_move(seed * 1000 + position.ply)
            assert move is not None
            position.apply(move)
    return found


def test_every_move_played_keeps_a_win_and_lost_positions_are_declined() -> None:
    exact = ExactEndgame(max_empty=10)
    check = RegionSolver()
    seen: Counter[str] = Counter()
    for position in endgames(40, max_empty=7):
        mover = position.side_to_move
        move = exact(position, 60.0)
        assert exact.report is not None
        seen[exact.report.how] += 1
        if move is None:
            assert exact.report.how == "lost"
            assert check.best_moves(position) == []
            continue
        assert exact.report.how == "sum"
        after = position.clone()
        after.apply(move)
        value = check.position_value(after)
        assert value == exact.report.value
        assert winner(value, after.side_to_move) is mover
    assert seen["sum"] >= 10, seen
    assert seen["lost"] >= 5, seen


def test_with_many_hot_regions_it_plays_in_the_hottest() -> None:
    exact = ExactEndgame(max_empty=10, exact_hot=0)
    check = RegionSolver()
    played = 0
    for position in endgames(30, max_empty=7):
        move = exact(position, 60.0)
        assert exact.report is not None
        if exact.report.how != "hottest":
            continue
        assert move is not None
        black = position.side_to_move is Side.BLACK
        temperatures = {}
        for region in position.regions():
            if (region.black if black else region.white) and region.empty:
                temperatures[region.squares] = check.region_value(region).temperature
        (played_in,) = (squares for squares in temperatures if move.origin in squares)
        assert temperatures[played_in] == max(temperatures.values())
        played += 1
    assert played >= 10


def test_open_and_settled_positions_get_no_move() -> None:
    exact = ExactEndgame()
    assert exact(Position.setup("6x6"), 1.0) is None
    assert exact.report is not None
    assert exact.report.how == "open"
    assert exact(Position.parse("B2x/xxxx/x2W b"), 1.0) is None
    assert exact.report is not None
    assert exact.report.how == "settled"


def test_a_region_not_solved_in_time_gives_no_move_within_the_time() -> None:
    exact = ExactEndgame(max_empty=100)
    assert exact(Position.setup("6x6"), 0.05) is None
    assert exact.report is not None
    assert exact.report.how == "unsolved"
    assert exact.report.seconds < 1.0


def test_regions_in_the_database_are_played_from_it(tmp_path: Path) -> None:
    path = tmp_path / "endgame.sqlite"
    build(path, max_cells=5, max_amazons=1)
    exact = ExactEndgame(database=path)
    # One contested region of 4 squares (Black, 2 empty, White), the rest burnt or dead.
    position = Position.parse("B2W/xxxx/2xx b")
    move = exact(position, 1.0)
    assert exact.report is not None
    assert exact.report.how == "database"
    assert move == EndgameDatabase(path).best_moves(position)[0]
    assert move in RegionSolver().best_moves(position)


@pytest.mark.parametrize("side", [Side.WHITE, Side.BLACK])
def test_the_invader_plays_the_exact_move_when_it_has_one(side: Side) -> None:
    check = RegionSolver()
    tried = 0
    for position in endgames(20, max_empty=7):
        if position.side_to_move is not side:
            continue
        winning = check.best_moves(position)
        if not winning:
            continue
        bot = InvaderBot(playouts=60_000, exact=10)  # 50,000 region positions for the endgame
        decision = bot.choose(position, Budget(seconds=30.0))
        assert isinstance(bot.endgame, ExactEndgame)
        assert bot.endgame.report is not None
        assert bot.endgame.report.how == "sum"
        assert decision.move in winning
        tried += 1
    assert tried >= 3


def test_exact_zero_turns_the_endgame_player_off() -> None:
    assert InvaderBot(exact=0).endgame is None
    assert isinstance(InvaderBot(exact=12).endgame, ExactEndgame)


def test_the_bot_reads_the_database_named_by_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "endgame.sqlite"
    build(path, max_cells=3, max_amazons=1)
    monkeypatch.setenv("ARENA_ENDGAME_DB", str(path))
    endgame = InvaderBot().endgame
    assert isinstance(endgame, ExactEndgame)
    assert endgame.database is not None
    assert endgame.database.path == path
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"not a database at all" * 100)
    monkeypatch.setenv("ARENA_ENDGAME_DB", str(corrupt))
    with pytest.raises(DatabaseError, match=r"corrupt\.sqlite is not an endgame database"):
        InvaderBot()


def test_after_running_out_of_time_it_waits_for_a_smaller_endgame() -> None:
    exact = ExactEndgame(max_empty=100)
    start = Position.setup("6x6")
    assert exact(start, 0.05) is None
    assert exact.report is not None
    assert exact.report.how == "unsolved"
    # The same position again is not tried: the solver searches nothing new.
    searched = exact.solver.stats.positions
    assert exact(start, 0.05) is None
    assert exact.report.how == "unsolved"
    assert exact.solver.stats.positions == searched
