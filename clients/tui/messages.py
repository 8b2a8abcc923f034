"""What the application tells its screens about the connection."""

from __future__ import annotations

from textual.message import Message

from clients.changes import Change

__all__ = ["Reconnected", "ServerChange"]


class ServerChange(Message):
    """Something the server changed (a change of the client core)."""

    def __init__(self, change: Change) -> None:
        super().__init__()
        self.change = change


class Reconnected(Message):
    """A dropped connection was taken up again: what a screen follows must be asked again."""
