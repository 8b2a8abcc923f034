import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings

from engine.amazons import Move, Position, Side, Square
from engine.cgt.player import ExactEndgame
from engine.search.alphabeta import one_ply
from engine.search.bot import Budget
from engine.search.evaluation import evaluate_position, make_scratch
from engine.search.invader import (
    ALL,
    ENDGAME_SHARE,
    FITTED,
    LENGTH,
    LIST,
    PAR_CANDIDATES,
    PLAYOUTS_PER_SECOND,
    REGION_POSITIONS_PER_SECOND,
    InvaderBot,
    ValuedTree,
    longest_sequence,
    rank_moves,
    two_ply,
)
from engine.search.mcts import MOVE, PARENT, TRIED, VISITS
from engine.search.timing import SAFETY
from tests.engine.strategies import positions


def _longest_alone(position: Position, side: Side) -> int:
    """Plain search: the most moves `side` can make in a row while the opponent passes."""
    return _longest_from(position.text()[:-1] + side.letter)


@functools.cache
def _longest_from(text: str) -> int:
    here = Position.parse(text)
    best = 0
    for move in list(here.legal_moves):
        after = here.clone()
        after.apply(move)
        best = max(best, 1 + _longest_from(after.text()[:-1] + text[-1]))
    return best


@given(positions(max_size=3))
@settings(max_examples=60, deadline=None)
def test_longest_sequence_matches_a_plain_search(position: Position) -> None:
    for side in Side:
        expected = _longest_alone(position, side)
        found, move, proven = longest_sequence(position, int(side), nodes=1_000_000)
        assert proven
        assert found == expected
        if expected:
            first = position.clone()
            if first.side_to_move is not side:
                first = Position.parse(first.text()[:-1] + side.letter)
            first.apply(first.decode(move))
            assert 1 + _longest_alone(first, side) == expected


def test_settled_play_keeps_every_square() -> None:
    # Every region is settled: White's 2x4 block and Black's 2x3 one. Many first moves
    # strand squares of the block; the bot must play one that can still fill it.
    position = Position.parse("xxxxxxxx/4x2B/W3x3 w")
    assert all(not (r.white and r.black) for r in position.regions())
    bot = InvaderBot()
    own, _, proven = longest_sequence(position, 0, 10_000)
    assert proven
    decision = bot.choose(position, Budget(seconds=0.5))
    after = position.clone()
    after.apply(decision.move)  # type: ignore[arg-type]
    again, _, _ = longest_sequence(after, 0, 10_000)
    assert again == own - 1
    assert decision.score == own - longest_sequence(position, 1, 10_000)[0]


def test_with_playouts_fixed_the_settled_search_does_not_depend_on_the_budget() -> None:
    # Settled, and hard to fill: 125 nodes find a run of 10 own moves, 12,600 one of 19.
    position = Position.parse(
        "xxBx1xBxxx/xxxxxxxxB1/xxx1xxxxxx/xxxx1xxxxx/Bxxxxx4/xxW1xx1xx1/xxxxxxxx2/1Wxx1xx1xx/"
        "Wx5xxx/1xxx1xxx1W w"
    )
    short, long = (
        InvaderBot(playouts=300, exact=0).choose(position, Budget(seconds=seconds))
        for seconds in (0.01, 5.0)
    )
    assert (short.move, short.depth, short.score) == (long.move, long.depth, long.score)


def test_the_endgame_hook_is_asked_first_with_half_the_time() -> None:
    position = Position.setup("6x6")
    chosen = next(iter(position.legal_moves))
    asked: list[tuple[float | None, int | None]] = []

    def endgame(p: Position, seconds: float | None, positions: int | None) -> Move:
        asked.append((seconds, positions))
        return chosen

    bot = InvaderBot(endgame=endgame)
    assert bot.choose(position, Budget(seconds=0.4)).move == chosen
    ((seconds, positions),) = asked
    assert seconds == pytest.approx((0.4 - SAFETY) * ENDGAME_SHARE)
    assert positions is None
    # With the playouts fixed the hook gets work counted, not time, whatever the budget says.
    asked.clear()
    bot = InvaderBot(playouts=3000, endgame=endgame)
    for time_given in (0.4, 4.0):
        bot.choose(position, Budget(seconds=time_given))
    counted = int(3000 / PLAYOUTS_PER_SECOND * ENDGAME_SHARE * REGION_POSITIONS_PER_SECOND)
    assert asked == [(None, counted), (None, counted)]


def test_preparing_leaves_the_endgame_solver_as_it_was() -> None:
    bot = InvaderBot()
    assert isinstance(bot.endgame, ExactEndgame)
    bot.prepare()
    assert bot.endgame.solver.stats.positions == 0


def _played(position: Position, plies: int) -> Position:
    for ply in range(plies):
        position.apply(position.random_move(ply))  # type: ignore[arg-type]
    return position


def _chance(score: float, slope: float) -> float:
    return 1.0 / (1.0 + math.exp(-slope * score))


@pytest.mark.parametrize(("setup", "komi"), [("6x6", 0.0), ("10x10", 0.0), ("10x10", 1.0)])
def test_node_values_are_the_implicit_minimax_of_the_evaluation(setup: str, komi: float) -> None:
    position = _played(Position.setup(setup), 6)
    bot = InvaderBot(playouts=600, expand=2, komi=komi)
    _check_values(bot, position, bot.search(position, deadline=0.0))


@pytest.mark.parametrize("komi", [0.0, 1.0])
def test_a_kept_subtree_has_its_values_from_the_new_par(komi: float) -> None:
    position = _played(Position.setup("10x10"), 6)
    first = InvaderBot(playouts=2000, expand=2, komi=komi).search(position, deadline=0.0)
    after = position.clone()
    after.apply_index(first.principal_variation(1)[0])
    # One playout more: the kept nodes' values are as the kept subtree was given them.
    again = InvaderBot(playouts=1, expand=2, komi=komi)
    tree = again.search(after, 0.0, first)
    assert tree.nodes[0, VISITS] > 100
    assert komi == 0 or tree.par != first.par
    _check_values(again, after, tree)


def _check_values(bot: InvaderBot, position: Position, tree: ValuedTree) -> None:
    komi = bot.params[9]
    slope = bot.params[2]
    # Each side's scores count from its share of the root's value two plies on.
    root = position.current_player
    white_par = tree.par
    board, mob, amazons, meta, zob = position.clone().arrays()
    value = two_ply(board, mob, amazons, meta, zob, make_scratch(board), FITTED, PAR_CANDIDATES, 12)
    assert white_par == komi * value * (1 if root == 0 else -1)
    inner = leaves = untried = 0
    for node in range(1, tree.size):
        line = []
        up = node
        while up > 0:
            line.append(int(tree.nodes[up, MOVE]))
            up = int(tree.nodes[up, PARENT])
        mover = root if len(line) % 2 else 1 - root
        children = tree.children(node)
        if children:
            inner += 1
            replies = [tree.values[child] for child in children]
            tried, length = tree.nodes[node, TRIED], tree.nodes[node, LENGTH]
            if tried < length:
                # The best move not tried yet stands for the rest, by its ranking score.
                untried += 1
                score = tree.scores[tree.nodes[node, LIST] + tried]
                replies.append(_chance(score - (white_par if mover == 1 else -white_par), slope))
            assert tree.values[node] == 1.0 - max(replies)
            continue
        leaves += 1
        after = position.clone()
        for move in reversed(line):
            after.apply_index(move)
        # The leaf keeps the chance its parent's ranking gave the move: the evaluation after
        # it, for the side that played it, or a certain win when the opponent cannot move.
        expected = 1.0
        if not after.is_terminal():
            score = -evaluate_position(after, FITTED)
            expected = _chance(score - (white_par if mover == 0 else -white_par), slope)
        assert tree.values[node] == pytest.approx(expected, rel=1e-12)
    assert inner > 10
    assert untried > 10
    assert leaves > 10


def test_the_root_keeps_the_best_moves_of_all() -> None:
    position = _played(Position.setup("10x10"), 12)
    # Lieberum's weights, as alphabeta's one_ply has them.
    tree = InvaderBot(playouts=20, root=10, fitted=0).search(position, deadline=0.0)
    start, length = tree.nodes[0, LIST], tree.nodes[0, LENGTH]
    board, mob, amazons, meta, zob = position.clone().arrays()
    every = one_ply(board, mob, amazons, meta, zob, make_scratch(board), position.move_indices())
    assert length == 10
    assert list(tree.scores[start : start + length]) == sorted(every, reverse=True)[:10]
    for move, score in zip(
        tree.ranked[start : start + length], tree.scores[start : start + length], strict=True
    ):
        after = position.clone()
        after.apply_index(int(move))
        assert score == -evaluate_position(after)


def _shutting_moves(position: Position) -> set[str]:
    """Plain search: the moves whose arrow lands next to a rival amazon that the queen step
    leaves with at most two free neighbours."""
    rival = position.amazons(position.side_to_move.other)
    found = set()
    for move in position.legal_moves:
        for amazon in rival:
            near = [
                sq
                for sq in _neighbours(position, amazon)
                if sq == move.origin or (sq != move.target and position.piece_at(sq) is None)
            ]
            if len(near) <= 2 and move.arrow in near:
                found.add(str(move))
    return found


def _neighbours(position: Position, square: Square) -> list[Square]:
    return [
        Square(square.file + df, square.rank + dr)
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if (df or dr)
        and 0 <= square.file + df < position.width
        and 0 <= square.rank + dr < position.height
    ]


@given(positions(max_size=6))
@settings(max_examples=150, deadline=None)
def test_ranking_always_holds_the_shots_back_and_the_arrows_that_shut_an_amazon_in(
    position: Position,
) -> None:
    # With no queen step's other arrows asked for, the ranking holds exactly the moves that
    # shoot back onto the square left and those whose arrow shuts a rival amazon in, or
    # nearly: a step's score (its shot back) does not show the latter. Each with its score.
    if position.is_terminal():
        return
    board, mob, amazons, meta, zob = position.clone().arrays()
    out = np.zeros(position.count_moves(), dtype=np.int64)
    scores = np.zeros(out.shape[0])
    count = rank_moves(
        board, mob, amazons, meta, zob, make_scratch(board), FITTED, 0, 10**6, out, scores
    )
    found = {str(position.decode(int(move))) for move in out[:count]}
    shots_back = {str(move) for move in position.legal_moves if move.arrow == move.origin}
    assert found == shots_back | _shutting_moves(position)
    assert list(scores[:count]) == sorted(scores[:count], reverse=True)
    for move, score in zip(out[:count], scores[:count], strict=True):
        after = position.clone()
        after.apply_index(int(move))
        assert score == -evaluate_position(after, FITTED)


def _two_plies(position: Position) -> float:
    """Plain search: the evaluation for the side to move after its best move and the
    opponent's best reply (a move that leaves the opponent no move wins outright)."""
    best = -math.inf
    for move in position.legal_moves:
        after = position.clone()
        after.apply(move)
        if after.is_terminal():
            return math.inf
        worst = math.inf
        for reply in after.legal_moves:
            again = after.clone()
            again.apply(reply)
            worst = min(worst, evaluate_position(again, FITTED))
        best = max(best, worst)
    return best


@given(positions(max_size=4))
@settings(max_examples=60, deadline=None)
def test_two_ply_over_every_move_is_the_plain_two_ply_minimax(position: Position) -> None:
    board, mob, amazons, meta, zob = position.clone().arrays()
    value = two_ply(board, mob, amazons, meta, zob, make_scratch(board), FITTED, 10**6, ALL)
    if position.is_terminal():
        assert value == evaluate_position(position, FITTED)
    else:
        assert value == pytest.approx(_two_plies(position), rel=1e-12, abs=1e-12)


def test_the_next_search_starts_from_the_subtree_of_the_move_and_the_reply() -> None:
    position = _played(Position.setup("8x8"), 4)
    bot = InvaderBot(playouts=500, exact=0)
    first = bot.search(position, deadline=0.0)
    move = first.most_visited(0)
    assert move is not None
    reply = first.most_visited(move)
    assert reply is not None
    after = position.clone()
    after.apply_index(int(first.nodes[move, MOVE]))
    after.apply_index(int(first.nodes[reply, MOVE]))
    kept = {int(first.nodes[n, MOVE]): int(first.nodes[n, VISITS]) for n in first.children(reply)}
    assert kept
    tree = bot.search(after, 0.0, first)
    assert tree.nodes[0, VISITS] == first.nodes[reply, VISITS] + 500
    assert tree.playouts == 500
    now = {int(tree.nodes[n, MOVE]): int(tree.nodes[n, VISITS]) for n in tree.children(0)}
    assert all(now[move] >= visits for move, visits in kept.items())
    # One ply down (the same bot asked for the opponent's move) is found too.
    one = position.clone()
    one.apply_index(int(first.nodes[move, MOVE]))
    assert bot.search(one, 0.0, first).nodes[0, VISITS] == first.nodes[move, VISITS] + 500
    # Three plies down, or another game: a fresh tree.
    later = after.clone()
    later.apply(next(iter(later.legal_moves)))
    for elsewhere in (later, Position.setup("8x8")):
        assert bot.search(elsewhere, 0.0, first).nodes[0, VISITS] == 500


def _game(reuse: int, plies: int) -> tuple[list[str], list[int]]:
    """The moves of two seeded bots from the 8x8 start, and their trees' root visits."""
    bots = [InvaderBot(playouts=300, seed=side, exact=0, reuse=reuse) for side in (0, 1)]
    position = Position.setup("8x8")
    moves, visits = [], []
    for _ in range(plies):
        bot = bots[position.current_player]
        decision = bot.choose(position, Budget(seconds=1.0))
        assert decision.nodes == 300
        assert bot.tree is not None or not reuse
        visits.append(int(bot.tree.nodes[0, VISITS]) if bot.tree is not None else 300)
        moves.append(str(decision.move))
        position.apply(decision.move)  # type: ignore[arg-type]
    return moves, visits


def test_moves_with_the_tree_kept_are_the_same_for_the_same_seeds() -> None:
    moves, visits = _game(1, 10)
    assert _game(1, 10) == (moves, visits)
    # The tree was kept at some move, and not at all without reuse.
    assert max(visits) > 300
    assert _game(0, 10)[1] == [300] * 10
