"""The protocol's error codes and the one exception its decoders raise.

Every failed request is answered with one of the stable codes below (docs/protocol.md has the
table); `ProtocolError` carries the code, a message naming the field and the problem, and the id
of the request it answers.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ErrorCode", "ProtocolError"]


class ErrorCode(StrEnum):
    """Stable error codes, fixed for a protocol version: clients branch on these, not on text."""

    BAD_FRAME = "bad_frame"
    FRAME_TOO_LARGE = "frame_too_large"
    UNKNOWN_TYPE = "unknown_type"
    MISSING_FIELD = "missing_field"
    BAD_FIELD = "bad_field"
    UNSUPPORTED_VERSION = "unsupported_version"
    NOT_AUTHENTICATED = "not_authenticated"
    BAD_CREDENTIALS = "bad_credentials"
    RATE_LIMITED = "rate_limited"
    NOT_FOUND = "not_found"
    FORBIDDEN = "forbidden"
    CONFLICT = "conflict"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_MOVE = "illegal_move"
    STALE_PLY = "stale_ply"
    GAME_OVER = "game_over"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


class ProtocolError(ValueError):
    """A request or frame the protocol refuses, as the error reply it turns into.

    `field` is the path of the offending field (`time.base`, `moves[3]`) when one is to blame,
    `request_id` the id of the request being answered when it could be read, and `retry_after`
    the seconds to wait before trying again (set with `rate_limited`).
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        field: str | None = None,
        request_id: int | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.request_id = request_id
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"ProtocolError(ErrorCode.{self.code.name}, {str(self)!r})"
