from typing import Any

import msgpack
import pytest

from server.protocol import (
    PROTOCOL_VERSION,
    ErrorCode,
    ErrorReply,
    Login,
    Phase,
    ProtocolError,
    Resign,
    ServerConnection,
    Watch,
    Welcome,
)
from tests.server.protocol.examples import ANN

HELLO = msgpack.packb({"t": "hello", "id": 1, "version": PROTOCOL_VERSION})
LOGIN = msgpack.packb({"t": "login", "id": 2, "user": "ann", "password": "correct horse"})


def _replies(connection: ServerConnection) -> list[dict[str, Any]]:
    return [msgpack.unpackb(frame) for frame in connection.data_to_send()]


def _in_phase(phase: Phase) -> ServerConnection:
    connection = ServerConnection()
    if phase is not Phase.HELLO:
        connection.receive(HELLO)
    if phase is Phase.READY:
        connection.receive(LOGIN)
        connection.send(Welcome(PROTOCOL_VERSION, "session-1", ANN, id=2))
    connection.data_to_send()
    assert connection.phase is phase
    return connection


def test_hello_is_answered_by_the_connection_itself() -> None:
    connection = ServerConnection()
    assert connection.phase is Phase.HELLO
    assert connection.receive(HELLO) is None
    assert _replies(connection) == [{"t": "ok", "id": 1, "signups": False}]
    assert connection.phase is Phase.LOGIN


@pytest.mark.parametrize(
    "fields",
    [
        {"t": "login", "id": 7, "user": "ann", "password": "x"},
        {"t": "ping", "id": 7},
        {"t": "watch", "id": 7, "game_id": "g1"},
    ],
)
def test_nothing_comes_before_hello(fields: dict[str, Any]) -> None:
    connection = ServerConnection()
    assert connection.receive(msgpack.packb(fields)) is None
    [reply] = _replies(connection)
    assert reply["code"] == "not_authenticated"
    assert reply["message"] == f"send hello before {fields['t']}"
    assert reply["id"] == 7
    assert connection.phase is Phase.HELLO


def test_an_unsupported_version_closes_the_connection() -> None:
    connection = ServerConnection()
    connection.receive(msgpack.packb({"t": "hello", "id": 1, "version": PROTOCOL_VERSION + 1}))
    assert _replies(connection) == [
        {
            "t": "error",
            "id": 1,
            "code": "unsupported_version",
            "message": f"protocol version {PROTOCOL_VERSION + 1} is not supported; "
            f"this server speaks version {PROTOCOL_VERSION}",
        }
    ]
    assert connection.phase is Phase.CLOSING
    assert connection.receive(HELLO) is None
    assert connection.receive(LOGIN) is None
    assert connection.data_to_send() == []


def test_only_logins_and_pings_come_between_hello_and_welcome() -> None:
    connection = _in_phase(Phase.LOGIN)
    assert connection.receive(msgpack.packb({"t": "ping", "id": 3})) is None
    assert connection.receive(msgpack.packb({"t": "resign", "id": 4, "game_id": "g1"})) is None
    pong, refusal = _replies(connection)
    assert pong == {"t": "pong", "id": 3}
    assert refusal["code"] == "not_authenticated"
    assert (
        refusal["message"]
        == "log in before resign: send login, sign_up, bot_login, guest or resume"
    )
    assert refusal["id"] == 4
    assert connection.receive(LOGIN) == Login("ann", "correct horse", id=2)
    assert connection.data_to_send() == []


def test_a_client_may_send_its_login_without_waiting_for_ok() -> None:
    connection = ServerConnection()
    assert connection.receive(HELLO) is None
    assert connection.receive(LOGIN) == Login("ann", "correct horse", id=2)
    assert _replies(connection) == [{"t": "ok", "id": 1, "signups": False}]


def test_welcome_completes_the_login() -> None:
    connection = ServerConnection()
    connection.receive(HELLO)
    login = connection.receive(LOGIN)
    assert login is not None
    connection.send(Welcome(PROTOCOL_VERSION, "session-1", ANN, ("g42",), id=login.id))
    assert connection.phase is Phase.READY
    assert connection.user == ANN
    assert _replies(connection)[-1] == {
        "t": "welcome",
        "id": 2,
        "version": PROTOCOL_VERSION,
        "session": "session-1",
        "user": {"name": "ann", "kind": "human", "rating": 1712},
        "games": ["g42"],
    }


def test_bad_credentials_leave_the_client_free_to_try_again() -> None:
    connection = ServerConnection()
    connection.receive(HELLO)
    login = connection.receive(LOGIN)
    assert login is not None
    wrong = ProtocolError(ErrorCode.BAD_CREDENTIALS, "wrong user name or password")
    connection.send(ErrorReply.of(wrong, id=login.id))
    assert connection.phase is Phase.LOGIN
    assert _replies(connection)[-1]["code"] == "bad_credentials"
    assert connection.receive(LOGIN) == login


def test_once_logged_in_requests_pass_through() -> None:
    connection = _in_phase(Phase.READY)
    watch = msgpack.packb({"t": "watch", "id": 8, "game_id": "g42"})
    assert connection.receive(watch) == Watch("g42", id=8)
    resign = msgpack.packb({"t": "resign", "game_id": "g42"})
    assert connection.receive(resign) == Resign("g42")
    assert connection.data_to_send() == []


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (HELLO, "hello was already sent"),
        (LOGIN, "already logged in; log in again on a new connection"),
        (msgpack.packb({"t": "resume", "id": 2, "session": "s"}), "already logged in"),
    ],
)
def test_the_handshake_happens_once(frame: bytes, message: str) -> None:
    connection = _in_phase(Phase.READY)
    assert connection.receive(frame) is None
    [reply] = _replies(connection)
    assert reply["code"] == "conflict"
    assert reply["message"].startswith(message)
    assert connection.phase is Phase.READY


@pytest.mark.parametrize("phase", [Phase.HELLO, Phase.LOGIN, Phase.READY])
def test_a_bad_frame_is_answered_in_any_phase(phase: Phase) -> None:
    state = _in_phase(phase)
    assert state.receive(b"\x81\xa1t\xa4move\x00") is None
    assert state.receive(msgpack.packb({"t": "move", "id": 9, "game_id": "g1"})) is None
    assert state.receive("hello") is None
    frame_error, field_error, text_error = _replies(state)
    assert frame_error["code"] == "bad_frame"
    assert "id" not in frame_error
    assert field_error == {
        "t": "error",
        "id": 9,
        "code": "missing_field",
        "message": "missing field 'ply' in move",
        "field": "ply",
    }
    assert text_error["code"] == "bad_frame"
    assert state.phase is phase


def test_frames_come_out_in_order_and_once() -> None:
    connection = ServerConnection()
    connection.receive(HELLO)
    connection.receive(msgpack.packb({"t": "ping", "id": 2}))
    assert [reply["t"] for reply in _replies(connection)] == ["ok", "pong"]
    assert connection.data_to_send() == []
