import itertools
import math
import time
from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings

from engine.amazons import Move, Position, Side
from engine.search.alphabeta import WIN, AlphaBetaBot, GreedyBot, _Search
from engine.search.bot import Bot, Budget, ClockReading, NoMoveError
from engine.search.evaluation import evaluate_position
from engine.search.timing import moves_left, think_time
from tests.engine.strategies import positions
from tests.timing import thinking

# Seconds a bot may overrun its budget here, as `thinking` counts them (tests/timing.py):
# catches a bot that ignores its deadline (bench/bots.py measures the real overrun).
MARGIN = 0.2
BOTS: dict[str, Callable[[int], Bot]] = {
    "greedy": GreedyBot,
    "alphabeta": lambda seed: AlphaBetaBot(seed=seed),
}


def negamax(position: Position, depth: int, ply: int = 0) -> float:
    """Plain negamax, no pruning and no table: the value alpha-beta must reproduce."""
    if position.is_terminal():
        return -(WIN - ply)
    if depth == 0:
        return evaluate_position(position)
    best = -math.inf
    for move in list(position.legal_moves):
        position.apply(move)
        best = max(best, -negamax(position, depth - 1, ply + 1))
        position.undo()
    return best


def one_ply_scores(position: Position) -> dict[str, float]:
    return {str(move): _after(position, move, 1) for move in position.legal_moves}


def _after(position: Position, move: Move, depth: int) -> float:
    """The negamax value of `move` for the side playing it."""
    line = position.clone()
    line.apply(move)
    return -negamax(line, depth - 1, 1)


def after_random_moves(setup: str, plies: int) -> Position:
    position = Position.setup(setup)
    for ply in range(plies):
        move = position.random_move(ply)
        assert move is not None
        position.apply(move)
    return position


@pytest.mark.parametrize("name", sorted(BOTS))
@pytest.mark.parametrize("setup", ["6x6", "10x10"])
def test_bots_play_legal_moves_within_the_deadline(name: str, setup: str) -> None:
    bot = BOTS[name](1)
    position = Position.setup(setup)
    budget = Budget(seconds=0.1)
    bot.prepare()
    plies = 0
    while not position.is_terminal() and plies < 40:
        if position.current_player == 0:
            decision, seconds = thinking(bot, position, budget)
            assert seconds < 0.1 + MARGIN
            assert decision.move in position.legal_moves
            position.apply(decision.move)  # type: ignore[arg-type]
        else:
            position.apply(position.random_move(plies))  # type: ignore[arg-type]
        plies += 1
    assert plies == 40 or position.is_terminal()


def test_alphabeta_keeps_to_a_clock_share() -> None:
    position = after_random_moves("10x10", 10)
    budget = Budget(clock=ClockReading(own=3.0, opponent=3.0))
    AlphaBetaBot().prepare()
    _, seconds = thinking(AlphaBetaBot(), position, budget)
    assert seconds < think_time(budget, moves_left(position)) + MARGIN


@pytest.mark.parametrize("position", [Position.setup("6x6"), after_random_moves("8x8", 20)])
def test_depth_one_plays_a_best_one_ply_move(position: Position) -> None:
    scores = one_ply_scores(position)
    best = max(scores.values())
    for bot in (AlphaBetaBot(depth=1), GreedyBot()):
        decision = bot.choose(position, Budget(seconds=1))
        assert scores[str(decision.move)] == pytest.approx(best, abs=1e-9)
        assert decision.score == pytest.approx(best, abs=1e-9)


@given(positions(max_size=4))
@settings(max_examples=30, deadline=None)
def test_depth_two_value_is_the_negamax_value(position: Position) -> None:
    assume(not position.is_terminal())
    decision = AlphaBetaBot(depth=2).choose(position, Budget(seconds=1))
    assert decision.score == pytest.approx(negamax(position.clone(), 2), abs=1e-9)
    assert isinstance(decision.move, Move)
    assert _after(position, decision.move, 2) == pytest.approx(decision.score, abs=1e-9)


@given(positions(max_size=3))
@settings(max_examples=30, deadline=None)
def test_depth_three_value_is_the_negamax_value(position: Position) -> None:
    assume(not position.is_terminal())
    decision = AlphaBetaBot(depth=3).choose(position, Budget(seconds=1))
    assert decision.score == pytest.approx(negamax(position.clone(), 3), abs=1e-9)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_bots_take_the_win_when_they_can(name: str) -> None:
    # Only a2-b2/a2 walls Black's a1 amazon in.
    position = Position.parse("x2/W2/Bx1 w")
    decision = BOTS[name](0).choose(position, Budget(seconds=1))
    assert str(decision.move) == "a2-b2/a2"
    assert decision.score == WIN - 1


def test_alphabeta_sees_a_win_in_two_moves_that_greedy_misses() -> None:
    #  3 . . . W
    #  2 B . x .
    #  1 x . x x
    # Only d3-b3/b2 wins: Black's two replies, a2-a3/a2 and a2-b1/a2, are both walled in by
    # White's next move; greedy prefers a move with more room.
    position = Position.parse("3W/B1x1/x1xx w")
    winning = {str(m) for m in position.legal_moves if _after(position, m, 3) == WIN - 3}
    assert winning == {"d3-b3/b2"}
    for bot in (AlphaBetaBot(depth=3), AlphaBetaBot()):
        decision = bot.choose(position, Budget(seconds=1))
        assert (str(decision.move), decision.score) == ("d3-b3/b2", WIN - 3)
        line = position.clone()
        for text in decision.pv:
            line.apply(line.parse_move(text))
        assert (len(decision.pv), line.winner) == (3, Side.WHITE)
    assert str(GreedyBot().choose(position, Budget(seconds=1)).move) not in winning


def test_fixed_depth_ignores_the_clock() -> None:
    decision = AlphaBetaBot(depth=2).choose(Position.setup("6x6"), Budget(seconds=0.001))
    assert decision.depth == 2
    assert len(decision.pv) == 2


def test_the_decision_reports_the_search() -> None:
    position = after_random_moves("6x6", 10)
    decision = AlphaBetaBot(depth=3).choose(position, Budget(seconds=1))
    assert decision.depth == 3
    assert decision.nodes > position.count_moves()
    assert isinstance(decision.move, Move)
    assert decision.score == pytest.approx(_after(position, decision.move, 3), abs=1e-9)
    assert len(decision.pv) == 3
    assert decision.pv[0] == str(decision.move)
    line = position.clone()
    for text in decision.pv:
        line.apply(line.parse_move(text))


def test_prepare_leaves_the_random_state_alone() -> None:
    def game(bot: Bot) -> list[str]:
        position = Position.setup("6x6")
        for _ in range(8):
            position.apply(position.parse_move(str(bot.choose(position, Budget(1.0)).move)))
        return [str(m) for m in position.move_stack]

    for make in (GreedyBot, lambda seed: AlphaBetaBot(depth=1, seed=seed)):
        prepared = make(3)
        prepared.prepare()
        assert game(prepared) == game(make(3))


def test_the_same_seed_plays_the_same_game_at_fixed_depth() -> None:
    def game(seed: int) -> list[str]:
        bots = (AlphaBetaBot(depth=2, seed=seed), AlphaBetaBot(depth=2, seed=seed + 1))
        position = Position.setup("6x6")
        while not position.is_terminal():
            move = bots[position.current_player].choose(position, Budget(seconds=0.01)).move
            position.apply(move)  # type: ignore[arg-type]
        return [str(m) for m in position.move_stack]

    assert game(5) == game(5)
    assert game(5) != game(6)


@pytest.mark.parametrize("bot", [GreedyBot(), AlphaBetaBot()])
def test_a_finished_game_has_no_move_to_choose(bot: GreedyBot | AlphaBetaBot) -> None:
    with pytest.raises(NoMoveError, match="the game is over in 'xWB b'"):
        bot.choose(Position.parse("xWB b"), Budget(seconds=0.1))


def test_depth_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match=r"depth must run from 0 \(no limit\) to 64, not -1"):
        AlphaBetaBot(depth=-1)


def test_a_fixed_depth_searches_in_runs_the_clock_does_not_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """To a fixed depth the search does not look at the clock: whether it stands still or races
    (an hour a reading, as when the process sleeps mid-move), the search runs in the same pieces
    and does not crawl a node at a time."""
    runs: list[int] = []
    run = _Search.run

    def counted(search: _Search, limit: int) -> int:
        runs.append(limit)
        return run(search, limit)

    monkeypatch.setattr(_Search, "run", counted)
    position = Position.setup("6x6")
    pieces = []
    for step in (1e-9, 3600.0):
        monkeypatch.setattr(time, "perf_counter", itertools.count(0.0, step).__next__)
        runs.clear()
        decision = AlphaBetaBot(depth=2).choose(position, Budget(seconds=1))
        assert decision.nodes > 100
        pieces.append(len(runs))
    assert pieces[0] == pieces[1]
