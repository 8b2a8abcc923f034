"""The Bao search bots (docs/bao.md, "Bots"), both searching `Board` values whose children
come from `engine.bao.board.legal_moves` (each move's board computed once, never replayed):

* `bao-alphabeta`, the earlier program's player: plain alpha-beta in minimax form over its
  six-term evaluation (`earlier_score`), deepened one ply at a time while the budget lasts;
* `bao-deep`: negamax alpha-beta with a principal-variation window, a transposition table,
  the table's move, captures and killer moves first, over `material_score`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any, Final

from engine.bao.board import Board, front_seeds, legal_moves
from engine.bao.notation import CCW, CW, PITS, Move
from engine.bao.position import BaoPosition
from engine.bao.rules import BaoRules
from engine.game import GameState
from engine.search.bao_evaluation import earlier_score, material_score
from engine.search.bot import Budget, Decision, now, require_moves
from engine.search.minimax import OutOfTimeError, alpha_beta
from engine.search.timing import think_time

__all__ = [
    "BAO_MOVES_LEFT",
    "MAX_DEPTH",
    "BaoAlphaBetaBot",
    "BaoDeepBot",
    "EarlierTree",
    "bao_position",
]

# Moves a Bao player expects still to make: bot games last some 40 to 80 plies.
BAO_MOVES_LEFT: Final = 20
MAX_DEPTH: Final = 32
# A won game scores WIN less the plies to it: beyond any evaluation, and sooner is better.
WIN: Final = 1000.0
DRAWN: Final = 50.0  # the earlier evaluation's middle: the ply cap reached
CHECK_EVERY: Final = 4  # nodes between reads of the clock (a node costs far more)


def bao_position(state: GameState[Any], spec: str) -> BaoPosition:
    """The Bao position a bot is asked to move in: NoMoveError when the game is over,
    TypeError for a state of another game."""
    require_moves(state)
    if not isinstance(state, BaoPosition):
        raise TypeError(f"bot {spec!r} plays only bao, not {type(state).__name__}")
    return state


def _winner(board: Board, rules: BaoRules) -> int | None:
    """The winner when a front row is empty; None otherwise (a position without a legal move
    is found by its empty move list)."""
    if not front_seeds(board, board.mover):
        return 1 - board.mover
    if not front_seeds(board, 1 - board.mover):
        return board.mover
    return None


def _won(winner: int, player: int, ply: int) -> float:
    """A won or lost game's value for `player`, `ply` plies from the root."""
    return WIN - ply if winner == player else -(WIN - ply)


class EarlierTree:
    """The earlier program's view of a Bao game for `alpha_beta`: moves in generation order,
    leaves scored by `earlier_score` for the root player (0 to 100, 50 drawn, a win above
    900)."""

    def __init__(self, rules: BaoRules, player: int) -> None:
        self.rules = rules
        self.player = player
        self.nodes = 0  # boards whose moves were listed or that were scored

    def children(self, node: Board) -> Sequence[tuple[str, Board]]:
        self.nodes += 1
        return [(str(move), board) for move, board in legal_moves(node, self.rules).items()]

    def value(self, node: Board, ply: int) -> float:
        self.nodes += 1
        winner = _winner(node, self.rules)
        if winner is not None:
            return _won(winner, self.player, ply)
        return earlier_score(node, self.player)

    def outcome(self, node: Board, ply: int) -> float:
        winner = _winner(node, self.rules)
        if winner is None and node.ply >= self.rules.ply_cap:
            return DRAWN
        return _won(1 - node.mover if winner is None else winner, self.player, ply)


class _Ordered(EarlierTree):
    """The root's moves in a given order (the last iteration's best first)."""

    def __init__(self, rules: BaoRules, player: int, root: Board, first: list[str]) -> None:
        super().__init__(rules, player)
        self.root = root
        self.first = first

    def children(self, node: Board) -> Sequence[tuple[str, Board]]:
        moves = super().children(node)
        if node is not self.root:
            return moves
        rank = {text: i for i, text in enumerate(self.first)}
        return sorted(moves, key=lambda item: rank.get(item[0], len(rank)))


class _Clock:
    """Says when the deadline has passed, reading the clock every CHECK_EVERY nodes."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.count = 0

    def __call__(self) -> bool:
        self.count += 1
        return self.count % CHECK_EVERY == 0 and now() >= self.deadline


def _check_depth(depth: int) -> None:
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must run from 0 (no limit) to {MAX_DEPTH}, not {depth}")


class BaoAlphaBetaBot:
    """The earlier program's alpha-beta over its six-term evaluation, to `depth` plies or, when
    `depth` is 0, one ply deeper at a time while the budget lasts (each iteration searches the
    last one's best move first). Ties go to a seeded shuffle of the moves."""

    def __init__(self, depth: int = 0, seed: int = 0) -> None:
        _check_depth(depth)
        self.spec = f"bao-alphabeta:depth={depth},seed={seed}"
        self.depth = depth
        self._rng = random.Random(seed)

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        position = bao_position(state, self.spec)
        root = position.board
        moves = [str(move) for move in position.moves()]
        self._rng.shuffle(moves)
        if len(moves) == 1:
            return Decision(position.parse_move(moves[0]), seconds=now() - start, pv=moves)
        deadline = math.inf if self.depth else start + think_time(budget, BAO_MOVES_LEFT)
        stop = None if self.depth else _Clock(deadline)
        best, score, completed, nodes = moves[0], None, 0, 0
        for depth in range(self.depth or 1, (self.depth or MAX_DEPTH) + 1):
            tree = _Ordered(position.rules, root.mover, root, [best, *moves])
            try:
                value, move = alpha_beta(tree, root, depth, stop=stop)
            except OutOfTimeError:
                nodes += tree.nodes
                break
            nodes += tree.nodes
            assert move is not None
            best, score, completed = move, value, depth
            if abs(value) > WIN / 2:
                break  # a proven result: deeper search finds no other
        return Decision(
            position.parse_move(best),
            seconds=now() - start,
            nodes=nodes,
            depth=completed,
            score=score,
            pv=[best],
        )

    def prepare(self) -> None:
        """Nothing to compile: the rules' kernels are compiled by the first legal move list."""
        BaoPosition().moves()


# The transposition table's bounds.
EXACT, LOWER, UPPER = range(3)
TABLE_LIMIT: Final = 400_000  # entries kept before the table is cleared
NO_MOVE: Final = -1


class _Table:
    """The transposition table: a board's searched depth, value, bound and best move, kept as
    plain tuples of numbers. Such tuples are left out of Python's cyclic garbage collection, so
    a full collection no longer walks the table: with boards and moves as objects, one took
    0.37 s after four games at 0.1 s a move, inside a move's budget, and grew with the table."""

    def __init__(self) -> None:
        self._entries: dict[tuple[Any, ...], tuple[int, float, int, int]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def get(self, board: Board) -> tuple[int, float, int, Move | None] | None:
        entry = self._entries.get(tuple(board))
        if entry is None:
            return None
        depth, value, bound, code = entry
        return depth, value, bound, _move_of(code)

    def put(self, board: Board, depth: int, value: float, bound: int, move: Move | None) -> None:
        self._entries[tuple(board)] = (depth, value, bound, _code_of(move))


def _code_of(move: Move | None) -> int:
    if move is None:
        return NO_MOVE
    return move.pit * 4 + (move.direction == CW) * 2 + move.safari


# Every move by its code, so that reading the table makes no new Move.
_MOVES: Final = tuple(
    Move(code >> 2, CW if code & 2 else CCW, bool(code & 1)) for code in range(4 * PITS)
)


def _move_of(code: int) -> Move | None:
    return None if code == NO_MOVE else _MOVES[code]


class BaoDeepBot:
    """Negamax alpha-beta with a principal-variation window over `material_score`, deepened
    while the budget lasts (or to `depth` plies), with a transposition table kept between
    moves, and the table's move, then captures (the opponent left with fewer seeds), then the
    ply's killer moves searched first."""

    def __init__(self, depth: int = 0, seed: int = 0) -> None:
        _check_depth(depth)
        self.spec = f"bao-deep:depth={depth},seed={seed}"
        self.depth = depth
        self._rng = random.Random(seed)
        self._table = _Table()
        self._killers: list[Move | None] = [None] * (MAX_DEPTH + 2)
        self._nodes = 0
        self._stop: _Clock | None = None
        self._rules = BaoRules()

    def choose(self, state: GameState[Any], budget: Budget) -> Decision:
        start = now()
        position = bao_position(state, self.spec)
        self._rules = position.rules
        root = position.board
        children = list(position.moves().items())
        self._rng.shuffle(children)
        if len(children) == 1:
            return Decision(children[0][0], seconds=now() - start, pv=[str(children[0][0])])
        if len(self._table) > TABLE_LIMIT:
            self._table.clear()
        self._killers = [None] * (MAX_DEPTH + 2)
        self._nodes = 0
        self._stop = None if self.depth else _Clock(start + think_time(budget, BAO_MOVES_LEFT))
        best, score, completed = children[0][0], None, 0
        for depth in range(1, (self.depth or MAX_DEPTH) + 1):
            try:
                value, move = self._root(root, children, depth, best)
            except OutOfTimeError:
                break
            best, score, completed = move, value, depth
            if abs(value) > WIN / 2:
                break
        return Decision(
            best,
            seconds=now() - start,
            nodes=self._nodes,
            depth=completed,
            score=score,
            pv=self._principal_variation(root, best, completed),
        )

    def prepare(self) -> None:
        BaoPosition().moves()

    def _root(
        self, root: Board, children: list[tuple[Move, Board]], depth: int, first: Move
    ) -> tuple[float, Move]:
        ordered = sorted(children, key=lambda item: item[0] != first)
        alpha, beta = -math.inf, math.inf
        best = ordered[0][0]
        for index, (move, child) in enumerate(ordered):
            if index == 0:
                value = -self._search(child, depth - 1, -beta, -alpha, 1)
            else:
                value = -self._search(child, depth - 1, -alpha - 1e-6, -alpha, 1)
                if value > alpha:
                    value = -self._search(child, depth - 1, -beta, -value, 1)
            if value > alpha:
                alpha, best = value, move
        self._table.put(root, depth, alpha, EXACT, best)
        return alpha, best

    def _search(self, board: Board, depth: int, alpha: float, beta: float, ply: int) -> float:
        self._nodes += 1
        if self._stop is not None and self._stop():
            raise OutOfTimeError
        winner = _winner(board, self._rules)
        if winner is not None:
            return _won(winner, board.mover, ply)
        if depth <= 0:
            return material_score(board)
        entry = self._table.get(board)
        table_move = None
        if entry is not None:
            stored_depth, value, bound, table_move = entry
            if (
                stored_depth >= depth
                and abs(value) < WIN / 2
                and (
                    bound == EXACT
                    or (bound == LOWER and value >= beta)
                    or (bound == UPPER and value <= alpha)
                )
            ):
                return value
        moves = legal_moves(board, self._rules)
        if not moves:
            return 0.0 if board.ply >= self._rules.ply_cap else -(WIN - ply)
        ordered = self._order(board, moves, table_move, ply)
        alpha0 = alpha
        best, best_move = -math.inf, None
        for index, (move, child) in enumerate(ordered):
            if index == 0:
                value = -self._search(child, depth - 1, -beta, -alpha, ply + 1)
            else:
                value = -self._search(child, depth - 1, -alpha - 1e-6, -alpha, ply + 1)
                if alpha < value < beta:
                    value = -self._search(child, depth - 1, -beta, -value, ply + 1)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if not _is_capture(board, child):
                            self._killers[ply] = move
                        break
        bound = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self._table.put(board, depth, best, bound, best_move)
        return best

    def _order(
        self, board: Board, moves: dict[Move, Board], table_move: Move | None, ply: int
    ) -> list[tuple[Move, Board]]:
        """The table's move, then by seeds taken from the opponent (most first), the killer
        move breaking ties among the rest."""
        killer = self._killers[ply]
        opponent = 1 - board.mover

        def rank(item: tuple[Move, Board]) -> tuple[int, int, int]:
            move, child = item
            return (
                move != table_move,
                _owned_by(child, opponent) - _owned_by(board, opponent),
                move != killer,
            )

        return sorted(moves.items(), key=rank)

    def _principal_variation(self, root: Board, move: Move, limit: int) -> list[str]:
        pv: list[str] = []
        board: Board | None = root
        while board is not None and move is not None and len(pv) < max(limit, 1):
            moves = legal_moves(board, self._rules)
            if move not in moves:
                break
            pv.append(str(move))
            board = moves[move]
            entry = self._table.get(board)
            if entry is None or entry[3] is None:
                break
            move = entry[3]
        return pv


def _owned_by(board: Board, player: int) -> int:
    base = player * 16
    return sum(board.pits[base : base + 16]) + board.stores[player]


def _is_capture(board: Board, child: Board) -> bool:
    """Whether the move from `board` to `child` took seeds from the opponent."""
    opponent = 1 - board.mover
    return _owned_by(child, opponent) < _owned_by(board, opponent)
