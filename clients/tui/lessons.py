"""The rules of Amazons in short steps on a 6x6 board, for `arena tutorial`: each step a few
lines, a position, and a move of the kind it teaches, which `Step.refusal` checks (saying why
a move is not of that kind). Amazons-specific, as a board is: it reads moves and regions
through the Amazons engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.amazons import Move, Position, Side, Square

__all__ = ["STEPS", "Step"]


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the rules: `text` says what to learn and which move to make in `position`
    (position text); `judge` answers why a legal move is not the move asked for, or None when
    it is; `done` is said once it is made."""

    title: str
    text: str
    position: str
    judge: Callable[[Position, Move], str | None]
    done: str

    def refusal(self, move_text: str) -> str | None:
        """Why the move `move_text` is not the move this step asks for: the engine's words
        when it is not legal at all, None when it is the kind of move asked for."""
        position = Position.parse(self.position)
        try:
            move = position.parse_move(move_text)
        except ValueError as error:
            return str(error)
        return self.judge(position, move)


def _diagonal(position: Position, move: Move) -> str | None:
    files = abs(move.target.file - move.origin.file)
    ranks = abs(move.target.rank - move.origin.rank)
    if files != ranks:
        way = "along its rank" if ranks == 0 else "along its file"
        return f"{move.origin}-{move.target} goes straight {way}: this step asks for a diagonal"
    return None


def _as_far_as_it_goes(position: Position, move: Move) -> str | None:
    if move.origin != Square.parse("a1") or move.target.file != 0:
        return "this step asks for the amazon on a1 to go up the a-file"
    if move.target != Square.parse("a4"):
        return f"it can go further than {move.target}: up to a4, just below the arrow on a5"
    return None


def _arrow_back(position: Position, move: Move) -> str | None:
    if move.arrow != move.origin:
        return (
            f"the arrow landed on {move.arrow}: this step asks for it to land on "
            f"{move.origin}, the square the amazon left"
        )
    return None


def _after(position: Position, move: Move) -> Position:
    after = position.clone()
    after.apply(move)
    return after


def _moves_from(position: Position, square: Square) -> int:
    """The legal moves the amazon on `square` would have with its side to move."""
    side = Side.BLACK if position.piece_at(square) == Side.BLACK.piece else Side.WHITE
    mover = Position.parse(f"{position.text().split()[0]} {side.letter}")
    return sum(1 for move in mover.legal_moves if move.origin == square)


def _trapped(position: Position, move: Move) -> str | None:
    after = _after(position, move)
    count = _moves_from(after, Square.parse("f6"))
    if count:
        return f"the black amazon on f6 can still move ({count} moves): its one way out is e5"
    return None


def _walled_off(position: Position, move: Move) -> str | None:
    after = _after(position, move)
    for region in after.regions():
        if region.black and region.white:
            return (
                f"the black amazon on {region.black[0]} still shares a region with your amazon "
                f"on {region.white[0]}: close the gap in the wall"
            )
    return None


def _last_move_taken(position: Position, move: Move) -> str | None:
    after = _after(position, move)
    if not after.is_terminal():
        return f"black can still move ({after.count_moves()} moves): take away the last one"
    return None


def _reachable(position: Position, side: Side) -> int:
    """The empty squares of regions where `side` has amazons and the other side has none."""
    return sum(
        region.empty
        for region in position.regions()
        if (region.white if side is Side.WHITE else region.black)
        and not (region.black if side is Side.WHITE else region.white)
    )


def _no_square_wasted(position: Position, move: Move) -> str | None:
    before = _reachable(position, Side.WHITE)
    after = _reachable(_after(position, move), Side.WHITE)
    if after < before - 1:
        return (
            f"that walls off squares of white's own region: it has {after} left to move to, "
            f"not {before - 1}, and black would move last"
        )
    return None


STEPS: tuple[Step, ...] = (
    Step(
        "How an amazon moves",
        "An amazon moves like a chess queen: any distance along a rank, file or diagonal. "
        "Move the amazon on c1 diagonally, then shoot its arrow anywhere (next step).",
        "5B/6/6/6/6/2W3 w",
        _diagonal,
        "That is a queen's move along a diagonal.",
    ),
    Step(
        "Nothing jumps",
        "An amazon never passes an amazon or an arrow (\u00d7, or x in ASCII). Move the "
        "amazon on a1 up the a-file as far as it can go.",
        "5B/x5/6/6/6/W5 w",
        _as_far_as_it_goes,
        "a4 is as far as it goes: the arrow on a5 blocks the way.",
    ),
    Step(
        "The arrow",
        "Having moved, an amazon shoots an arrow like a queen from where it landed: that "
        "square is burnt for good. Move the amazon on b2 and shoot back at b2.",
        "5B/6/3x2/6/1W4/6 w",
        _arrow_back,
        "An arrow may land on or pass the square just left.",
    ),
    Step(
        "Walls",
        "Arrows build walls. The black amazon on f6 has one way out, e5: make a move after "
        "which it cannot move at all.",
        "B3xB/5x/6/6/1W4/6 w",
        _trapped,
        "The amazon on f6 is walled in for good.",
    ),
    Step(
        "Regions",
        "Walls split the board into regions, and no amazon crosses from one to another. "
        "Close the gap in the wall on rank 3: shut black in the smaller region.",
        "6/2W3/6/xxxxx1/6/B5 w",
        _walled_off,
        "Black has 11 squares below the wall, white 17 above.",
    ),
    Step(
        "How the game ends",
        "Whoever cannot move on their turn loses; there are no draws. Black's amazon on a6 "
        "is walled in, the one on f1 has one way out: leave black no move.",
        "Bx4/xx4/2W3/6/5x/4xB w",
        _last_move_taken,
        "Black cannot move and loses.",
    ),
    Step(
        "Counting",
        "At the end each side has one move per empty square of its own region: white 5, "
        "black 4, white to move. Make a move that walls off none of white's squares.",
        "xxxxB1/xxxx2/xxxx1x/xxxxxx/xxxxxx/W5 w",
        _no_square_wasted,
        "4 moves each now, black to move: black runs out first.",
    ),
)
