"""The dispatch table: every request a connection passes on has exactly one handler, found by
its type, and a handler that fails costs the client an error without the failure's text."""

from __future__ import annotations

from typing import Any

import pytest
import structlog
from redis.asyncio import Redis

from server.app import Arena
from server.handlers import ANSWERED_BY_PROTOCOL, ROUTES, Connection
from server.handlers.route import Route, check, on
from server.protocol import (
    PROTOCOL_VERSION,
    REQUESTS,
    Guest,
    Hello,
    Login,
    Ping,
    Player,
    PlayerKind,
    Pong,
    Request,
    Resign,
    ServerConnection,
    Welcome,
    decode_event,
)
from tests.server.endpoint import arena_serving
from tests.server.wire import Wire

PASSED_ON = {kind for kind in REQUESTS.values() if kind not in ANSWERED_BY_PROTOCOL}


async def _ignore(services: object, connection: object, request: Request) -> None:
    pass


@pytest.mark.asyncio
async def test_a_server_has_one_handler_for_each_request_a_connection_passes_on(
    redis: Redis,
) -> None:
    arena = Arena(redis)
    try:
        assert set(arena.dispatch) == PASSED_ON
    finally:
        await arena.analysis.close()


def test_the_protocol_answers_hello_and_ping_itself() -> None:
    connection = ServerConnection()
    assert connection.receive(Hello(PROTOCOL_VERSION, id=1).to_wire()) is None
    connection.send(Welcome(PROTOCOL_VERSION, "session-1", Player("guest-1", PlayerKind.GUEST)))
    connection.data_to_send()
    assert connection.receive(Ping(id=2).to_wire()) is None
    assert [decode_event(frame) for frame in connection.data_to_send()] == [Pong(id=2)]
    assert connection.receive(Guest(id=3).to_wire()) is None  # refused: logged in already


def test_a_request_without_a_handler_is_found_when_the_table_is_checked() -> None:
    without_login = [route for route in ROUTES if route.request is not Login]
    with pytest.raises(TypeError, match=r"^no handler for Login$"):
        check(without_login, PASSED_ON)


def test_a_request_with_two_handlers_is_found_when_the_table_is_checked() -> None:
    twice: list[Route[Any, Any]] = [*ROUTES, on(Resign, _ignore)]
    with pytest.raises(
        TypeError, match=r"^Resign has two handlers: server\.handlers\.play\.resign and "
    ):
        check(twice, PASSED_ON)


def test_a_handler_for_a_request_the_protocol_answers_is_found_when_the_table_is_checked() -> None:
    with pytest.raises(TypeError, match=r"never passes on: Ping$"):
        check([*ROUTES, on(Ping, _ignore)], PASSED_ON)


@pytest.mark.asyncio
async def test_a_failing_handler_is_logged_and_answered_without_its_text(
    redis: Redis, redis_url: str
) -> None:
    async def fail(connection: Connection, request: Request) -> None:
        raise RuntimeError("secret detail of the failure")

    async with arena_serving(redis_url) as (arena, url):
        arena.dispatch = {**arena.dispatch, Resign: fail}
        with structlog.testing.capture_logs() as logs:
            wire = await Wire.guest(url)
            reply = await wire.call("resign", game_id="g1")
            after = await wire.call("list_games")
            await wire.close()
    assert reply["t"] == "error"
    assert (reply["code"], reply["message"]) == ("internal", "the server failed; try again")
    assert "secret" not in str(reply)
    assert after["t"] == "game_list"  # the connection carries on
    failed = [line for line in logs if line["event"] == "request_failed"]
    assert len(failed) == 1
    assert failed[0]["request"] == "resign"
    assert failed[0]["user"] == wire.user
    assert failed[0]["exc_info"] is True
