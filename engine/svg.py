"""SVG written as text: elements with escaped attributes and content, and the standalone
document around them, for the pictures the engine draws (boards, thermographs). Colours and
fonts are presentation attributes, never a style sheet, so a picture looks the same in a
browser, an image viewer and a page whose Content-Security-Policy forbids inline styles.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

__all__ = [
    "INK",
    "LAST",
    "MOVE",
    "MUTED",
    "arrowhead",
    "document",
    "element",
    "heading",
    "number",
    "text",
    "widened",
]

NAMESPACE = "http://www.w3.org/2000/svg"
FONT = "DejaVu Sans, Verdana, sans-serif"
# The pictures' shared colours, the web client's (arena.css): text, quieter text, the last
# move's squares or pit, and the lines that draw a move.
INK, MUTED, LAST, MOVE = "#1d2430", "#5d6878", "#e6c547", "#1f5fa8"
# A character's width in these fonts, on average, in ems: enough for a line's width estimate.
CHARACTER = 0.6


def number(value: float) -> str:
    """A coordinate as short as it can be written: `3`, `2.5`, `0.35`."""
    return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _attributes(attributes: dict[str, object]) -> str:
    """` name="value"` for each attribute; `class_` writes `class`, `data_at` `data-at`."""
    parts = []
    for name, value in attributes.items():
        if value is None:
            continue
        written = number(value) if isinstance(value, float) else str(value)
        parts.append(f" {name.rstrip('_').replace('_', '-')}={quoteattr(written)}")
    return "".join(parts)


def element(name: str, content: str | Iterable[str] = "", **attributes: object) -> str:
    """`<name .../>`, or `<name ...>content</name>` around content already written as SVG."""
    inside = content if isinstance(content, str) else "".join(content)
    if not inside:
        return f"<{name}{_attributes(attributes)}/>"
    return f"<{name}{_attributes(attributes)}>{inside}</{name}>"


def text(x: float, y: float, words: str, anchor: str = "middle", **attributes: object) -> str:
    """A line of text at (x, y) (its baseline), anchored at its middle, start or end."""
    return element("text", escape(words), x=float(x), y=float(y), text_anchor=anchor, **attributes)


def heading(x: float, room: float, words: str, size: float) -> str:
    """A picture's caption, centred on `x` in the `room` left above its drawing."""
    return text(x, room * 0.7, words, class_="caption", font_size=size, fill=INK)


def widened(x: float, width: float, words: str, font_size: float) -> tuple[float, float]:
    """A view's x and width (in the drawing's units), widened alike on both sides when a line of
    `words` in `font_size` would not fit it."""
    spare = len(words) * font_size * CHARACTER + font_size - width
    return (x - spare / 2, width + spare) if spare > 0 else (x, width)


def arrowhead(colour: str, size: float) -> str:
    """The head that lines with `marker_end="url(#head)"` end in: a triangle `size` times the
    line's width."""
    return element(
        "defs",
        element(
            "marker",
            element("path", d="M 0 0 L 10 5 L 0 10 Z", fill=colour),
            id="head",
            viewBox="0 0 10 10",
            refX=8,
            refY=5,
            markerWidth=size,
            markerHeight=size,
            orient="auto",
        ),
    )


def document(
    width: float, height: float, view: tuple[float, float, float, float], label: str, body: str
) -> str:
    """A standalone SVG file: `width` x `height` pixels showing `view` (x, y, w, h) of the
    drawing, named `label` for screen readers and as its title."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + element(
            "svg",
            element("title", escape(label)) + body,
            xmlns=NAMESPACE,
            width=float(width),
            height=float(height),
            viewBox=" ".join(number(float(v)) for v in view),
            role="img",
            aria_label=label,
            font_family=FONT,
        )
        + "\n"
    )
