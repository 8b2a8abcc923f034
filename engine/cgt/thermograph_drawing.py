"""A game's thermograph drawn for people: a standalone SVG picture and a text drawing for a
terminal. Both show the thermograph from t = 0 upwards as Winning Ways draws it: temperature up
the page, values along it with Left's (Black's, positive) to the left, the left wall starting
at the left stop, the right wall at the right stop, and the mast rising from where they meet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from engine.cgt.form import Form
from engine.cgt.thermography import Trajectory
from engine.svg import INK, MUTED, document, element, text

__all__ = ["Plot", "thermograph_svg", "thermograph_text"]

ZERO = Fraction(0)
# Tick steps tried for the axes, smallest first: a drawing gets the first that leaves it at
# most MAX_TICKS ticks an axis.
TICK_STEPS = tuple(Fraction(n, d) for n, d in ((1, 8), (1, 4), (1, 2), (1, 1), (2, 1), (5, 1)))
MAX_TICKS = 8
# The SVG's size and its plot's margins, in pixels.
WIDTH, HEIGHT = 560, 400
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 70, 530, 56, 330
LEFT_COLOUR, RIGHT_COLOUR, MAST_COLOUR = INK, "#b0452b", "#2f6f5e"
# The text drawing: at most this many columns of plot, and rows for its temperatures.
TEXT_COLUMNS, TEXT_ROWS = 48, 14


def _text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _wall_points(wall: Trajectory, up_to: Fraction) -> list[tuple[Fraction, Fraction]]:
    """The wall's knots from t = 0 up to `up_to`, both ends included."""
    inside = [(t, v) for t, v in wall.points if ZERO < t < up_to]
    return [(ZERO, wall.value_at(ZERO)), *inside, (up_to, wall.value_at(up_to))]


@dataclass(frozen=True, slots=True)
class Plot:
    """What a drawing shows of a game's thermograph above t = 0: the walls as (t, value)
    knots from t = 0 to where they meet (empty for a number, whose thermograph is a mast from
    below t = 0), the mast from `mast_from` to `top`, and the values and temperatures framed."""

    game: Form
    left_wall: tuple[tuple[Fraction, Fraction], ...]
    right_wall: tuple[tuple[Fraction, Fraction], ...]
    mean: Fraction
    temperature: Fraction
    mast_from: Fraction
    top: Fraction
    low: Fraction  # the value at the right edge
    high: Fraction  # the value at the left edge

    @classmethod
    def of(cls, game: Form) -> Plot:
        graph = game.thermograph
        temperature = game.temperature
        meet = max(temperature, ZERO)
        walls: tuple[list[tuple[Fraction, Fraction]], ...] = ([], [])
        if temperature > 0:
            walls = (_wall_points(graph.left_wall, meet), _wall_points(graph.right_wall, meet))
        top = meet + max(Fraction(1), meet / 3)
        left_stop, right_stop = graph.left_wall.value_at(ZERO), graph.right_wall.value_at(ZERO)
        pad = max(Fraction(1, 2), (left_stop - right_stop) / 4)
        return cls(
            game,
            tuple(walls[0]),
            tuple(walls[1]),
            graph.mean,
            temperature,
            meet,
            top,
            right_stop - pad,
            left_stop + pad,
        )

    @property
    def left_stop(self) -> Fraction:
        return self.left_wall[0][1] if self.left_wall else self.mean

    @property
    def right_stop(self) -> Fraction:
        return self.right_wall[0][1] if self.right_wall else self.mean

    def legend(self) -> list[str]:
        """What the walls and the mast say of this game, one sentence a line."""
        if self.temperature < 0:
            return [
                f"{self.game} is a number: its thermograph is a bare mast at {_text(self.mean)}",
                f"(temperature {_text(self.temperature)}): no one gains by moving in it.",
            ]
        if self.temperature == 0:
            return [
                f"{self.game} is {_text(self.mean)} plus an infinitesimal: its walls meet at "
                "t = 0, so it is all mast",
                f"mast: the mean {_text(self.mean)}; no one gains more than an infinitesimal by "
                "moving in it",
            ]
        return [
            f"left wall: what Left (Black) gets moving first when each move costs t "
            f"(left stop {_text(self.left_stop)} at t = 0)",
            f"right wall: what Right (White) gets moving first when each move costs t "
            f"(right stop {_text(self.right_stop)} at t = 0)",
            f"mast: the mean {_text(self.mean)}, where the walls meet at the temperature "
            f"{_text(self.temperature)}; above it no one wants to move here",
        ]


def _at(wall: tuple[tuple[Fraction, Fraction], ...], t: Fraction) -> tuple[Fraction, Fraction]:
    """The wall's value at t and its slope just above t (just below, at its top)."""
    for (t0, v0), (t1, v1) in pairwise(wall):
        if t0 <= t < t1 or t == t1 == wall[-1][0]:
            slope = (v1 - v0) / (t1 - t0)
            return v0 + slope * (t - t0), slope
    raise ValueError(f"t = {t} is off the wall")


def _ticks(low: Fraction, high: Fraction) -> list[Fraction]:
    """Round values between low and high, as many as fit."""
    step = next(
        (s for s in TICK_STEPS if (high - low) / s <= MAX_TICKS),
        Fraction(10 ** math.ceil(math.log10(float(high - low) / MAX_TICKS))),
    )
    first = math.ceil(low / step)
    return [step * n for n in range(first, math.floor(high / step) + 1)]


def thermograph_svg(game: Form) -> str:
    """A standalone SVG picture of the game's thermograph: axes with values and temperatures,
    the left wall, the right wall and the mast, each labelled."""
    plot = Plot.of(game)

    def x(value: Fraction) -> float:
        share = float((plot.high - value) / (plot.high - plot.low))
        return PLOT_LEFT + share * (PLOT_RIGHT - PLOT_LEFT)

    def y(t: Fraction) -> float:
        return PLOT_BOTTOM - float(t / plot.top) * (PLOT_BOTTOM - PLOT_TOP)

    title = f"Thermograph of {game}"
    middle = (PLOT_TOP + PLOT_BOTTOM) / 2
    parts = [
        element("rect", width=WIDTH, height=HEIGHT, fill="#ffffff"),
        text(WIDTH / 2, 26, title, class_="title", font_size=16, font_weight=700, fill=INK),
        # The axes: values along the bottom at t = 0, temperatures up the left edge.
        element(
            "path",
            class_="axes",
            d=f"M {PLOT_RIGHT} {PLOT_BOTTOM} H {PLOT_LEFT} V {PLOT_TOP}",
            fill="none",
            stroke=MUTED,
        ),
        text(
            (PLOT_LEFT + PLOT_RIGHT) / 2,
            PLOT_BOTTOM + 40,
            "value (← Left, Black, is positive · Right, White, is negative →)",
            fill=MUTED,
        ),
        text(22, middle, "temperature t", transform=f"rotate(-90 22 {middle})", fill=MUTED),
    ]
    for value in _ticks(plot.low, plot.high):
        at = x(value)
        parts.append(
            element("path", class_="value-tick", d=f"M {at:.2f} {PLOT_BOTTOM} v 5", stroke=MUTED)
        )
        parts.append(text(at, PLOT_BOTTOM + 19, _text(value), fill=MUTED))
    for t in _ticks(ZERO, plot.top):
        at = y(t)
        parts.append(
            element(
                "path", class_="temperature-tick", d=f"M {PLOT_LEFT} {at:.2f} h -5", stroke=MUTED
            )
        )
        parts.append(text(PLOT_LEFT - 8, at + 4, _text(t), "end", fill=MUTED))
    if plot.temperature > 0:
        at = y(plot.temperature)
        parts.append(
            element(
                "path",
                class_="temperature",
                d=f"M {PLOT_LEFT} {at:.2f} H {PLOT_RIGHT}",
                stroke=MUTED,
                stroke_dasharray="4 4",
            )
        )
        words = f"temperature {_text(plot.temperature)}"
        parts.append(text(PLOT_RIGHT, at - 6, words, "end", fill=MUTED))
        for kind, wall, colour in (
            ("left-wall", plot.left_wall, LEFT_COLOUR),
            ("right-wall", plot.right_wall, RIGHT_COLOUR),
        ):
            parts.append(
                element(
                    "polyline",
                    class_=kind,
                    data_knots=" ".join(f"{_text(t)},{_text(v)}" for t, v in wall),
                    points=" ".join(f"{x(v):.2f},{y(t):.2f}" for t, v in wall),
                    fill="none",
                    stroke=colour,
                    stroke_width=3,
                    stroke_linejoin="round",
                )
            )
        # Each wall named halfway up, on its outer side.
        half = plot.temperature / 2
        left_x, right_x = x(_at(plot.left_wall, half)[0]), x(_at(plot.right_wall, half)[0])
        parts.append(text(left_x - 10, y(half), "left wall", "end", fill=LEFT_COLOUR))
        parts.append(text(right_x + 10, y(half), "right wall", "start", fill=RIGHT_COLOUR))
    mast = x(plot.mean)
    parts.append(
        element(
            "path",
            class_="mast",
            data_value=_text(plot.mean),
            d=f"M {mast:.2f} {y(plot.mast_from):.2f} V {PLOT_TOP - 8}",
            stroke=MAST_COLOUR,
            stroke_width=3,
        )
    )
    parts.append(
        element(
            "path",
            d=f"M {mast - 6:.2f} {PLOT_TOP - 2} l 6 -10 l 6 10 Z",
            fill=MAST_COLOUR,
        )
    )
    words = f"mast: mean {_text(plot.mean)}"
    parts.append(
        text(mast + 8, (y(plot.mast_from) + PLOT_TOP) / 2, words, "start", fill=MAST_COLOUR)
    )
    body = element("g", parts, font_size=13)
    return document(WIDTH, HEIGHT, (0, 0, WIDTH, HEIGHT), title, body)


def thermograph_text(
    game: Form, width: int = TEXT_COLUMNS, height: int = TEXT_ROWS, legend: bool = True
) -> str:
    """The thermograph drawn in characters: `/` and `|` for the left wall, `\\` and `|` for
    the right wall, `|` for the mast, temperatures down the right edge and the stops and the
    mean under the base line, then (with `legend`) what the walls and the mast say. The plot
    takes at most about `width` columns and `height` rows."""
    plot = Plot.of(game)
    span = plot.high - plot.low
    # Columns and rows a unit: equal, so a wall's slope of one unit a unit is one column a row.
    scale = Fraction(1, 1)
    while span * scale * 2 <= width and plot.top * scale * 2 <= height:
        scale *= 2
    while span * scale > width * 2 and scale > Fraction(1, 1 << 20):
        scale /= 2
    columns = math.ceil(span * scale) + 1
    rows = math.ceil(plot.top * scale)

    def column(value: Fraction) -> int:
        return min(columns - 1, max(0, math.floor((plot.high - value) * scale + Fraction(1, 2))))

    lines = []
    for row in range(rows, -1, -1):
        t = Fraction(row) / scale
        cells = [" "] * columns
        if t >= plot.mast_from:
            cells[column(plot.mean)] = "|"
        elif plot.left_wall:
            for wall in (plot.left_wall, plot.right_wall):
                value, slope = _at(wall, t)
                cells[column(value)] = "|" if slope == 0 else "/" if slope < 0 else "\\"
        mark = ""
        if row == 0:
            mark = " t = 0"
        elif t - Fraction(1) / scale < plot.temperature <= t and plot.temperature > 0:
            mark = f" t = {_text(plot.temperature)} (temperature)"
        elif row == rows:
            mark = f" t = {_text(t)}"
        lines.append("".join(cells).rstrip().ljust(columns) + " " + mark.strip())
    lines.append("-" * columns)
    marks = [" "] * columns
    names: list[str] = []
    for what, value in (
        ("left stop", plot.left_stop),
        ("mean", plot.mean),
        ("right stop", plot.right_stop),
    ):
        at = column(value)
        if marks[at] == " ":
            marks[at] = "^"
        names.append(f"{what} {_text(value)}")
    lines.append("".join(marks).rstrip())
    lines.append(
        f"Thermograph of {game}: " + ", ".join(names) + ", temperature " + _text(plot.temperature)
    )
    if legend:
        lines.extend(plot.legend())
    return "\n".join(line.rstrip() for line in lines) + "\n"
