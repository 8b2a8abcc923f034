"""Records kept in Redis as msgpack maps through the protocol's schema, as messages travel: fields
by name, so a field added later with a default reads from a record stored before it, and a field
that a newer server added is skipped by an older one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import msgpack

from server.protocol import ProtocolError
from server.protocol.schema import Context, decode_fields, encode_fields

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["StoredRecordError", "pack", "unpack"]

D = TypeVar("D", bound="DataclassInstance")

# Reads a record that servers before named fields stored as a list of its values in order.
Positional = Callable[[list[Any]], Mapping[str, object]]


class StoredRecordError(ValueError):
    """A stored record that cannot be read: not a map, or a field that fails its schema."""


def pack(value: DataclassInstance) -> bytes:
    """A record as a msgpack map of its fields (None fields left out)."""
    data: bytes = msgpack.packb(encode_fields(value))
    return data


def unpack(cls: type[D], data: bytes, what: str, positional: Positional | None = None) -> D:
    """Read a record of type `cls` (`what` names it in errors); `positional` turns the list
    that earlier servers stored into named fields."""
    try:
        raw = msgpack.unpackb(data)
    except Exception as error:
        raise StoredRecordError(f"stored {what} is not msgpack: {error}") from None
    if isinstance(raw, list) and positional is not None:
        try:
            raw = positional(raw)
        except (TypeError, ValueError, IndexError) as error:
            raise StoredRecordError(f"stored {what} {raw!r:.80} has the wrong shape") from error
    if not isinstance(raw, Mapping):
        raise StoredRecordError(f"stored {what} is not a map: {raw!r:.80}")
    try:
        return decode_fields(cls, raw, Context(f"stored {what}", strict=False))
    except ProtocolError as error:
        raise StoredRecordError(str(error)) from None
