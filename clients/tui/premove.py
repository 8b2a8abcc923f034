"""A premove: one move queued while the opponent thinks, sent the moment it is the user's turn
if it is still legal then, and cancelled otherwise. Pure: the screen asks it at each new state.
"""

from __future__ import annotations

from engine.game import GameState

__all__ = ["Premove"]


class Premove:
    """At most one queued move. `on_turn(state)` on each state where the user is to move gives
    the move to send (and forgets it) or None; a move no longer legal is cancelled, and
    `cancelled` keeps the engine's reason until the next move is queued."""

    def __init__(self) -> None:
        self.pending: str | None = None
        self.cancelled: str | None = None

    def queue(self, text: str) -> None:
        """Queue `text`, replacing any move queued before."""
        self.pending = text
        self.cancelled = None

    def cancel(self) -> None:
        self.pending = None

    def on_turn(self, state: GameState[object]) -> str | None:
        """The queued move in the game's own spelling when it is legal in `state` (the user's
        turn), forgotten once given; None when none is queued or it is no longer legal, which
        cancels it."""
        text, self.pending = self.pending, None
        if text is None:
            return None
        try:
            return state.format_move(state.parse_move(text))
        except ValueError as error:
            self.cancelled = f"premove {text} cancelled: {error}"
            return None
