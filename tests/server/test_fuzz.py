"""Random frames thrown at a live server: random bytes, random msgpack values, real requests with
a field of the wrong type, oversized frames and text frames. Each gets exactly one `error` with
the code the protocol gives it (a frame over 64 KiB closes the connection with 1009), and the
same connection then still answers `ping` and a real request."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import typing
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from enum import StrEnum
from types import NoneType, UnionType
from typing import Annotated, Any

import msgpack
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from redis.asyncio import from_url
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from server.app import Arena
from server.commands import MAX_FRAME
from server.protocol import (
    MAX_REQUEST_FRAME,
    PROTOCOL_VERSION,
    REQUESTS,
    ErrorCode,
    ErrorReply,
    Event,
    GameList,
    Guest,
    Hello,
    HouseBots,
    ListGames,
    Ping,
    Pong,
    ProtocolError,
    Request,
    Welcome,
    decode_event,
    decode_request,
)
from server.protocol.schema import Range
from tests.server.protocol import examples

REPLY_SECONDS = 5.0  # to wait for any one reply before the example fails
FUZZ = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,  # the same examples on every run
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
DECODE_ERRORS = {
    ErrorCode.BAD_FRAME,
    ErrorCode.MISSING_FIELD,
    ErrorCode.BAD_FIELD,
    ErrorCode.UNKNOWN_TYPE,
    ErrorCode.FRAME_TOO_LARGE,
}


@pytest.fixture(scope="module")
def server_url(redis_url: str) -> Iterator[str]:
    """An in-process server on its own event loop in a thread, so hypothesis can drive it from
    plain synchronous tests; the websocket limit is `arena serve`'s."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    found: dict[str, Any] = {}

    async def run() -> None:
        redis = from_url(redis_url)
        arena = Arena(redis)
        stop = asyncio.Event()
        found["stop"] = stop
        await arena.start()
        try:
            async with serve(
                arena.handle, "127.0.0.1", 0, process_request=arena.health, max_size=MAX_FRAME
            ) as server:
                port = next(iter(server.sockets)).getsockname()[1]
                found["url"] = f"ws://127.0.0.1:{port}"
                ready.set()
                await stop.wait()
        finally:
            await arena.close()
            await redis.aclose()

    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    try:
        assert ready.wait(10), "the server did not start"
        yield found["url"]
    finally:
        loop.call_soon_threadsafe(found["stop"].set)
        thread.join(10)
        loop.close()


def _receive(socket: ClientConnection) -> Event:
    """The next frame other than `house_bots`, news the server sends whenever a house bot's
    readiness (or the rules') changes, between any two replies."""
    while True:
        frame = socket.recv(timeout=REPLY_SECONDS)
        assert isinstance(frame, bytes), "the server sends binary frames"
        event = decode_event(frame)
        if not isinstance(event, HouseBots):
            return event


def _ask(socket: ClientConnection, request: Request, expect: type[Event]) -> Event:
    socket.send(request.to_wire())
    reply = _receive(socket)
    assert isinstance(reply, expect), reply
    assert reply.id == request.id
    return reply


@contextlib.contextmanager
def _logged_in(url: str) -> Iterator[ClientConnection]:
    """A connection that has said hello and logged in as a guest."""
    with connect(url, max_size=2**20, open_timeout=REPLY_SECONDS) as socket:
        _ask(socket, Hello(PROTOCOL_VERSION, id=1), Event)
        _ask(socket, Guest(id=2), Welcome)
        yield socket


def _one_error_then_still_serving(url: str, frame: bytes | str) -> ErrorReply:
    """Send `frame` on a logged-in connection: exactly one error comes back, and then a ping and
    a real request are answered in turn (a second reply to `frame` would be seen first)."""
    with _logged_in(url) as socket:
        socket.send(frame)
        reply = _receive(socket)
        assert isinstance(reply, ErrorReply), reply
        _ask(socket, Ping(id=100), Pong)
        _ask(socket, ListGames(id=101), GameList)
    return reply


def _expected(frame: bytes | str) -> ProtocolError:
    """The refusal the protocol gives `frame` (examples it accepts are not wanted here)."""
    try:
        decode_request(frame)
    except ProtocolError as error:
        return error
    assume(False)
    raise AssertionError("unreachable")


def _check(url: str, frame: bytes | str) -> ErrorReply:
    expected = _expected(frame)
    reply = _one_error_then_still_serving(url, frame)
    assert reply.code in DECODE_ERRORS
    assert (reply.code, reply.field, reply.id) == (
        expected.code,
        expected.field,
        expected.request_id,
    )
    assert reply.message
    return reply


# Random msgpack values, maps among them with keys a request might have.

FIELD_NAMES = sorted({"t", "id", *(f.name for cls in REQUESTS.values() for f in fields(cls))})
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(sorted(REQUESTS))
    | st.binary(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


@FUZZ
@given(frame=st.binary(max_size=300))
def test_random_bytes(server_url: str, frame: bytes) -> None:
    _check(server_url, frame)


@FUZZ
@given(value=values)
def test_random_msgpack_values(server_url: str, value: object) -> None:
    _check(server_url, msgpack.packb(value))


# Real requests with one field of the wrong type (or out of bounds, or unknown).

# msgpack carries ints from -2**63 to 2**64 - 1; a client cannot send others at all.
WIRE_INTS = st.integers(min_value=-(2**63), max_value=2**64 - 1)
WRONG = {
    int: st.text(max_size=10) | st.booleans() | st.floats(allow_nan=False) | st.binary(max_size=5),
    str: WIRE_INTS | st.booleans() | st.lists(st.text(max_size=3), max_size=2),
    bool: st.integers(0, 1) | st.text(max_size=5) | st.just([]),
    tuple: st.text(max_size=10) | WIRE_INTS | st.dictionaries(st.text(max_size=3), st.none()),
    dict: st.text(max_size=10) | WIRE_INTS | st.lists(WIRE_INTS, max_size=3),
}


def _kind(hint: object) -> tuple[type, Range | None]:
    """What a field's wire value must be (int, str, bool, tuple or dict) and an int's bounds."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, UnionType):
        return _kind(next(arg for arg in args if arg is not NoneType))
    if origin is Annotated:
        base, bounds = args[0], args[1]
        kind = tuple if typing.get_origin(base) is tuple else base
        return kind, bounds if isinstance(bounds, Range) else None
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return str, None
    if isinstance(hint, type) and is_dataclass(hint):
        return dict, None
    assert hint is bool, hint
    return bool, None


def _wrong_value(hint: object) -> st.SearchStrategy[object]:
    kind, bounds = _kind(hint)
    wrong = WRONG[kind]
    if bounds is not None:
        wrong = (
            wrong
            | st.integers(min_value=-(2**63), max_value=bounds.low - 1)
            | st.integers(bounds.high + 1, 2**64 - 1)
        )
    return wrong


@st.composite
def requests_with_a_wrong_field(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A real request's map with one field set to a value of the wrong type (or an unknown field
    added), and the name of that field."""
    request = draw(st.sampled_from(examples.REQUESTS))
    data: dict[str, Any] = msgpack.unpackb(request.to_wire())
    hints = typing.get_type_hints(type(request), include_extras=True)
    names = [f.name for f in fields(request) if f.name != "id"]
    if not names or draw(st.integers(0, 4)) == 0:
        name = draw(st.sampled_from(FIELD_NAMES) | st.text(min_size=1, max_size=8))
        assume(name not in ("t", "id", *names))
        data[name] = draw(values)
    else:
        name = draw(st.sampled_from(names))
        data[name] = draw(_wrong_value(hints[name]))
    if draw(st.booleans()):
        data["id"] = draw(st.integers(0, 2**32 - 1))
    return data, name


@FUZZ
@given(case=requests_with_a_wrong_field())
def test_requests_with_a_field_of_the_wrong_type(
    server_url: str, case: tuple[dict[str, Any], str]
) -> None:
    data, name = case
    reply = _check(server_url, msgpack.packb(data))
    assert reply.code is ErrorCode.BAD_FIELD
    assert reply.field == name
    assert reply.id == data.get("id")


@settings(FUZZ, max_examples=12)
@given(size=st.integers(MAX_REQUEST_FRAME + 1, MAX_FRAME))
def test_frames_over_16_kib_are_refused(server_url: str, size: int) -> None:
    frame = msgpack.packb({"t": "ping", "id": 7, "pad": "x" * (size - 20)})
    frame += b"\x00" * (size - len(frame))
    assert len(frame) == size
    reply = _check(server_url, frame)
    assert reply.code is ErrorCode.FRAME_TOO_LARGE
    assert reply.id is None  # an oversized frame is not read, so its id is not known


@FUZZ
@given(text=st.text(max_size=200))
def test_text_frames(server_url: str, text: str) -> None:
    assert _check(server_url, text).code is ErrorCode.BAD_FRAME


def test_a_frame_over_64_kib_closes_the_connection_with_1009(server_url: str) -> None:
    with _logged_in(server_url) as socket:
        socket.send(b"\x00" * (MAX_FRAME + 1))
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=REPLY_SECONDS)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009
    # The server itself is unharmed.
    with _logged_in(server_url) as socket:
        _ask(socket, Ping(id=1), Pong)
