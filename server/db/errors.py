"""The one error of the history store that reaches a user."""

from __future__ import annotations

__all__ = ["DatabaseError"]


class DatabaseError(ValueError):
    """A database that cannot be used: a bad URL, a server that does not answer, a file that is
    not a database, a schema newer than the program. The message is one line for the user."""
