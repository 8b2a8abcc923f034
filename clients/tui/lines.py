"""Updating a line of text that may be gone."""

from __future__ import annotations

from textual.dom import DOMNode
from textual.widgets import Static

__all__ = ["say"]


def say(node: DOMNode, selector: str, text: str) -> None:
    """Show `text` in the line `selector` under `node`, if it is still there. A reply to a
    request can come back as its screen is being closed: Textual takes a screen's widgets away
    before it cancels their workers, and then there is nothing to show it on."""
    for line in node.query(selector).results(Static):
        line.update(text)
