"""How a message's typed fields travel as msgpack values, and back.

Field types are plain ints, strings and tuples annotated with their bounds (`Range`, `Length`),
bools, string enums, optionals and nested dataclasses; decoding checks each one and names the
field and the problem (`field 'ply' must be an int from 0 to 1000, got -3`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields, is_dataclass
from enum import StrEnum
from types import NoneType, UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    TypeAlias,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from server.protocol.errors import ErrorCode, ProtocolError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["Context", "Length", "Range", "Wire", "decode_fields", "describe", "encode_fields"]

Wire: TypeAlias = "bool | int | str | list[Wire] | dict[str, Wire] | None"
D = TypeVar("D", bound="DataclassInstance")

# Longer strings from a client are described by their length in errors, not echoed back.
SHOWN_CHARACTERS = 40


@dataclass(frozen=True)
class Range:
    """Inclusive bounds of an int field: `Annotated[int, Range(0, MAX_PLY)]`."""

    low: int
    high: int


@dataclass(frozen=True)
class Length:
    """Inclusive bounds on a string's characters or a tuple's items."""

    low: int
    high: int

    def phrase(self, unit: str) -> str:
        if self.low == 0:
            return f"at most {self.high} {unit}"
        return f"{self.low} to {self.high} {unit}"


@dataclass(frozen=True)
class Context:
    """What a decode is for: the message type named in errors, and whether fields the schema
    does not know are refused (requests, checked by the server) or skipped (events, read by
    clients that may be older than the server)."""

    tag: str
    strict: bool


Decoder: TypeAlias = Callable[[object, str, Context], object]


def encode_fields(value: DataclassInstance) -> dict[str, Wire]:
    """A dataclass as a wire map; fields that are None are left out, as absent means None."""
    return {
        name: _encode(item)
        for name in _field_names(type(value))
        if (item := getattr(value, name)) is not None
    }


@functools.cache
def _field_names(cls: type[DataclassInstance]) -> tuple[str, ...]:
    # `fields()` builds its tuple anew on each call; every event sent asks for it.
    return tuple(field.name for field in fields(cls))


def _encode(value: object) -> Wire:
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, str):
        return str(value)  # a StrEnum member goes out as its plain value
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return encode_fields(value)
    raise TypeError(f"{type(value).__name__} has no wire form")


def decode_fields(
    cls: type[D],
    data: Mapping[object, object],
    context: Context,
    prefix: str = "",
    **given: object,
) -> D:
    """Build `cls` from a wire map, checking every field; fields in `given` are set, not read."""
    schema = _schema(cls)
    if context.strict:
        known = {field.name for field in schema}
        for key in data:
            if key not in known:
                path = prefix + (key if isinstance(key, str) else repr(key))[:SHOWN_CHARACTERS]
                raise ProtocolError(
                    ErrorCode.BAD_FIELD, f"unknown field {path!r} in {context.tag}", field=path
                )
    values = dict(given)
    for field in schema:
        path = prefix + field.name
        if field.name in given:
            continue
        if field.name in data:
            values[field.name] = field.decode(data[field.name], path, context)
        elif field.required:
            raise ProtocolError(
                ErrorCode.MISSING_FIELD, f"missing field {path!r} in {context.tag}", field=path
            )
    build: Callable[..., D] = cls
    return build(**values)


def describe(raw: object) -> str:
    """A wire value as an error message shows it: short values in full, long ones by size."""
    if raw is None:
        return "nil"
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float):
        return f"the float {raw!r}"
    if isinstance(raw, str):
        return repr(raw) if len(raw) <= SHOWN_CHARACTERS else f"a string of {len(raw)} characters"
    if isinstance(raw, bytes):
        return f"binary data of {_count(len(raw), 'byte')}"
    if isinstance(raw, list):
        return f"an array of {_count(len(raw), 'item')}"
    if isinstance(raw, dict):
        return f"a map of {_count(len(raw), 'field')}"
    return "an extension value"


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"


@dataclass(frozen=True)
class _Field:
    name: str
    decode: Decoder
    required: bool


@functools.cache
def _schema(cls: type[DataclassInstance]) -> tuple[_Field, ...]:
    hints = get_type_hints(cls, include_extras=True)
    return tuple(
        _Field(
            field.name,
            _decoder(hints[field.name]),
            field.default is MISSING and field.default_factory is MISSING,
        )
        for field in fields(cls)
    )


def _decoder(hint: object) -> Decoder:
    origin, args = get_origin(hint), get_args(hint)
    if origin is Annotated:
        base, bounds = args[0], args[1]
        if base is int and isinstance(bounds, Range):
            return _int(bounds)
        if base is str and isinstance(bounds, Length):
            return _text(bounds)
        if get_origin(base) is tuple and isinstance(bounds, Length):
            return _array(_decoder(get_args(base)[0]), bounds)
    elif origin in (Union, UnionType) and len(args) == 2 and NoneType in args:
        return _optional(_decoder(args[0] if args[1] is NoneType else args[1]))
    elif origin is tuple and args and Ellipsis not in args:
        return _row(tuple(_decoder(arg) for arg in args))
    elif hint is bool:
        return _bool
    elif isinstance(hint, type) and issubclass(hint, StrEnum):
        return _choice(hint)
    elif isinstance(hint, type) and is_dataclass(hint):
        return _struct(hint)
    raise TypeError(
        f"no wire form for {hint!r}: bound ints with Range, strings and tuples with Length"
    )


def _refuse(path: str, expected: str, raw: object) -> ProtocolError:
    return ProtocolError(
        ErrorCode.BAD_FIELD, f"field {path!r} must be {expected}, got {describe(raw)}", field=path
    )


def _int(bounds: Range) -> Decoder:
    expected = f"an int from {bounds.low} to {bounds.high}"

    def decode(raw: object, path: str, context: Context) -> object:
        if isinstance(raw, int) and not isinstance(raw, bool) and bounds.low <= raw <= bounds.high:
            return raw
        raise _refuse(path, expected, raw)

    return decode


def _text(bounds: Length) -> Decoder:
    expected = f"a string of {bounds.phrase('characters')}"

    def decode(raw: object, path: str, context: Context) -> object:
        if isinstance(raw, str) and bounds.low <= len(raw) <= bounds.high:
            return raw
        raise _refuse(path, expected, raw)

    return decode


def _array(item: Decoder, bounds: Length) -> Decoder:
    expected = f"an array of {bounds.phrase('items')}"

    def decode(raw: object, path: str, context: Context) -> object:
        if isinstance(raw, list) and bounds.low <= len(raw) <= bounds.high:
            return tuple(
                item(value, f"{path}[{index}]", context) for index, value in enumerate(raw)
            )
        raise _refuse(path, expected, raw)

    return decode


def _row(items: tuple[Decoder, ...]) -> Decoder:
    """A tuple of a fixed length whose items have types of their own, as an array."""
    expected = f"an array of {len(items)} items"

    def decode(raw: object, path: str, context: Context) -> object:
        if isinstance(raw, list) and len(raw) == len(items):
            return tuple(
                item(value, f"{path}[{index}]", context)
                for index, (item, value) in enumerate(zip(items, raw, strict=True))
            )
        raise _refuse(path, expected, raw)

    return decode


def _optional(inner: Decoder) -> Decoder:
    def decode(raw: object, path: str, context: Context) -> object:
        return None if raw is None else inner(raw, path, context)

    return decode


def _bool(raw: object, path: str, context: Context) -> object:
    if isinstance(raw, bool):
        return raw
    raise _refuse(path, "true or false", raw)


def _choice(enum: type[StrEnum]) -> Decoder:
    members = {member.value: member for member in enum}
    expected = "one of " + ", ".join(repr(value) for value in members)

    def decode(raw: object, path: str, context: Context) -> object:
        if isinstance(raw, str) and raw in members:
            return members[raw]
        raise _refuse(path, expected, raw)

    return decode


def _struct(cls: type[DataclassInstance]) -> Decoder:
    def decode(raw: object, path: str, context: Context) -> object:
        if isinstance(raw, dict):
            return decode_fields(cls, raw, context, prefix=f"{path}.")
        raise _refuse(path, "a map", raw)

    return decode
