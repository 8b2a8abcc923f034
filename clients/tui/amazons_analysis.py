"""The analysis panel's notes on an Amazons position (`analysis.py` shows them): the regions
with their kind and counts, each side's mobility (its legal moves), the evaluation's territory
by queen distance (Lieberum's term, without its tempo bonus) and score, and, once the analyst
has them, each region's combinatorial value, their sum (its thermograph drawn when it is hot),
who wins with each side first and the winning moves. It uses the Amazons engine directly, as
the Amazons board does (docs/architecture.md).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from engine.amazons import Position, Region, RegionKind, Side
from engine.amazons.kernels import EMPTY
from engine.cgt.form import Form
from engine.cgt.thermograph_drawing import thermograph_text
from engine.errors import NotationError
from engine.game import GameState
from engine.search.evaluation import UNREACHABLE, evaluation_terms, queen_distance
from server.protocol import Analysis, Colour

__all__ = ["AmazonsNotes"]

SHOWN_MOVES: Final = 6  # winning moves listed; the rest are counted
# The sum's thermograph: drawn for a value this long at most, in about this many columns and
# rows of plot (docs/cgt.md#thermographs-drawn).
THERMOGRAPH_TEXT: Final = 200
THERMOGRAPH_WIDTH, THERMOGRAPH_HEIGHT = 20, 8
GLYPHS: Final = {Side.WHITE: "○", Side.BLACK: "●"}  # as the game screen marks the players


def _lead(points: float, to_move: Side) -> str:
    """A lead from the side to move's view as `white +3.2`, `black +1` or `even`."""
    if abs(points) < 0.05:
        return "even"
    side = to_move if points > 0 else to_move.other
    return f"{side} +{abs(points):.1f}"


def _amazons(region: Region) -> str:
    counts = ((Side.WHITE, len(region.white)), (Side.BLACK, len(region.black)))
    return " ".join(f"{GLYPHS[side]}{count}" for side, count in counts if count)


def _territory(position: Position) -> tuple[int, int, int]:
    """The evaluation's territory by queen distance (its term t1 without the tempo bonus): the
    empty squares White reaches in fewer queen moves than Black, those Black reaches first, and
    those both reach in as many."""
    board, _, amazons, meta, _ = position.arrays()
    white = np.empty(board.shape[0], dtype=np.int64)
    black = np.empty(board.shape[0], dtype=np.int64)
    queen_distance(board, amazons, meta, int(Side.WHITE), white)
    queen_distance(board, amazons, meta, int(Side.BLACK), black)
    empty = board == EMPTY
    tied = empty & (white == black) & (white < UNREACHABLE)
    return (
        int(np.count_nonzero(empty & (white < black))),
        int(np.count_nonzero(empty & (black < white))),
        int(np.count_nonzero(tied)),
    )


def _thermograph(value: str) -> list[str]:
    """The thermograph of the sum drawn small, when it is known and hot (a number's or an
    infinitesimal's is a bare mast, and says nothing the sum does not)."""
    if len(value) > THERMOGRAPH_TEXT:
        return []
    try:
        game = Form.parse(value)
    except NotationError:
        return []
    if game.temperature <= 0:
        return []
    drawn = thermograph_text(game, THERMOGRAPH_WIDTH, THERMOGRAPH_HEIGHT, legend=False)
    return ["", "Thermograph of the sum:", *drawn.splitlines()]


class AmazonsNotes:
    """The notes on `state`, an Amazons position, worked out at once (the engine's kernels)."""

    def __init__(self, state: GameState[object]) -> None:
        if not isinstance(state, Position):
            raise TypeError(f"Amazons notes are on Amazons positions, not {state!r}")
        position: Position = state
        self.position: Position = position
        self.to_move: Side = position.side_to_move
        self.regions: list[Region] = position.regions()
        other = Position.parse(f"{position.text().split()[0]} {self.to_move.other.letter}")
        self.mobility: dict[Side, int] = {
            self.to_move: position.count_moves(),
            self.to_move.other: other.count_moves(),
        }
        self.territory: tuple[int, int, int] = _territory(position)
        self.score: float = evaluation_terms(position).total

    def lines(self, analysis: Analysis | None) -> list[str]:
        """The notes, with `analysis` (of this position) woven in when given."""
        lines = [
            f"Mobility   ○ {self.mobility[Side.WHITE]}  ● {self.mobility[Side.BLACK]}",
            "Territory  ○ {}  ● {}  tied {}".format(*self.territory),
            f"Evaluation {_lead(self.score, self.to_move)}",
        ]
        if self.position.is_terminal():
            lines.append(f"{self.to_move} to move has no move: {self.to_move.other} wins")
        kinds = [r.kind for r in self.regions]
        # Contested first: where the game is still decided.
        order = (RegionKind.CONTESTED, RegionKind.SETTLED, RegionKind.DEAD)
        counts = ", ".join(f"{kinds.count(k)} {k}" for k in order if k in kinds)
        lines += ["", f"{counts}:", "region    squares amazons value"]
        values = analysis.regions if analysis is not None else ()
        for number, region in enumerate(self.regions):
            if region.kind is RegionKind.DEAD:
                continue
            value = values[number].value if number < len(values) else ""
            lines.append(
                f"{region.kind!s:<9} {len(region.squares):>7} {_amazons(region):<7} {value}"
            )
        if analysis is not None:
            lines += self._values(analysis)
        return lines

    def _values(self, analysis: Analysis) -> list[str]:
        """The sum, who wins with each side first and the winning moves (Left = Black). A sum
        not found is left out when the engine's note above says why."""
        lines = []
        if analysis.sum != "?" or analysis.note is None:
            lines = ["", f"Sum {analysis.sum} (positive favours black)"]
        if "?" in (analysis.sum, *(r.value for r in analysis.regions)) and analysis.note is None:
            lines.append("?: not found within the analyst's time")
        lines += _thermograph(analysis.sum)
        for side, winner in (
            (Colour.BLACK, analysis.black_first),
            (Colour.WHITE, analysis.white_first),
        ):
            if winner is not None:
                lines.append(f"{side.capitalize()} moving first: {winner} wins")
        best = analysis.best_moves
        if best is not None and not best:
            lines.append(f"Every move of {self.to_move}'s loses")
        elif best:
            more = f" (+{len(best) - SHOWN_MOVES} more)" if len(best) > SHOWN_MOVES else ""
            lines.append(f"Winning moves for {self.to_move}{more}:")
            lines.append("  " + " ".join(best[:SHOWN_MOVES]))
        return lines
