"""`arena explain`: one alpha-beta search to a fixed depth, printed as its tree, one line per
state considered (indented by ply, with its move and value) and one per cut-off (the bound
that caused it and the moves it spared), as the earlier Bao program showed its search.

Bao is searched as `bao-alphabeta` searches it (the earlier program's evaluation, moves in
generation order); Amazons by the same plain alpha-beta over the `alphabeta` bot's evaluation
(Lieberum's terms), without that bot's table and move ordering, so that the tree is the
textbook one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.amazons import Position
from engine.bao import BaoPosition
from engine.bao.board import Board
from engine.errors import NotationError
from engine.game import get_game
from engine.search.bao_bots import EarlierTree
from engine.search.evaluation import evaluate, make_scratch
from engine.search.minimax import SearchTrace, alpha_beta

__all__ = ["MAX_EXPLAIN_DEPTH", "AmazonsTree", "explain"]

MAX_EXPLAIN_DEPTH: Final = 8
AMAZONS_WIN: Final = 1.0e6


class AmazonsTree:
    """Amazons positions for `alpha_beta`: children as copies, leaves by the evaluation of
    `engine.search.evaluation`, turned to the root player's view."""

    def __init__(self, root: Position) -> None:
        self.player = root.current_player
        self.scratch = make_scratch(root.arrays()[0])

    def children(self, node: Position) -> Sequence[tuple[str, Position]]:
        found = []
        for move in node.legal_moves:
            child = node.clone()
            child.apply(move)
            found.append((str(move), child))
        return found

    def value(self, node: Position, ply: int) -> float:
        if node.is_terminal():
            return self.outcome(node, ply)
        board, _, amazons, meta, _ = node.arrays()
        score = float(evaluate(board, amazons, meta, self.scratch))
        return score if node.current_player == self.player else -score

    def outcome(self, node: Position, ply: int) -> float:
        # The side to move has no move and has lost.
        lost = AMAZONS_WIN - ply
        return -lost if node.current_player == self.player else lost


def explain(game: str, text: str | None, depth: int, lines: int = 200) -> str:
    """The printed tree of an alpha-beta search `depth` plies deep from position `text` (the
    game's start when None), at most `lines` lines of tree, then a summary."""
    if not 1 <= depth <= MAX_EXPLAIN_DEPTH:
        raise NotationError(
            f"depth {depth} is out of range: explain searches 1 to {MAX_EXPLAIN_DEPTH} plies"
        )
    rules = get_game(game)
    state = rules.new_state() if text is None else rules.parse_state(text)
    if state.is_terminal():
        raise NotationError(f"the game is over in {state.text()!r}: there is nothing to search")
    trace = SearchTrace(limit=lines)
    plies = f"{depth} pl{'y' if depth == 1 else 'ies'}"
    names = rules.info.player_names
    if isinstance(state, BaoPosition):
        player = state.current_player
        side = ("South", "North")[player]
        heading = (
            f"bao: {side} to move; alpha-beta {plies}; values are the earlier "
            f"program's evaluation for {side} (0 to 100, a win 1000 less its plies); "
            f"{side} maximises"
        )
        bao_tree = EarlierTree(state.rules, player)
        root: Board = state.board
        value, best = alpha_beta(bao_tree, root, depth, trace=trace)
    elif isinstance(state, Position):
        side = names[state.current_player]
        heading = (
            f"amazons: {side} to move; alpha-beta {plies}; values are the evaluation "
            f"for {side} (a win 1000000 less its plies); {side} maximises"
        )
        value, best = alpha_beta(AmazonsTree(state), state, depth, trace=trace)
    else:
        raise NotationError(f"explain has no evaluation for the game {game!r}")
    out = [state.text(), heading, *trace.lines]
    if trace.hidden:
        out.append(f"... {trace.hidden} more lines not shown (--lines raises the limit)")
    out.append(
        f"best {best} = {value:.2f}: {trace.nodes} states considered, {trace.cutoffs} cut-offs "
        f"spared {trace.pruned} moves"
    )
    return "\n".join(out)
