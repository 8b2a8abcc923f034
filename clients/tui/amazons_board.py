"""The Amazons board of the terminal client, and the one module of `clients/` that uses the
Amazons engine directly: a board is what a game adds to a user interface
(docs/architecture.md), and this one needs the engine's own legal targets for each step of a
move and its regions, to dim the squares no amazon can reach.

`board_rows` draws the board as lines of marked text, which `board_text` gives plain (for tests
and for reading) and `AmazonsBoard`, the widget, colours; `MoveSteps` makes a move square by
square: the amazon, where it goes, where it shoots.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final, cast

import numpy as np
import numpy.typing as npt
from rich.style import Style
from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.geometry import Size

from clients.tui.board import BoardWidget
from engine.amazons import Move, Position, RegionKind, Side, Square
from engine.amazons.kernels import SQUARE_MASK
from engine.game import GameState

__all__ = [
    "ASCII",
    "UNICODE",
    "AmazonsBoard",
    "Glyphs",
    "MoveSteps",
    "board_rows",
    "board_text",
    "dead_squares",
]

FILES: Final = "abcdefghijklmnopqrstuvwxyz"
# Each square is three columns, a mark either side of its symbol; the ranks take three columns
# on each side of the board (`10 `), so a 10x10 board is 36 columns by 12 lines.
SQUARE_WIDTH: Final = 3
MARGIN: Final = 3
# Where the terminal has room, the widget draws each square five columns by two lines: a board
# as large again, read from further away (a 10x10 board is 56 columns by 22 lines then).
LARGE_WIDTH: Final = 5
LARGE_HEIGHT: Final = 2


@dataclass(frozen=True, slots=True)
class Glyphs:
    """The characters of a board: the two sides' amazons, a burnt square, an empty light and
    dark square and an empty square no amazon can reach (the shading that stands in for
    colour), a square the next step may pick, and the marks either side of the cursor, of a
    square picked for the move being made, of the queued premove's squares, of the last
    move's squares and of a move shown from the analysis (the best line's, the better one)."""

    white: str
    black: str
    burnt: str
    light: str
    dark: str
    dead: str
    target: str
    cursor: tuple[str, str]
    picked: tuple[str, str]
    premove: tuple[str, str]
    last: tuple[str, str]
    hint: tuple[str, str] = ("<", ">")


# The burnt square is a multiplication sign, a dead one a light shade, the last move's marks
# single angle quotes.
UNICODE: Final = Glyphs(
    "♕",
    "♛",
    "\u00d7",
    " ",
    "·",
    "\u2591",
    "•",
    ("[", "]"),
    ("(", ")"),
    ("{", "}"),
    ("\u2039", "\u203a"),
)
ASCII: Final = Glyphs(
    "W", "B", "x", " ", ".", ":", "+", ("[", "]"), ("(", ")"), ("{", "}"), ("<", ">")
)

# A square's kinds, each a component class `board--KIND` of the widget; later kinds win.
Row = list[tuple[str, tuple[str, ...]]]


def dead_squares(position: Position) -> frozenset[Square]:
    """The empty squares of regions without an amazon: no amazon can ever reach them."""
    return frozenset(
        square
        for region in position.regions()
        if region.kind is RegionKind.DEAD
        for square in region.squares
    )


def board_rows(
    position: Position,
    *,
    last_move: Move | None = None,
    premove: Move | None = None,
    picks: Sequence[Square] = (),
    targets: Collection[Square] = (),
    cursor: Square | None = None,
    dead: Collection[Square] | None = None,
    glyphs: Glyphs = UNICODE,
    shade: bool = True,
    flipped: bool = False,
    hint: Move | None = None,
) -> list[Row]:
    """The board with coordinates on all four sides, as lines of (text, kinds) pieces. `picks`
    are the squares picked so far for a move (with the amazon drawn where it goes once it has
    a destination), `targets` the squares the next step may pick, `premove` the move queued
    for the user's next turn, `hint` a move shown from the analysis. With `shade`, dark
    empty squares are drawn with a dot and dead ones with their own glyph, so the board reads
    without colour. `flipped` turns the board round, Black's side at the bottom."""
    if dead is None:
        dead = dead_squares(position)
    moved: dict[Square, str | None] = {}
    if len(picks) >= 2:
        moved = {picks[0]: None, picks[1]: position.piece_at(picks[0])}
    last = () if last_move is None else (last_move.origin, last_move.target, last_move.arrow)
    queued = () if premove is None else (premove.origin, premove.target, premove.arrow)
    hinted = () if hint is None else (hint.origin, hint.target, hint.arrow)
    file_order = list(range(position.width))
    rank_order = list(reversed(range(position.height)))
    if flipped:
        file_order.reverse()
        rank_order.reverse()
    files = "".join(f" {FILES[f]} " for f in file_order)
    edge: Row = [(" " * MARGIN + files + " " * MARGIN, ("coordinate",))]
    rows = [edge]
    for rank in rank_order:
        row: Row = [(f"{rank + 1:>2} ", ("coordinate",))]
        for file in file_order:
            square = Square(file, rank)
            piece = moved[square] if square in moved else position.piece_at(square)
            kinds = ["dark" if (file + rank) % 2 == 0 else "light"]
            if square in dead:
                kinds.append("dead")
            if square in targets:
                kinds.append("target")
            if square in last:
                kinds.append("last")
            left, right = " ", " "
            if square == cursor:
                (left, right), mark = glyphs.cursor, "cursor"
            elif square in picks:
                (left, right), mark = glyphs.picked, "picked"
            elif square in queued:
                (left, right), mark = glyphs.premove, "premove"
            elif square in hinted:
                (left, right), mark = glyphs.hint, "hint"
            elif square in last:
                (left, right), mark = glyphs.last, ""
            else:
                mark = ""
            if mark:
                kinds.append(mark)
            if piece == "W":
                symbol, kind = glyphs.white, "white"
            elif piece == "B":
                symbol, kind = glyphs.black, "black"
            elif piece == "x":
                symbol, kind = glyphs.burnt, "burnt"
            elif square in targets:
                symbol, kind = glyphs.target, ""
            elif shade and square in dead:
                symbol, kind = glyphs.dead, ""
            else:
                symbol = glyphs.dark if shade and kinds[0] == "dark" else glyphs.light
                kind = ""
            if kind == "burnt":
                kinds.insert(1, kind)
            square_kinds = tuple(kinds)
            # The marks take the mark's colour, the symbol its piece's.
            row.append((left, square_kinds))
            row.append(
                (symbol, (*square_kinds, kind) if kind and kind != "burnt" else square_kinds)
            )
            row.append((right, square_kinds))
        row.append((f" {rank + 1:<2}", ("coordinate",)))
        rows.append(row)
    rows.append(edge)
    return rows


def board_text(
    position: Position,
    *,
    last_move: Move | None = None,
    premove: Move | None = None,
    picks: Sequence[Square] = (),
    targets: Collection[Square] = (),
    cursor: Square | None = None,
    glyphs: Glyphs = UNICODE,
    flipped: bool = False,
) -> list[str]:
    """The board as plain lines, shaded by characters, with the marks `board_rows` takes."""
    rows = board_rows(
        position,
        last_move=last_move,
        premove=premove,
        picks=picks,
        targets=targets,
        cursor=cursor,
        glyphs=glyphs,
        flipped=flipped,
    )
    return ["".join(text for text, _ in row) for row in rows]


def enlarged(rows: list[Row]) -> list[Row]:
    """`rows` (as `board_rows` gives them) with each square LARGE_WIDTH columns by
    LARGE_HEIGHT lines: its symbol and marks on its first line, its colour on both."""
    large: list[Row] = []
    last = len(rows) - 1
    for number, row in enumerate(rows):
        if number in (0, last):
            (text, kinds), *_ = row
            files = "".join(f"{file:^{LARGE_WIDTH}}" for file in text.split())
            large.append([(" " * MARGIN + files + " " * MARGIN, kinds)])
            continue
        (rank, rank_kinds), *squares, right = row
        first: Row = [(rank, rank_kinds)]
        rest: Row = [(" " * len(rank), rank_kinds)]
        for at in range(0, len(squares), 3):
            (left, kinds), symbol, (mark, _) = squares[at : at + 3]
            pad = " " * ((LARGE_WIDTH - 3) // 2)
            first += [(left + pad, kinds), symbol, (pad + mark, kinds)]
            rest.append((" " * LARGE_WIDTH, kinds))
        first.append(right)
        rest.append((" " * len(right[0]), right[1]))
        large += [first, *[rest] * (LARGE_HEIGHT - 1)]
    return large


class MoveSteps:
    """A move made square by square in `position`: first an amazon of the side to move, then
    where it goes, then where it shoots, each chosen among the engine's legal moves. `back`
    takes the last pick back."""

    def __init__(self, position: Position | None, picks: Sequence[Square] = ()) -> None:
        self.position = position
        moves: npt.NDArray[np.int64] = (
            np.empty(0, dtype=np.int64) if position is None else position.move_indices()
        )
        self._origins = moves & SQUARE_MASK
        self._targets = (moves >> 10) & SQUARE_MASK
        self._arrows = moves >> 20
        self.picks: list[Square] = []
        # Picks made in an earlier position stay while they still begin a legal move.
        for square in picks:
            if square not in self.targets():
                break
            self.picks.append(square)

    def targets(self) -> frozenset[Square]:
        """The squares the next step may pick."""
        position = self.position
        if position is None:
            return frozenset()
        chosen = np.ones(len(self._origins), dtype=np.bool_)
        for picked, column in zip(self.picks, (self._origins, self._targets), strict=False):
            chosen &= column == position.index(picked)
        column = (self._origins, self._targets, self._arrows)[len(self.picks)]
        return frozenset(position.square(int(i)) for i in np.unique(column[chosen]))

    def pick(self, square: Square) -> Move | None:
        """Pick `square` for the next step: the move once it is whole (and the steps start
        again), else None. Another amazon of the side to move, picked after its first step,
        starts the move again from it; any other square that is not a target does nothing."""
        if square in self.targets():
            self.picks.append(square)
        elif self.picks and self.position is not None:
            origins = MoveSteps(self.position)
            if square in origins.targets():
                self.picks = [square]
        if len(self.picks) < 3:
            return None
        origin, target, arrow = self.picks
        self.picks = []
        return Move(origin, target, arrow)

    def back(self) -> bool:
        """Take the last pick back; False when there was none."""
        if not self.picks:
            return False
        self.picks.pop()
        return True


_CSS_PATH: Final = Path(__file__).with_suffix(".tcss")


class AmazonsBoard(BoardWidget):
    """The Amazons board: arrow keys move a cursor and Enter or Space picks the square under
    it, as a click does; the squares the next step may pick are highlighted and Esc steps
    back. While the other side is to move, a move picked is a premove, checked on the board
    as it stands (the app queues it: `clients.tui.premove`)."""

    DEFAULT_CSS = _CSS_PATH.read_text()
    MOVE_EXAMPLE: ClassVar[str] = "d1-d7/g7"
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        f"board--{kind}"
        for kind in (
            "coordinate",
            "light",
            "dark",
            "dead",
            "burnt",
            "target",
            "last",
            "picked",
            "premove",
            "hint",
            "cursor",
            "white",
            "black",
        )
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(0, 1)", "Cursor up", show=False),
        Binding("down", "cursor(0, -1)", "Cursor down", show=False),
        Binding("left", "cursor(-1, 0)", "Cursor left", show=False),
        Binding("right", "cursor(1, 0)", "Cursor right", show=False),
        Binding("enter,space", "pick", "Pick square"),
        Binding("escape", "back", "Step back"),
    ]

    def __init__(
        self,
        *,
        ascii: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(ascii=ascii, name=name, id=id, classes=classes)
        self.glyphs = ASCII if ascii else UNICODE
        self.cursor = Square(0, 0)
        self.steps = MoveSteps(None)
        self._dead: frozenset[Square] = frozenset()
        self._last: Move | None = None
        self._entry: Position | None = None

    # -- the interface ---------------------------------------------------------------------

    @property
    def position(self) -> Position | None:
        state = self.state
        if state is not None and not isinstance(state, Position):
            raise TypeError(f"the Amazons board shows Amazons positions, not {state!r}")
        return state

    def state_changed(self) -> None:
        position = self.position
        self._last = None
        self._entry = None
        self._dead = frozenset()
        if position is not None:
            self._dead = dead_squares(position)
            if self.last_move is not None:
                self._last = Move.parse(self.last_move)
            self._entry = None if self.ended else _entry_position(position, self.player)
            if not (0 <= self.cursor.file < position.width):
                self.cursor = Square(0, 0)
            if not (0 <= self.cursor.rank < position.height):
                self.cursor = Square(self.cursor.file, 0)
        self.steps = MoveSteps(self._entry, self.steps.picks)

    @property
    def entry_state(self) -> GameState[object] | None:
        """The position on the user's turn; while the other side is to move, the board as it
        stands with the user to move (a premove); None for a spectator or a finished game."""
        return cast(GameState[object] | None, self._entry)

    # -- drawing ---------------------------------------------------------------------------

    def large_size(self) -> Size | None:
        position = self.position
        if position is None:
            return None
        return Size(2 * MARGIN + LARGE_WIDTH * position.width, LARGE_HEIGHT * position.height + 2)

    def rows(self) -> list[Row]:
        """What the widget draws now, as `board_rows` gives it (`enlarged` when large)."""
        position = self.position
        if position is None:
            return []
        entering = self._entry is not None
        rows = board_rows(
            position,
            last_move=self._last,
            premove=None if self.premove is None else Move.parse(self.premove),
            hint=None if self.hint is None else Move.parse(self.hint),
            picks=self.steps.picks,
            targets=self.steps.targets() if entering else (),
            cursor=self.cursor if entering and self.has_focus else None,
            dead=self._dead,
            glyphs=self.glyphs,
            shade=self.app.no_color,
            flipped=self.flipped,
        )
        return enlarged(rows) if self.large else rows

    def render(self) -> Text:
        styles: dict[tuple[str, ...], Style] = {}
        text = Text(no_wrap=True, overflow="crop")
        for number, row in enumerate(self.rows()):
            if number:
                text.append("\n")
            for piece, kinds in row:
                style = styles.get(kinds)
                if style is None:
                    style = Style()
                    for kind in kinds:
                        style += self.get_component_rich_style(f"board--{kind}", partial=True)
                    styles[kinds] = style
                text.append(piece, style)
        return text

    def get_content_width(self, container: Size, viewport: Size) -> int:
        position = self.position
        if position is None:
            return 0
        return 2 * MARGIN + (LARGE_WIDTH if self.large else SQUARE_WIDTH) * position.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        position = self.position
        if position is None:
            return 0
        return (LARGE_HEIGHT if self.large else 1) * position.height + 2

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- picking ---------------------------------------------------------------------------

    def action_cursor(self, files: int, ranks: int) -> None:
        position = self.position
        if position is None:
            return
        if self.flipped:
            files, ranks = -files, -ranks
        self.cursor = Square(
            min(max(self.cursor.file + files, 0), position.width - 1),
            min(max(self.cursor.rank + ranks, 0), position.height - 1),
        )
        self.refresh()

    def action_pick(self) -> None:
        self.pick(self.cursor)

    def action_back(self) -> None:
        if not self.steps.back():
            raise SkipAction()
        self.refresh()

    def pick(self, square: Square) -> None:
        """Pick `square` for the move being made, as Enter on it or a click does."""
        if self._entry is None:
            return
        move = self.steps.pick(square)
        self.refresh()
        if move is not None:
            self.choose(str(move))

    def on_click(self, event: events.Click) -> None:
        position = self.position
        offset = event.get_content_offset(self)
        if position is None or offset is None:
            return
        large = self.large
        file = (offset.x - MARGIN) // (LARGE_WIDTH if large else SQUARE_WIDTH)
        rank = position.height - 1 - (offset.y - 1) // (LARGE_HEIGHT if large else 1)
        if self.flipped:
            file, rank = position.width - 1 - file, position.height - 1 - rank
        if offset.x >= MARGIN and 0 <= file < position.width and 0 <= rank < position.height:
            self.cursor = Square(file, rank)
            self.pick(self.cursor)


def _entry_position(position: Position, player: int | None) -> Position | None:
    """The position the user moves in: `position` on the user's turn, else its board with the
    user to move (a premove); None for a spectator or when the user has no legal move."""
    if player is None or position.is_terminal():
        return None
    if position.current_player == player:
        return position
    board = position.text().split()[0]
    entry = Position.parse(f"{board} {Side(player).letter}")
    return None if entry.is_terminal() else entry
