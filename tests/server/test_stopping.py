"""Stopping a server endpoint: connections that come in the moment the server stops are
answered or refused, and closed, before the stop returns. On Python 3.11 asyncio failed to set
up a socket accepted just before the close and left it open, unanswered (a browser's late
requests as a web test's server stopped: the ResourceWarning failed a later test), or its
handler started after the server had stopped waiting for handlers."""

import asyncio
import socket

import pytest
from redis.asyncio import Redis

from tests.server.endpoint import arena_serving

HEALTH = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def read_to_the_end(client: socket.socket, answers: dict[socket.socket, bytes]) -> None:
    """Read what the server answers `client` until it closes (b"" if it refused it: a reset),
    then close, as a browser does."""
    loop = asyncio.get_running_loop()
    answer = b""
    try:
        while chunk := await loop.sock_recv(client, 65536):
            answer += chunk
    except ConnectionResetError:
        answer = b""
    answers[client] = answer
    client.close()


def refused(client: socket.socket) -> bool:
    """Whether the server has reset `client` (a connection it never accepted), as of now: the
    reader has not had a turn to see it yet."""
    try:
        client.recv(1)
    except ConnectionResetError:
        return True
    except BlockingIOError:
        return False
    return False


@pytest.mark.asyncio
@pytest.mark.parametrize("turns", [1, 2, 3])
async def test_connections_that_come_as_the_server_stops_are_answered_or_refused(
    redis_url: str, redis: Redis, turns: int
) -> None:
    clients: list[socket.socket] = []
    answers: dict[socket.socket, bytes] = {}
    readers = []
    try:
        async with arena_serving(redis_url) as (_, url):
            port = int(url.rsplit(":", 1)[1])
            for _ in range(3):
                # Connected at once (the listening socket's backlog), the request already sent.
                client = socket.create_connection(("127.0.0.1", port))
                client.sendall(HEALTH)
                client.setblocking(False)
                clients.append(client)
                readers.append(asyncio.create_task(read_to_the_end(client, answers)))
            # A turn or a few of the loop: the server has accepted them or not yet, and set
            # them up or not yet, as it begins to stop.
            for _ in range(turns):
                await asyncio.sleep(0)
        # Answered (the server waits for the reader to close after the answer) or refused.
        for client in clients:
            answer = answers.get(client)
            if answer is None:  # its reader has not had a turn since
                assert refused(client), "a connection still open after the server stopped"
            elif answer:  # b"": refused, as its reader saw
                assert answer.startswith(b"HTTP/1.1 200")
                assert answer.endswith(b"ok\n")
    finally:
        for reader in readers:
            reader.cancel()
        for client in clients:
            client.close()
