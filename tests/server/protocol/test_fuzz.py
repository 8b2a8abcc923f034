"""Whatever arrives, decoding returns a message or raises ProtocolError; anything it accepts
encodes back to the same message."""

from collections.abc import Callable
from typing import Any

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from server.protocol import (
    EVENTS,
    REQUESTS,
    ErrorCode,
    Message,
    ProtocolError,
    decode_event,
    decode_request,
)
from tests.server.protocol import examples

Decoder = Callable[[bytes], Message]
DECODERS: list[Decoder] = [decode_request, decode_event]


def _decodes_or_refuses(decode: Decoder, frame: bytes) -> None:
    try:
        message = decode(frame)
    except ProtocolError as error:
        refusal = error
    else:
        assert decode(message.to_wire()) == message
        return
    assert isinstance(refusal.code, ErrorCode)
    assert str(refusal)


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in _keys(item)}
    if isinstance(value, list):
        return {key for item in value for key in _keys(item)}
    return set()


FIELD_NAMES = sorted(
    {
        key
        for message in examples.REQUESTS + examples.EVENTS
        for key in _keys(msgpack.unpackb(message.to_wire()))
    }
)
TAGS = sorted({*REQUESTS, *EVENTS})
EXAMPLE_FRAMES = [message.to_wire() for message in examples.REQUESTS + examples.EVENTS]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.integers(min_value=-2, max_value=1002)
    | st.floats()
    | st.text(max_size=40)
    | st.sampled_from(["white", "black", "random", "10x10", "d1-d7/g7", "human", "ended"])
    | st.binary(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(max_size=10) | st.sampled_from(FIELD_NAMES), inner, max_size=5)
    ),
    max_leaves=12,
)


@st.composite
def near_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A real message's map with a few fields, maybe nested, removed or set to anything, and
    maybe another tag: decoding goes deep and sometimes succeeds."""
    fields: dict[str, Any] = msgpack.unpackb(draw(st.sampled_from(EXAMPLE_FRAMES)))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        target = fields
        for step in draw(st.lists(st.integers(min_value=0, max_value=9), max_size=3)):
            inner = [value for value in target.values() if isinstance(value, dict)]
            inner += [
                item for value in target.values() if isinstance(value, list) for item in value
            ]
            inner = [value for value in inner if isinstance(value, dict)]
            if not inner:
                break
            target = inner[step % len(inner)]
        key = draw(st.sampled_from(FIELD_NAMES))
        if draw(st.booleans()):
            target.pop(key, None)
        else:
            target[key] = draw(values)
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        fields["t"] = draw(st.sampled_from(TAGS))
    return fields


@given(frame=st.binary(max_size=200), decode=st.sampled_from(DECODERS))
def test_arbitrary_bytes(frame: bytes, decode: Decoder) -> None:
    _decodes_or_refuses(decode, frame)


@given(value=values, decode=st.sampled_from(DECODERS))
def test_arbitrary_msgpack_values(value: object, decode: Decoder) -> None:
    _decodes_or_refuses(decode, msgpack.packb(value))


@settings(max_examples=300)
@given(fields=near_messages())
def test_maps_that_look_like_messages(fields: dict[str, Any]) -> None:
    tag = fields.get("t")
    decode = decode_request if isinstance(tag, str) and tag in REQUESTS else decode_event
    _decodes_or_refuses(decode, msgpack.packb(fields))


@given(
    frame=st.sampled_from(EXAMPLE_FRAMES),
    cut=st.integers(min_value=0, max_value=400),
    flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(1, 255)), max_size=3),
    decode=st.sampled_from(DECODERS),
)
def test_damaged_frames(
    frame: bytes, cut: int, flips: list[tuple[int, int]], decode: Decoder
) -> None:
    damaged = bytearray(frame[:cut])
    for position, mask in flips:
        if damaged:
            damaged[position % len(damaged)] ^= mask
    _decodes_or_refuses(decode, bytes(damaged))
