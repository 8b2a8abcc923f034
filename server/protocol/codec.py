"""Reading frames: the size limit, msgpack, the envelope, and dispatch on `t` to the message type.

The server reads requests strictly (an unknown field is an error); clients read events leniently
(unknown fields are skipped, so a server may add fields within a protocol version). Whatever
the bytes, decoding returns a message or raises `ProtocolError`, never anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import msgpack

from server.protocol.errors import ErrorCode, ProtocolError
from server.protocol.events import EVENTS
from server.protocol.limits import MAX_EVENT_FRAME, MAX_REQUEST_FRAME, MAX_REQUEST_ID
from server.protocol.message import Event, Message, Request
from server.protocol.requests import REQUESTS
from server.protocol.schema import Context, decode_fields, describe

__all__ = ["PROTOCOL_VERSION", "decode_event", "decode_request"]

PROTOCOL_VERSION = 1

M = TypeVar("M", bound=Message)


def decode_request(frame: bytes | str) -> Request:
    """The request in one frame from a client; `ProtocolError` says what is wrong with it."""
    return _decode(frame, REQUESTS, MAX_REQUEST_FRAME, strict=True)


def decode_event(frame: bytes | str) -> Event:
    """The event in one frame from the server; `ProtocolError` says what is wrong with it."""
    return _decode(frame, EVENTS, MAX_EVENT_FRAME, strict=False)


def _decode(frame: bytes | str, types: Mapping[str, type[M]], limit: int, *, strict: bool) -> M:
    if isinstance(frame, str):
        raise ProtocolError(ErrorCode.BAD_FRAME, "text frame: messages go in binary frames")
    if len(frame) > limit:
        raise ProtocolError(
            ErrorCode.FRAME_TOO_LARGE, f"frame of {len(frame)} bytes is over the limit of {limit}"
        )
    data = _unpack(frame)
    request_id = _request_id(data)
    try:
        tag = data.get("t")
        if tag is None:
            raise ProtocolError(
                ErrorCode.MISSING_FIELD, "missing field 't' (message type)", field="t"
            )
        if not isinstance(tag, str):
            raise ProtocolError(
                ErrorCode.BAD_FIELD,
                f"field 't' must be a message type name, got {describe(tag)}",
                field="t",
            )
        cls = types.get(tag)
        if cls is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {describe(tag)}")
        payload = {key: value for key, value in data.items() if key not in ("t", "id")}
        return decode_fields(cls, payload, Context(tag, strict), id=request_id)
    except ProtocolError as error:
        error.request_id = request_id
        raise


def _unpack(frame: bytes) -> dict[object, object]:
    try:
        data: object = msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except Exception as error:
        # msgpack documents that unpacking may raise more than its own exception types; any
        # failure here means the bytes are not one msgpack value.
        raise ProtocolError(
            ErrorCode.BAD_FRAME, f"not a msgpack frame: {_problem(error)}"
        ) from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_FRAME, f"a frame must be a map, got {describe(data)}")
    return data


def _problem(error: Exception) -> str:
    if isinstance(error, msgpack.ExtraData):
        return "bytes left over after the first value"
    if isinstance(error, msgpack.StackError):
        return "values nested too deep"
    if isinstance(error, msgpack.FormatError):
        return "a byte that starts no msgpack value"
    if isinstance(error, UnicodeDecodeError):
        return "a string that is not UTF-8"
    return str(error) or type(error).__name__


def _request_id(data: Mapping[object, object]) -> int | None:
    """The request id, read before anything else so that every later error can echo it."""
    raw = data.get("id")
    if raw is None:
        return None
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= MAX_REQUEST_ID:
        return raw
    raise ProtocolError(
        ErrorCode.BAD_FIELD,
        f"field 'id' must be an int from 0 to {MAX_REQUEST_ID}, got {describe(raw)}",
        field="id",
    )
