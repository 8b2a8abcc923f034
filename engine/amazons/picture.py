"""An Amazons position as a standalone SVG picture: the board with its files and ranks, the
amazons, the burnt squares, and the last move drawn as the queen's path and the arrow's flight
from where it landed. White sits at the bottom, as in the web client and the diagrams.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.amazons.notation import FILES, Move, Square
from engine.amazons.position import Position
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

__all__ = ["amazons_svg"]

MARGIN = 0.6  # room for the coordinates, in squares
CAPTION = 0.7  # room for the caption over the board, in squares
CAPTION_SIZE = 0.36  # the caption's font size, in squares
PIXELS = 48  # a square's size in the picture's width and height
LIGHT, DARK, BURNT, ARROW_SQUARE, PAPER = "#e9dcc0", "#b88c5a", "#3a3230", "#d9823b", "#fbfaf7"
# An amazon: a crown in one path and a jewel, as the web client draws it.
CROWN = "M -0.3 0.3 L -0.34 -0.18 L -0.17 0.02 L 0 -0.3 L 0.17 0.02 L 0.34 -0.18 L 0.3 0.3 Z"


def amazons_svg(position: Position, last: Move | None = None, caption: str = "") -> str:
    """The position drawn, with `last` (the move that led to it) marked, and `caption` over
    the board (by default who is to move)."""
    width, height = position.width, position.height
    top = CAPTION

    def x(square: Square) -> float:
        return square.file

    def y(square: Square) -> float:
        return top + height - 1 - square.rank

    marks = {}
    if last is not None:
        marks = {last.origin: "last-from", last.target: "last-to", last.arrow: "last-arrow"}
    words = caption or f"{position.side_to_move} to move"
    left, across = widened(-MARGIN, width + MARGIN, words, CAPTION_SIZE)
    view = (left, 0.0, across, top + height + MARGIN)
    parts = [
        element("rect", x=view[0], y=view[1], width=view[2], height=view[3], fill="#ffffff"),
        arrowhead(MOVE, 4),
    ]
    for rank in range(height):
        for file in range(width):
            square = Square(file, rank)
            mark = marks.get(square)
            shade = "dark" if (file + rank) % 2 == 0 else "light"
            fill = {"last-from": LAST, "last-to": LAST}.get(
                mark or "", DARK if shade == "dark" else LIGHT
            )
            parts.append(
                element(
                    "rect",
                    class_=f"square {shade}" + (f" {mark}" if mark else ""),
                    data_at=str(square),
                    x=x(square),
                    y=y(square),
                    width=1,
                    height=1,
                    fill=fill,
                    fill_opacity=0.85 if mark in ("last-from", "last-to") else None,
                )
            )
            piece = position.piece_at(square)
            if piece == "x":
                parts.append(
                    element(
                        "rect",
                        class_="burnt" + (" last-arrow" if mark == "last-arrow" else ""),
                        data_at=str(square),
                        x=x(square) + 0.2,
                        y=y(square) + 0.2,
                        width=0.6,
                        height=0.6,
                        rx=0.08,
                        fill=BURNT,
                        stroke=ARROW_SQUARE if mark == "last-arrow" else None,
                        stroke_width=0.08 if mark == "last-arrow" else None,
                    )
                )
            elif piece is not None:
                colour = "white" if piece == "W" else "black"
                fill, stroke = (PAPER, INK) if piece == "W" else (INK, PAPER)
                parts.append(
                    element(
                        "g",
                        [
                            element("path", d=CROWN),
                            element("circle", cx=0, cy=-0.3, r=0.06),
                        ],
                        class_=f"amazon {colour}",
                        data_at=str(square),
                        transform=f"translate({file + 0.5} {y(square) + 0.5})",
                        fill=fill,
                        stroke=stroke,
                        stroke_width=0.035,
                        stroke_linejoin="round",
                    )
                )
    if last is not None:
        parts.append(_flight("last-move queen", last.origin, last.target, x, y, dashed=False))
        parts.append(_flight("last-move shot", last.target, last.arrow, x, y, dashed=True))
    for file in range(width):
        parts.append(
            text(
                file + 0.5,
                top + height + MARGIN * 0.72,
                FILES[file],
                class_="coordinate",
                font_size=0.32,
                fill=MUTED,
            )
        )
    for rank in range(height):
        parts.append(
            text(
                -MARGIN / 2,
                top + height - 1 - rank + 0.62,
                str(rank + 1),
                class_="coordinate",
                font_size=0.32,
                fill=MUTED,
            )
        )
    parts.append(heading(left + across / 2, CAPTION, words, CAPTION_SIZE))
    label = f"Amazons {width}x{height}: {words}" + (f", last move {last}" if last else "")
    return document(view[2] * PIXELS, view[3] * PIXELS, view, label, "".join(parts))


def _flight(
    kind: str,
    start: Square,
    end: Square,
    x: Callable[[Square], float],
    y: Callable[[Square], float],
    dashed: bool,
) -> str:
    """A line with a head from the middle of `start` (from its edge when the amazon that moved
    stands there) towards the middle of `end`, stopping short of it so the head does not hide
    what stands there."""
    x0, y0, x1, y1 = x(start) + 0.5, y(start) + 0.5, x(end) + 0.5, y(end) + 0.5
    length = math.hypot(x1 - x0, y1 - y0)
    if not length:  # an arrow shot back onto the square just left is drawn on the square
        return ""
    dx, dy = (x1 - x0) / length, (y1 - y0) / length
    begin = min(0.36, length / 3) if dashed else 0.0
    end_short = min(0.34, length / 3)
    return element(
        "line",
        class_=kind,
        data_from=str(start),
        data_to=str(end),
        x1=x0 + dx * begin,
        y1=y0 + dy * begin,
        x2=x1 - dx * end_short,
        y2=y1 - dy * end_short,
        stroke=MOVE,
        stroke_width=0.09,
        stroke_linecap="round",
        stroke_dasharray="0.16 0.14" if dashed else None,
        stroke_opacity=0.85,
        marker_end="url(#head)",
    )
