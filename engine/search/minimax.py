"""Plain alpha-beta (minimax form) over any game tree, with an optional trace of every state
it considers and every cut-off it makes: the search of the `bao-alphabeta` bot and of
`arena explain`.

Values are from the root player's view: the player to move at the root maximises, the other
minimises. A `Tree` gives a node's children with their move text and scores nodes; the search
never copies or undoes anything, so a node is whatever value the tree chooses (a Bao `Board`,
an Amazons `Position`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

__all__ = ["OutOfTimeError", "SearchTrace", "Tree", "alpha_beta"]

N = TypeVar("N")


class OutOfTimeError(Exception):
    """The search's `stop` said the time is up; the search is abandoned."""


class Tree(Protocol[N]):
    def children(self, node: N) -> Sequence[tuple[str, N]]:
        """The legal moves of `node` as (move text, the node it leads to); empty when the game
        is over."""
        ...

    def value(self, node: N, ply: int) -> float:
        """The static value of `node` at the horizon, `ply` plies below the root (root
        player's view)."""
        ...

    def outcome(self, node: N, ply: int) -> float:
        """The value of `node`, which has no legal move: the game's result (a win sooner
        worth more)."""
        ...


@dataclass(slots=True)
class SearchTrace:
    """What an alpha-beta search did, as lines of text (at most `limit` kept) and counts."""

    limit: int = 200
    lines: list[str] = field(default_factory=list)
    hidden: int = 0  # lines past the limit
    nodes: int = 0
    cutoffs: int = 0
    pruned: int = 0  # moves never searched because of a cut-off

    def write(self, ply: int, text: str) -> None:
        if len(self.lines) < self.limit:
            self.lines.append("  " * ply + text)
        else:
            self.hidden += 1


def _text(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:.2f}"


def alpha_beta(
    tree: Tree[N],
    node: N,
    depth: int,
    alpha: float = -math.inf,
    beta: float = math.inf,
    ply: int = 0,
    trace: SearchTrace | None = None,
    stop: Callable[[], bool] | None = None,
    move: str = "",
) -> tuple[float, str | None]:
    """The minimax value of `node` searched `depth` plies deep within (alpha, beta), fail-soft,
    and the best move's text (None at a leaf). `stop` is asked at every node; OutOfTimeError when
    it says so. `move` is the text of the move into `node`, for the trace."""
    if stop is not None and stop():
        raise OutOfTimeError
    if trace is not None:
        trace.nodes += 1
    if depth <= 0:
        return tree.value(node, ply), None
    children = tree.children(node)
    if not children:
        return tree.outcome(node, ply), None
    maximising = ply % 2 == 0
    if trace is not None and ply > 0:
        to_move = "max" if maximising else "min"
        trace.write(
            ply - 1, f"{ply} {move}  ({to_move} to move, window {_text(alpha)}..{_text(beta)})"
        )
    best = -math.inf if maximising else math.inf
    best_move: str | None = None
    for index, (move_text, child) in enumerate(children):
        value, _ = alpha_beta(tree, child, depth - 1, alpha, beta, ply + 1, trace, stop, move_text)
        if trace is not None:
            trace.write(ply, f"{ply + 1} {move_text} = {_text(value)}")
        if (value > best) if maximising else (value < best):
            best, best_move = value, move_text
        if maximising:
            alpha = max(alpha, value)
        else:
            beta = min(beta, value)
        if alpha >= beta:
            rest = [text for text, _ in children[index + 1 :]]
            if trace is not None and rest:
                trace.cutoffs += 1
                trace.pruned += len(rest)
                if maximising:
                    why = f"beta cut-off at {_text(value)} >= {_text(beta)}"
                else:
                    why = f"alpha cut-off at {_text(value)} <= {_text(alpha)}"
                trace.write(ply, f"  pruned: {why}: {', '.join(rest)} not searched")
            break
    return best, best_move
