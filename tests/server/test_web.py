"""The web client's page and files served on the websocket port by a real server, with the
headers browsers act on, and the check of a handshake's `Origin`."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from email.message import Message

import msgpack
import pytest
import pytest_asyncio
import structlog
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from clients import ArenaClient
from server.cli import main
from server.web.origins import Origins, origin
from server.web.site import Site
from tests.server.endpoint import serving


@pytest_asyncio.fixture
async def url(redis_url: str) -> AsyncIterator[str]:
    async with serving(redis_url) as url:
        yield url


def _get(url: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, Message, bytes]:
    """The status, headers and body of a plain-HTTP GET to the server at the websocket `url`."""
    request = urllib.request.Request(url.replace("ws://", "http://") + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


async def get(url: str, path: str, **headers: str) -> tuple[int, Message, bytes]:
    return await asyncio.to_thread(
        _get, url, path, {k.replace("_", "-"): v for k, v in headers.items()}
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "path", ["/", "/game/abc_DEF-12", "/ladder/fast", "/player/guest-12", "/?from=somewhere"]
)
async def test_the_page_is_served_at_the_lobby_and_at_every_game(url: str, path: str) -> None:
    status, headers, body = await get(url, path)
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert b'<script type="module" src="/static/app.js">' in body
    host = url.removeprefix("ws://")
    policy = headers["Content-Security-Policy"]
    assert f"connect-src ws://{host} wss://{host};" in policy
    assert "script-src 'self';" in policy
    assert "style-src 'self';" in policy
    assert "unsafe-inline" not in policy
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["Cache-Control"] == "no-cache"


def test_the_page_preloads_what_the_lobby_needs_and_nothing_else() -> None:
    """The modules the lobby runs on are fetched at once, not one import level after another;
    the other views' modules are not fetched before the lobby is playable."""
    site = Site.load()
    page = site.assets["index.html"].body.decode()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/static/([^"]+)">', page))

    def imports(name: str, dynamic: bool) -> set[str]:
        folder = name.rpartition("/")[0]
        pattern = r'(?:from |import\()"\./([^"]+)"' if dynamic else r'from "\./([^"]+)"'
        found = re.findall(pattern, site.assets[name].body.decode())
        return {f"{folder}/{target}" if folder else target for target in found}

    needed: set[str] = set()
    waiting = imports("app.js", dynamic=False) | {"lobby.js"}
    while waiting:
        name = waiting.pop()
        needed.add(name)
        waiting |= imports(name, dynamic=False) - needed
    assert preloaded == needed
    assert {"game.js", "ladder.js", "player.js"} <= imports("app.js", dynamic=True) - needed


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("path", "content_type", "text"),
    [
        ("/static/app.js", "text/javascript; charset=utf-8", b"import"),
        ("/static/arena.css", "text/css; charset=utf-8", b".board"),
        ("/static/vendor/msgpack.mjs", "text/javascript; charset=utf-8", b"export const {"),
        ("/static/vendor/msgpack.LICENSE.txt", "text/plain; charset=utf-8", b"MessagePack"),
    ],
)
async def test_static_files_come_with_their_type_and_a_tag_to_revalidate(
    url: str, path: str, content_type: str, text: bytes
) -> None:
    status, headers, body = await get(url, path)
    assert (status, headers["Content-Type"]) == (200, content_type)
    assert text in body
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-cache"
    status, _, body = await get(url, path, If_None_Match=headers["ETag"])
    assert (status, body) == (304, b"")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "path",
    [
        "/nowhere",
        "/static/",
        "/static/missing.js",
        "/static/../app.py",
        "/game/",
        "/game/a/b",
        "/ladder/",
        "/ladder/a.b",
        "/player/",
        "/player/" + "x" * 33,
        "/static/vendor/README.md",
    ],
)
async def test_other_paths_are_not_found(url: str, path: str) -> None:
    status, headers, body = await get(url, path)
    assert (status, body) == (404, b"not found\n")
    assert headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.asyncio
async def test_health_and_the_websocket_are_as_before(url: str) -> None:
    assert (await get(url, "/healthz"))[::2] == (200, b"ok\n")
    client = await ArenaClient.connect(url)
    try:
        welcome = await client.guest()
        assert welcome.user.name.startswith("guest")
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_a_page_of_another_origin_is_refused_the_socket(url: str) -> None:
    with structlog.testing.capture_logs() as logs, pytest.raises(InvalidStatus) as refused:
        async with connect(url, origin=Origin("http://evil.example")):
            pass
    assert refused.value.response.status_code == 403
    host = url.removeprefix("ws://")
    assert [
        (e["event"], e["origin"], e["host"]) for e in logs if e["event"] == "origin_refused"
    ] == [("origin_refused", "http://evil.example", host)]


@pytest.mark.asyncio
async def test_the_servers_own_pages_may_open_the_socket(url: str) -> None:
    async with connect(url, origin=Origin(url.replace("ws://", "http://"))) as socket:
        await socket.send(msgpack.packb({"t": "hello", "version": 1}))
        assert msgpack.unpackb(await socket.recv())["t"] == "ok"


@pytest.mark.asyncio
async def test_a_listed_origin_replaces_the_servers_own(redis_url: str) -> None:
    async with serving(redis_url, allowed_origins=["https://Arena.example/"]) as url:
        async with connect(url, origin=Origin("https://arena.example")):
            pass
        with pytest.raises(InvalidStatus):
            async with connect(url, origin=Origin(url.replace("ws://", "http://"))):
                pass


def test_origins_are_read_as_browsers_write_them() -> None:
    assert origin("HTTPS://Arena.Example:8443/") == "https://arena.example:8443"
    for text in ["arena.example", "ftp://arena.example", "https://arena.example/play", "https://"]:
        with pytest.raises(ValueError, match="is not an origin"):
            origin(text)
    own = Origins()
    assert own.allows(None, "127.0.0.1:8765")
    assert own.allows("http://127.0.0.1:8765", "127.0.0.1:8765")
    assert not own.allows("http://127.0.0.1:8766", "127.0.0.1:8765")
    assert not own.allows("null", "127.0.0.1:8765")


def test_a_bad_allowed_origin_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--allowed-origin", "arena.example"])
    assert exit_info.value.code == 2
    assert "argument --allowed-origin: 'arena.example' is not an origin" in capsys.readouterr().err
    monkeypatch.setenv("ARENA_ALLOWED_ORIGINS", "https://a.example b.example")
    with pytest.raises(SystemExit, match=r"ARENA_ALLOWED_ORIGINS: 'b\.example' is not an origin"):
        main(["serve"])
