"""Errors for bad input, shared by every game: each names what is wrong and where."""

from __future__ import annotations

__all__ = ["GameOverError", "IllegalMoveError", "NotationError"]


class NotationError(ValueError):
    """Text that cannot be read: a malformed move, square, setup name or position text."""


class IllegalMoveError(ValueError):
    """A well-formed move that is not legal in the position it was played in."""


class GameOverError(IllegalMoveError):
    """A move offered in a position where the game is already over."""
