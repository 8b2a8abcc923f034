"""A Bao position as a standalone SVG picture, laid out as the web client draws it: South's two
rows at the bottom (its A1 on the left), North's on top, each pit with its seeds, the rows
lettered and the columns numbered from each side's own seat, the owned houses and the takasia'd
pit marked, each side's store and stage; and the last move: the pit it was sown from with an
arrow the way it went, and every pit whose seeds it changed.
"""

from __future__ import annotations

from typing import Final

from engine.bao.board import HOUSE, Board
from engine.bao.notation import PITS, Move, pit_label
from engine.bao.position import SIDE_NAMES, BaoPosition
from engine.svg import (
    INK,
    LAST,
    MOVE,
    MUTED,
    arrowhead,
    document,
    element,
    heading,
    text,
    widened,
)

__all__ = ["bao_svg"]

LEFT: Final = 0.7  # room for the rows' letters, in pits
CAPTION: Final = 0.55  # room for the caption over the board, in pits
CAPTION_SIZE: Final = 0.34  # the caption's font size, in pits
PIXELS: Final = 56  # a pit's size in the picture's width and height
# The rows from the top, as (side: 0 South, 1 North; y; ring pits from left to right).
ROWS: Final = (
    (1, 1.0, (8, 9, 10, 11, 12, 13, 14, 15)),
    (1, 2.0, (7, 6, 5, 4, 3, 2, 1, 0)),
    (0, 3.2, (0, 1, 2, 3, 4, 5, 6, 7)),
    (0, 4.2, (15, 14, 13, 12, 11, 10, 9, 8)),
)
HEIGHT: Final = 6.1
PIT, NORTH_PIT, SOWN, EDGE = "#c99a63", "#b5854f", "#ecd58a", "#7a5632"
SEED, HOUSE_MARK, TAKASIA = "#2b1d0e", "#5a2d00", "#a12a2a"
COLOURS: Final = ("White", "Black")  # the protocol's colour of each seat: South moves first


def _place(side: int, pit: int) -> tuple[float, float]:
    """The top-left corner of a pit in the drawing."""
    for row_side, y, ring in ROWS:
        if row_side == side and pit in ring:
            return float(ring.index(pit)), CAPTION + y
    raise ValueError(f"no pit {pit} of side {side}")


def bao_svg(
    position: BaoPosition,
    last: Move | None = None,
    before: BaoPosition | None = None,
    caption: str = "",
) -> str:
    """The position drawn; with `last` and `before` (the move that led to it and the position
    it was made in) the move marked, and `caption` over the board (by default who is to
    move)."""
    board = position.board
    over = position.is_terminal()
    changed: set[tuple[int, int]] = set()
    sower = None
    if last is not None and before is not None:
        sower = before.board.mover
        changed = {
            (index // PITS, index % PITS)
            for index, (was, now) in enumerate(zip(before.board.pits, board.pits, strict=True))
            if was != now
        }
    words = caption or position.result()
    left, across = widened(-LEFT, 8 + LEFT, words, CAPTION_SIZE)
    view = (left, 0.0, across, HEIGHT + CAPTION)
    parts = [element("rect", x=left, y=0, width=across, height=view[3], fill="#ffffff")]
    parts.append(arrowhead(MOVE, 3))
    parts.append(_side_line(position, 1, CAPTION + 0.62, over))
    for side, y, ring in ROWS:
        top = CAPTION + y
        parts.append(
            text(
                -LEFT / 2,
                top + 0.6,
                "A" if ring[0] < 8 else "B",
                class_="coordinate",
                font_size=0.32,
                fill=MUTED,
            )
        )
        for column, pit in enumerate(ring):
            seeds = board.pits[side * PITS + pit]
            classes = ["pit", SIDE_NAMES[side].lower()]
            fill, stroke, stroke_width = (NORTH_PIT if side else PIT), EDGE, 0.03
            if side == sower and last is not None and pit == last.pit:
                classes.append("last")
                fill, stroke, stroke_width = LAST, "#8a6a00", 0.07
            elif (side, pit) in changed:
                classes.append("sown")
                fill = SOWN
            house = pit == HOUSE and board.owned[side]
            blocked = side == board.mover and pit == board.blocked
            if house:
                classes.append("house")
            if blocked:
                classes.append("takasia")
            marks = [
                element(
                    "rect",
                    x=column + 0.06,
                    y=top + 0.06,
                    width=0.88,
                    height=0.88,
                    rx=0.3,
                    fill=fill,
                    stroke=stroke,
                    stroke_width=stroke_width,
                ),
                text(
                    column + 0.5,
                    top + 0.66,
                    str(seeds),
                    class_="seeds",
                    font_size=0.4,
                    font_weight=700 if seeds else 400,
                    fill=SEED if seeds else EDGE,
                ),
            ]
            if house:
                marks.append(
                    text(
                        column + 0.2,
                        top + 0.32,
                        "⌂",
                        class_="house-mark",
                        font_size=0.28,
                        font_weight=700,
                        fill=HOUSE_MARK,
                    )
                )
            if blocked:
                marks.append(
                    text(
                        column + 0.8,
                        top + 0.32,
                        "\N{MULTIPLICATION SIGN}",
                        class_="takasia-mark",
                        font_size=0.34,
                        font_weight=700,
                        fill=TAKASIA,
                    )
                )
            parts.append(
                element(
                    "g",
                    marks,
                    class_=" ".join(classes),
                    data_side=SIDE_NAMES[side].lower(),
                    data_pit=pit_label(pit),
                    data_seeds=seeds,
                )
            )
    parts.append(
        element(
            "line",
            class_="middle",
            x1=0,
            x2=8,
            y1=CAPTION + 3.1,
            y2=CAPTION + 3.1,
            stroke=MUTED,
            stroke_width=0.03,
        )
    )
    for column in range(8):
        parts.append(
            text(
                column + 0.5,
                CAPTION + 0.94,
                str(8 - column),
                class_="coordinate",
                font_size=0.22,
                fill=MUTED,
            )
        )
        parts.append(
            text(
                column + 0.5,
                CAPTION + 5.42,
                str(column + 1),
                class_="coordinate",
                font_size=0.22,
                fill=MUTED,
            )
        )
    parts.append(_side_line(position, 0, CAPTION + 5.85, over))
    if last is not None and sower is not None:
        parts.append(_way(sower, last))
    parts.append(heading(left + across / 2, CAPTION, words, CAPTION_SIZE))
    label = f"Bao: {words}" + (
        f", last move {SIDE_NAMES[sower]} {last}" if last and sower is not None else ""
    )
    return document(view[2] * PIXELS, view[3] * PIXELS, view, label, "".join(parts))


def _way(side: int, move: Move) -> str:
    """An arrow in the pit a move was sown from, pointing at the next pit it sowed."""
    x0, y0 = _place(side, move.pit)
    x1, y1 = _place(side, (move.pit + move.direction) % PITS)
    # Neighbouring pits are one apart in a row or one above the other at a row's end.
    step = max(abs(x1 - x0), abs(y1 - y0))
    dx, dy = (x1 - x0) / step, (y1 - y0) / step
    # Under the seeds' number, or beside it at a row's end.
    cx, cy = x0 + 0.5 + 0.3 * abs(dy), y0 + 0.5 + 0.3 * abs(dx)
    return element(
        "line",
        class_="last-move",
        data_side=SIDE_NAMES[side].lower(),
        data_pit=pit_label(move.pit),
        data_way=">" if move.direction > 0 else "<",
        x1=cx - dx * 0.22,
        y1=cy - dy * 0.22,
        x2=cx + dx * 0.3,
        y2=cy + dy * 0.3,
        stroke=MOVE,
        stroke_width=0.08,
        stroke_linecap="round",
        marker_end="url(#head)",
    )


def _side_line(position: BaoPosition, side: int, y: float, over: bool) -> str:
    """A side's seat, colour, store and stage, and whether it moves, won or lost."""
    board: Board = position.board
    words = [
        f"{SIDE_NAMES[side]} ({COLOURS[side]})",
        f"store {board.stores[side]}",
        "namua" if board.in_namua(side) else "mtaji",
    ]
    moving = board.mover == side and not over
    if moving:
        words.append("to move")
    elif over:
        winner = position.winner()
        words.append("drawn" if winner is None else "won" if winner == side else "lost")
    return text(
        0,
        y,
        " · ".join(words),
        "start",
        class_="side",
        data_side=SIDE_NAMES[side].lower(),
        font_size=0.3,
        font_weight=700 if moving else None,
        fill=INK if moving else MUTED,
    )
