"""The endgame exercises of `arena tutorial`: small Amazons endgames where the side to move has
a winning move and losing ones. The exact solver (`engine.cgt.amazons`) says which moves
win, and answers each losing one with the opponent's reply that refutes it, in one line of why.

Solving takes a moment on a cold start (numba's compiled kernels load), so the app solves
every exercise up front in one worker thread, the only one that touches the solver's memo.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.amazons import Move, Position, Side
from engine.cgt import amazons

__all__ = ["EXERCISES", "Exercise", "Reply", "Solution", "solve"]


@dataclass(frozen=True, slots=True)
class Exercise:
    """An endgame (`position`, position text) whose side to move has a winning move: `text`
    sets the task, `why` says why the winning moves win."""

    title: str
    text: str
    position: str
    why: str


@dataclass(frozen=True, slots=True)
class Reply:
    """The opponent's answer to a losing move: `move`, the position after it (text) and, in
    one line, why the user's side now loses."""

    move: str
    position: str
    why: str


@dataclass(frozen=True, slots=True)
class Solution:
    """What the solver says of an exercise: the moves that win (move text) and, for every
    losing move, its refutation."""

    winners: frozenset[str]
    replies: Mapping[str, Reply]


EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "The shared square",
        "White to move. Each side has 3 squares of its own; on rank 3 one square lies "
        "between two amazons. Find the winning move.",
        "W1x1B1/2xxx1/xxxxxx/W1Bxxx/xxxxxx/xxxxxx w",
        "the shared square is one extra move: whoever takes it moves last (the region was "
        "worth *, a star)",
    ),
    Exercise(
        "Wall it off",
        "White to move. Black has 3 squares of its own; on rank 1 the two amazons share a "
        "corridor. Find a move that wins.",
        "xxxB2/xxxxx1/xxxxxx/xxxxxx/xxxxxx/W4B w",
        "the black amazon on f1 is walled in, and the corridor's squares are yours",
    ),
    Exercise(
        "The bigger fight first",
        "White to move. Each side owns 2 squares; two corridors are shared, of 2 and 3 "
        "empty squares. Find a move that wins.",
        "B2xW1/xxxxx1/xxxxxx/W2Bxx/xxxxxx/W3Bx w",
        "the longer corridor is the hotter fight (worth +-2 against +-1): play there first, "
        "and answer black in the shorter one",
    ),
)


def solve(exercise: Exercise) -> Solution:
    """The exercise's winning moves and the refutation of each losing move, as the exact
    solver finds them."""
    position = Position.parse(exercise.position)
    winners = frozenset(str(move) for move in amazons.best_moves(position))
    replies = {
        str(move): _refutation(position, move)
        for move in position.legal_moves
        if str(move) not in winners
    }
    return Solution(winners, replies)


def _refutation(start: Position, losing: Move) -> Reply:
    """The reply to `losing` that keeps the opponent's win with the most to spare (the
    greatest mean value for the opponent), so the lesson shows the point of it."""
    position = start.clone()
    user = position.side_to_move
    position.apply(losing)
    winners = set(amazons.best_moves(position))
    sign = 1 if user is Side.WHITE else -1  # the opponent's gain: Left (black) counts positive
    reply = max(
        (option for option in amazons.move_values(position) if option.move in winners),
        key=lambda option: sign * option.value.mean,
    ).move
    position.apply(reply)
    return Reply(str(reply), position.text(), _why_lost(position, user))


def _why_lost(position: Position, user: Side) -> str:
    if position.is_terminal():
        return f"{user} has no move left and loses"
    values = [amazons.region_value(region) for region in position.regions()]
    if all(value.is_integer for value in values):
        # An integer n is n moves to spare for black (for white when negative): each side
        # has its regions' share, and the side to move runs out first on a tie.
        counts = [int(value.mean) for value in values]
        black, white = sum(max(v, 0) for v in counts), sum(max(-v, 0) for v in counts)
        mine, theirs = (white, black) if user is Side.WHITE else (black, white)
        return (
            f"{user} has {_moves(mine)} left, {user.other} {_moves(theirs)}: {user} runs out first"
        )
    total = amazons.position_value(position)
    return f"the position is worth {total} to black: with {user} to move, {user.other} wins"


def _moves(count: int) -> str:
    return "1 move" if count == 1 else f"{count} moves"
