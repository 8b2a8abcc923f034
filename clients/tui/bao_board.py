"""The Bao board of the terminal client: the 4x8 pits with their seeds, both stores, the houses
while owned, the takasia mark, whose turn, and the last move (its pit, and every pit it sowed
or emptied); a move is picked by pit, then by direction among the legal ones.

`bao_rows` draws the board as lines of marked text, which `bao_text` gives plain (for tests and
for reading) and `BaoBoard`, the widget, colours. The side the board is seen from sits at the
bottom, its front row next to the middle line, so its pits read A1..A8 left to right and `>`
(clockwise) goes right along the front row, as a player sitting there sees them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Final, cast

from rich.style import Style
from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.geometry import Size

from clients.tui.board import BoardWidget
from engine.bao import BaoPosition, Move
from engine.bao.board import HOUSE, NO_PIT, Board, sowing_steps
from engine.bao.notation import PITS, pit_label

__all__ = [
    "ASCII",
    "UNICODE",
    "BaoBoard",
    "BaoGlyphs",
    "Pit",
    "bao_rows",
    "bao_text",
    "changed_pits",
]

# A pit is five columns: a mark, two for the seeds, a flag (house, takasia), a mark; the rows'
# names take three columns on the left, so the board is 43 columns by 10 lines.
PIT_WIDTH: Final = 5
MARGIN: Final = 3
WIDTH: Final = MARGIN + 8 * PIT_WIDTH
# The lines of the board, top to bottom: the top side's store, its column numbers, its back
# and front rows, the middle, the bottom side's front and back rows, its column numbers, its
# store, and the line that says what to pick.
TOP_BACK, TOP_FRONT, BOTTOM_FRONT, BOTTOM_BACK = 2, 3, 5, 6
TOP_NUMBERS, MIDDLE, BOTTOM_NUMBERS = 1, 4, 7
LINES: Final = 10
# Where the terminal has room, the widget draws each pit in seven columns by three lines, one
# of each blank between the pits: 59 columns by 18 lines.
LARGE_PIT_WIDTH: Final = 7
LARGE_PIT_HEIGHT: Final = 3
PIT_LINES: Final = (TOP_BACK, TOP_FRONT, BOTTOM_FRONT, BOTTOM_BACK)
LARGE_SIZE: Final = Size(
    MARGIN + 8 * LARGE_PIT_WIDTH, LINES + len(PIT_LINES) * (LARGE_PIT_HEIGHT - 1)
)
SIDE_NAMES: Final = ("South", "North")
COLOUR_NAMES: Final = ("white", "black")


@dataclass(frozen=True, slots=True)
class BaoGlyphs:
    """The characters of a board: the house and takasia flags, the middle line, and the marks
    either side of a pit for the cursor, the pit picked, a pit a move may start from, the last
    move's pit and a pit the last move sowed into or emptied, the side to move's pointer, and
    the marks of the pit a move shown from the analysis sows from."""

    house: str
    takasia: str
    middle: str
    cursor: tuple[str, str]
    picked: tuple[str, str]
    target: tuple[str, str]
    last: tuple[str, str]
    sown: tuple[str, str]
    to_move: str
    hint: tuple[str, str] = ("<", ">")


UNICODE: Final = BaoGlyphs(
    "\u2302",  # ⌂
    "\u00d7",  # multiplication sign
    "\u2500",  # ─
    ("[", "]"),
    ("(", ")"),
    ("\u2022", " "),  # •
    ("\u2039", "\u203a"),  # single angle quotes
    ("\u00b7", "\u00b7"),  # · ·
    "\u25c0",  # ◀
)
ASCII: Final = BaoGlyphs(
    "^", "x", "-", ("[", "]"), ("(", ")"), ("*", " "), ("<", ">"), (".", "."), "<"
)

Row = list[tuple[str, tuple[str, ...]]]


@dataclass(frozen=True, slots=True, order=True)
class Pit:
    """A pit by owner (0 South, 1 North) and ring index (0..7 front A1..A8, 8..15 back B8..B1)."""

    side: int
    ring: int

    @property
    def label(self) -> str:
        return pit_label(self.ring)


def _row_rings(line: int) -> tuple[int, list[int]]:
    """Which side's pits a board line shows (0 the bottom side, 1 the top), left to right."""
    if line == TOP_BACK:
        return 1, list(range(8, 16))
    if line == TOP_FRONT:
        return 1, list(range(7, -1, -1))
    if line == BOTTOM_FRONT:
        return 0, list(range(8))
    return 0, list(range(15, 7, -1))


def pit_at(line: int, column: int, bottom: int) -> Pit | None:
    """The pit drawn at `line`, pit column `column` (0..7 from the left), the side `bottom`
    at the bottom; None off the pits."""
    if line not in PIT_LINES or not 0 <= column < 8:
        return None
    top, rings = _row_rings(line)
    return Pit(bottom if top == 0 else 1 - bottom, rings[column])


def changed_pits(position: BaoPosition) -> frozenset[Pit]:
    """The pits whose seeds the last move changed (sown into, lifted or captured), when the
    position knows the move that led to it; empty at the start."""
    before = position.clone()
    try:
        before.undo()
    except IndexError:
        return frozenset()
    return _changed(before.board.pits, position.board.pits)


def _changed(old: Sequence[int], new: Sequence[int]) -> frozenset[Pit]:
    return frozenset(
        Pit(index // PITS, index % PITS) for index in range(2 * PITS) if old[index] != new[index]
    )


def _side_line(
    position: BaoPosition, side: int, glyphs: BaoGlyphs, *, over: bool
) -> tuple[str, tuple[str, ...]]:
    """One side's name and colour, store, stage, and whether it is to move (or, once the game
    is `over`, has won or lost where the position says so: not when it ended on the clock)."""
    board = position.board
    words = [f"{SIDE_NAMES[side]} ({COLOUR_NAMES[side]})", f"store {board.stores[side]}"]
    words.append("namua" if board.in_namua(side) else "mtaji")
    moving = board.mover == side and not over
    if moving:
        words.append(f"{glyphs.to_move} to move")
    elif position.is_terminal():
        winner = position.winner()
        words.append("drawn" if winner is None else "won" if winner == side else "lost")
    return " " + "  ".join(words), ("side", "to-move") if moving else ("side",)


def bao_rows(
    position: BaoPosition,
    *,
    bottom: int = 0,
    last_move: Move | None = None,
    changed: Collection[Pit] = (),
    targets: Collection[int] = (),
    picked: int | None = None,
    choices: Sequence[str] = (),
    choice: int = 0,
    cursor: Pit | None = None,
    glyphs: BaoGlyphs = UNICODE,
    shade: bool = True,
    note: str = "",
    ended: bool = False,
    hint: Move | None = None,
) -> list[Row]:
    """The board seen from side `bottom` as lines of (text, kinds) pieces. `last_move` (made by
    the side not to move) marks its pit, `changed` the pits it sowed into or emptied;
    `targets` are the mover's pits (ring indices) a move may start from, `picked` the one
    picked, `choices` the moves it may make with `choice` the one under the cursor. Without
    `shade` (a terminal in colour) the sown pits have no marks: their colour shows them. `note`
    goes on the last line while no pit is picked. `ended`: the game is over though the position
    goes on (on time, resigned, aborted), so no side is to move. `hint`, a move of the side to
    move shown from the analysis, marks the pit it sows from."""
    board = position.board
    over = ended or position.is_terminal()
    mover = board.mover
    last = None if last_move is None else Pit(1 - mover, last_move.pit)
    blocked = None if board.blocked == NO_PIT else Pit(mover, board.blocked)
    hinted = None if hint is None else Pit(mover, hint.pit)
    rows: list[Row] = [[_side_line(position, 1 - bottom, glyphs, over=over)]]
    top_numbers = "".join(f"{k:^{PIT_WIDTH}}" for k in range(8, 0, -1))
    bottom_numbers = "".join(f"{k:^{PIT_WIDTH}}" for k in range(1, 9))
    rows.append([(" " * MARGIN + top_numbers, ("coordinate",))])
    for line in (TOP_BACK, TOP_FRONT, None, BOTTOM_FRONT, BOTTOM_BACK):
        if line is None:
            rows.append([(" " * MARGIN + glyphs.middle * 8 * PIT_WIDTH, ("coordinate",))])
            continue
        is_top, rings = _row_rings(line)
        side = 1 - bottom if is_top else bottom
        row: Row = [(f" {'B' if line in (TOP_BACK, BOTTOM_BACK) else 'A'} ", ("coordinate",))]
        for ring in rings:
            pit = Pit(side, ring)
            seeds = board.pits[side * PITS + ring]
            kinds = ["north" if side else "south"]
            flag = " "
            if ring == HOUSE and board.owned[side]:
                flag = glyphs.house
                kinds.append("house")
            if pit == blocked:
                flag = glyphs.takasia
                kinds.append("takasia")
            mine = side == mover and not over
            if pit in changed:
                kinds.append("sown")
            if pit == last:
                kinds.append("last")
            if mine and ring in targets:
                kinds.append("target")
            marks = (" ", " ")
            if pit == cursor:
                marks = glyphs.cursor
                kinds.append("cursor")
            elif mine and ring == picked:
                marks = glyphs.picked
                kinds.append("picked")
            elif mine and ring in targets:
                marks = glyphs.target
            elif pit == hinted:
                marks = glyphs.hint
                kinds.append("hint")
            elif pit == last:
                marks = glyphs.last
            elif shade and pit in changed:
                marks = glyphs.sown
            cell = tuple(kinds)
            row.append((marks[0], cell))
            row.append((f"{seeds:>2}", (*cell, "seeds") if seeds else (*cell, "empty")))
            row.append((flag, cell))
            row.append((marks[1], cell))
        rows.append(row)
    rows.append([(" " * MARGIN + bottom_numbers, ("coordinate",))])
    rows.append([_side_line(position, bottom, glyphs, over=over)])
    if picked is None or not choices:
        rows.append([(f" {note}" if note else "", ("coordinate",))])
    else:
        rows.append(_choice_line(picked, choices, choice))
    return rows


def _choice_line(picked: int, choices: Sequence[str], choice: int) -> Row:
    row: Row = [(f" {pit_label(picked)}: ", ("coordinate",))]
    for number, text in enumerate(choices):
        if number:
            row.append((" ", ()))
        kinds = ("choice", "cursor") if number == choice else ("choice",)
        row.append((f"[{text}]" if number == choice else f" {text} ", kinds))
    return row


def choice_spans(choices: Sequence[str], picked: int) -> list[tuple[int, int]]:
    """Where each choice sits on the choice line: (first column, past the last)."""
    x = len(f" {pit_label(picked)}: ")
    spans = []
    for text in choices:
        spans.append((x, x + len(text) + 2))
        x += len(text) + 3
    return spans


def enlarged(rows: list[Row]) -> list[Row]:
    """`rows` (as `bao_rows` gives them) with each pit LARGE_PIT_WIDTH columns by
    LARGE_PIT_HEIGHT lines, the last column and a line blank (towards the middle line), so the
    pits stand apart: its marks, seeds and flag on its first line, its colour on the rest."""
    large: list[Row] = []
    pad = " " * ((LARGE_PIT_WIDTH - PIT_WIDTH) // 2)
    for line, row in enumerate(rows):
        if line in (TOP_NUMBERS, BOTTOM_NUMBERS):
            (text, kinds), *_ = row
            numbers = "".join(f"{number:^{LARGE_PIT_WIDTH}}" for number in text.split())
            large.append([(" " * MARGIN + numbers, kinds)])
        elif line == MIDDLE:
            (text, kinds), *_ = row
            large.append([(text[:MARGIN] + text[MARGIN] * 8 * LARGE_PIT_WIDTH, kinds)])
        elif line in PIT_LINES:
            (name, name_kinds), *pieces = row
            first: Row = [(name, name_kinds)]
            rest: Row = [(" " * len(name), name_kinds)]
            for at in range(0, len(pieces), 4):
                (left, kinds), seeds, flag, (right, _) = pieces[at : at + 4]
                first += [(pad + left, kinds), seeds, flag, (right, kinds), (pad, ())]
                rest += [(" " * (LARGE_PIT_WIDTH - 1), kinds), (pad, ())]
            pit = [first, *[rest] * (LARGE_PIT_HEIGHT - 2)]
            # The blank line on the side of the middle line: the two sides' rows stand apart.
            gap: Row = [(" " * (MARGIN + 8 * LARGE_PIT_WIDTH), ())]
            large += [*pit, gap] if line in (TOP_BACK, TOP_FRONT) else [gap, *pit]
        else:
            large.append(row)
    return large


def line_at(y: int, *, large: bool) -> int:
    """The line of `bao_rows` drawn at `y` on the board drawn large or not (-1: none)."""
    if not large:
        return y
    for line in range(LINES):
        height = LARGE_PIT_HEIGHT if line in PIT_LINES else 1
        if y < height:
            return line
        y -= height
    return -1


def bao_text(position: BaoPosition, **marks: Any) -> list[str]:
    """The board as plain lines, with the marks `bao_rows` takes (trailing spaces dropped)."""
    rows = bao_rows(position, **marks)
    return ["".join(text for text, _ in row).rstrip() for row in rows]


_CSS_PATH: Final = Path(__file__).with_suffix(".tcss")


class BaoBoard(BoardWidget):
    """The Bao board: the arrow keys move a cursor over the pits and Enter or Space picks the
    pit under it, as a click does; the pits a move may start from are marked. Once a pit is
    picked, its legal moves show on the line under the board: left and right choose one (`<`
    left, `>` right, as the seeds go along the front row), Enter makes it, a click on one
    makes it, and Esc steps back. A pit with a single legal move makes it at once.

    `[` and `]` step through the last move's sowing (`engine.bao.board.sowing_steps`): the
    seeds lifted, each lap and each capture, the pits each step changed marked; stepping past
    either end, or picking a pit, shows the position again."""

    DEFAULT_CSS = _CSS_PATH.read_text()
    MOVE_EXAMPLE: ClassVar[str] = "A6>"
    SIDE_NAMES: ClassVar[tuple[str, ...]] = SIDE_NAMES
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        f"board--{kind}"
        for kind in (
            "coordinate",
            "side",
            "to-move",
            "south",
            "north",
            "seeds",
            "empty",
            "house",
            "takasia",
            "sown",
            "last",
            "hint",
            "target",
            "picked",
            "cursor",
            "choice",
        )
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(0, -1)", "Cursor up", show=False),
        Binding("down", "cursor(0, 1)", "Cursor down", show=False),
        Binding("left", "cursor(-1, 0)", "Cursor left", show=False),
        Binding("right", "cursor(1, 0)", "Cursor right", show=False),
        Binding("enter,space", "pick", "Pick pit"),
        Binding("escape", "back", "Step back"),
        Binding("left_square_bracket", "step_last_move(-1)", "Sowing back", show=False),
        Binding("right_square_bracket", "step_last_move(1)", "Sowing on", show=False),
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
        # The cursor as (line, pit column) on the board drawn; starts on the bottom A1.
        self.cursor_at = (BOTTOM_FRONT, 0)
        self.picked: int | None = None
        self.choice = 0
        self._last: Move | None = None
        self._changed: frozenset[Pit] = frozenset()
        self._moves: tuple[Move, ...] = ()
        # The last move's sowing, worked out when first stepped through, and the step shown
        # (None: the position itself).
        self._steps: list[Board] | None = None
        self.sowing_step: int | None = None

    # -- the interface ---------------------------------------------------------------------

    @property
    def position(self) -> BaoPosition | None:
        state = self.state
        if state is not None and not isinstance(state, BaoPosition):
            raise TypeError(f"the Bao board shows Bao positions, not {state!r}")
        return state

    @property
    def bottom(self) -> int:
        """The side drawn at the bottom: South unless turned round."""
        return 1 if self.flipped else 0

    def watch_flipped(self) -> None:
        self.refresh()

    def state_changed(self) -> None:
        position = self.position
        self._last = None
        self._changed = frozenset()
        self._moves = ()
        self._steps = None
        self.sowing_step = None
        if position is not None:
            if self.last_move is not None:
                self._last = Move.parse(self.last_move)
                self._changed = changed_pits(position)
            if self.entry_state is not None:
                self._moves = tuple(sorted(position.legal_moves))
        if self.picked is not None and not self.choices():
            self.picked = None
        self.choice = min(self.choice, max(len(self.choices()) - 1, 0))

    def targets(self) -> frozenset[int]:
        """The user's pits (ring indices) a legal move starts from."""
        return frozenset(move.pit for move in self._moves)

    def choices(self) -> list[Move]:
        """The legal moves from the pit picked."""
        return [move for move in self._moves if move.pit == self.picked]

    # -- drawing ---------------------------------------------------------------------------

    def cursor_pit(self) -> Pit | None:
        return pit_at(*self.cursor_at, self.bottom)

    def large_size(self) -> Size | None:
        return None if self.position is None else LARGE_SIZE

    def rows(self) -> list[Row]:
        """What the widget draws now, as `bao_rows` gives it (drawn `enlarged` when large)."""
        position = self.position
        if position is None:
            return []
        entering = bool(self._moves)
        changed = self._changed
        note = "" if self._last is None else f"[ ]: the sowing of {self._last}, step by step"
        steps = self._steps
        if steps is not None and self.sowing_step is not None:
            step = self.sowing_step
            before = steps[step - 1] if step else self._before()
            # Drawn with the side to move now, as the marks of the last move expect.
            shown = steps[step]._replace(mover=position.board.mover)
            position = BaoPosition(shown, position.rules)
            changed = _changed(before.pits, steps[step].pits)
            note = f"the sowing of {self._last}: step {step + 1} of {len(steps)}"
        return bao_rows(
            position,
            bottom=self.bottom,
            last_move=self._last,
            changed=changed,
            targets=self.targets() if self.picked is None else (),
            picked=self.picked,
            choices=[str(move) for move in self.choices()],
            choice=self.choice,
            cursor=self.cursor_pit() if entering and self.has_focus else None,
            glyphs=self.glyphs,
            shade=self.app.no_color,
            note=note,
            ended=self.ended,
            hint=None if self.hint is None else Move.parse(self.hint),
        )

    def render(self) -> Text:
        styles: dict[tuple[str, ...], Style] = {}
        text = Text(no_wrap=True, overflow="crop")
        rows = self.rows()
        for number, row in enumerate(enlarged(rows) if self.large else rows):
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
        if self.position is None:
            return 0
        return LARGE_SIZE.width if self.large else WIDTH

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.position is None:
            return 0
        return LARGE_SIZE.height if self.large else LINES

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- picking ---------------------------------------------------------------------------

    def action_cursor(self, columns: int, lines: int) -> None:
        if self.position is None:
            return
        self.sowing_step = None
        if self.picked is not None:
            if columns:
                self.choice = min(max(self.choice + columns, 0), len(self.choices()) - 1)
                self.refresh()
            return
        line, column = self.cursor_at
        at = min(max(PIT_LINES.index(line) + lines, 0), len(PIT_LINES) - 1)
        line = PIT_LINES[at]
        self.cursor_at = (line, min(max(column + columns, 0), 7))
        self.refresh()

    def action_step_last_move(self, delta: int) -> None:
        self.step_last_move(delta)

    def step_last_move(self, delta: int) -> None:
        """Show the last move's sowing a step further on (`delta` 1) or back (-1); from the
        position itself, `]` goes to the first step and `[` to the one before the end."""
        position = self.position
        if position is None or self._last is None:
            return
        if self._steps is None:
            self._steps = sowing_steps(self._before(), position.rules, self._last)
        count = len(self._steps)
        if self.sowing_step is None:
            step = 0 if delta > 0 else count - 2
        else:
            step = self.sowing_step + delta
        self.sowing_step = step if 0 <= step < count - 1 else None
        self.refresh()

    def _before(self) -> Board:
        """The board before the last move."""
        before = cast(BaoPosition, self.position).clone()
        before.undo()
        return before.board

    def action_pick(self) -> None:
        self.sowing_step = None
        if self.picked is not None:
            choices = self.choices()
            if choices:
                self._make(choices[self.choice])
            return
        pit = self.cursor_pit()
        if pit is not None:
            self.pick(pit)

    def action_back(self) -> None:
        if self.picked is None:
            raise SkipAction()
        self.picked = None
        self.refresh()

    def pick(self, pit: Pit) -> None:
        """Pick `pit` to start the move being made, as Enter on it or a click does: a pit no
        legal move starts from does nothing; one with a single move makes it."""
        if not self._moves or self.position is None:
            return
        if pit.side != self.position.current_player or pit.ring not in self.targets():
            return
        self.picked = pit.ring
        choices = self.choices()
        if len(choices) == 1:
            self._make(choices[0])
            return
        self.choice = 0
        self.refresh()

    def choose_move(self, text: str) -> None:
        """Make the move `text` among the picked pit's choices, as a click on it does."""
        for move in self.choices():
            if str(move) == text:
                self._make(move)
                return

    def _make(self, move: Move) -> None:
        self.picked = None
        self.choice = 0
        self.refresh()
        self.choose(str(move))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if self.position is None or offset is None:
            return
        large = self.large
        line = line_at(offset.y, large=large)
        if line == LINES - 1 and self.picked is not None:
            choices = self.choices()
            for move, (start, end) in zip(
                choices, choice_spans([str(m) for m in choices], self.picked), strict=True
            ):
                if start <= offset.x < end:
                    self._make(move)
            return
        if offset.x < MARGIN:
            return
        column = (offset.x - MARGIN) // (LARGE_PIT_WIDTH if large else PIT_WIDTH)
        pit = pit_at(line, column, self.bottom)
        if pit is not None:
            self.cursor_at = (line, column)
            self.picked = None
            self.pick(pit)
            self.refresh()
