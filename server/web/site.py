"""The web client's files, read once from the package, and the HTTP responses that carry them:
the one page at `/`, `/game/ID`, `/ladder/NAME` and `/player/NAME` (the page reads its path),
the files under `/static/`, and 404 for anything else. Every response forbids content sniffing
and referrers; the page also carries a Content-Security-Policy that allows only the server's own
files and its websocket."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources
from importlib.resources.abc import Traversable

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

__all__ = ["PAGE", "STATIC_PREFIX", "Asset", "Site", "refusal", "served"]

STATIC_PREFIX = "/static/"
PAGE = "index.html"
# The page's own paths: the lobby, a game by its id, a ladder and a player by their names (ids
# and names are the protocol's, 1..32 of these characters).
PAGE_PATHS = re.compile(
    r"/|/game/[A-Za-z0-9_-]{1,32}|/ladder/[A-Za-z0-9_-]{1,32}|/player/[A-Za-z0-9_-]{1,32}"
)
# What a Host header may hold to be written into the page's policy: a name or an address, and a
# port. Anything else gets the policy's 'self', which browsers read as the same thing.
HOST = re.compile(r"[A-Za-z0-9.-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}
# Files keep their names from one release to the next, so a browser asks each time whether its
# copy is current (a 304 costs no body) and never mixes the files of two releases.
CACHE_CONTROL = "no-cache"


@dataclass(frozen=True, slots=True)
class Asset:
    """One file as served: its bytes, its content type and its entity tag."""

    body: bytes
    content_type: str
    etag: str

    @classmethod
    def of(cls, body: bytes, content_type: str) -> Asset:
        return cls(body, content_type, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')


class Site:
    """The files of the web client by their path under `/static/` (`app.js`,
    `vendor/msgpack.mjs`), and the page."""

    def __init__(self, assets: dict[str, Asset]) -> None:
        if PAGE not in assets:
            raise ValueError(f"the web client has no {PAGE}")
        self.assets = assets

    @classmethod
    def load(cls) -> Site:
        """The files shipped in the package (`server/web/static/`) whose type is served."""
        assets: dict[str, Asset] = {}
        _gather(resources.files("server.web") / "static", "", assets)
        return cls(assets)

    def respond(self, request: Request) -> Response:
        """The answer to a plain GET (not a websocket handshake)."""
        path = request.path.partition("?")[0]
        if PAGE_PATHS.fullmatch(path):
            return served(self.assets[PAGE], request, policy(request.headers.get("Host")))
        if path.startswith(STATIC_PREFIX) and path[len(STATIC_PREFIX) :] in self.assets:
            return served(self.assets[path[len(STATIC_PREFIX) :]], request)
        return refusal(HTTPStatus.NOT_FOUND, "not found")


def served(asset: Asset, request: Request, security: str | None = None) -> Response:
    """`asset` as the answer to `request` (304 when the asker's copy is current), with the
    Content-Security-Policy `security` if given."""
    headers = _headers(asset)
    if security is not None:
        headers["Content-Security-Policy"] = security
    if asset.etag in _etags(request.headers.get("If-None-Match")):
        return _response(HTTPStatus.NOT_MODIFIED, headers, b"")
    return _response(HTTPStatus.OK, headers, asset.body)


def refusal(status: HTTPStatus, line: str) -> Response:
    """A refusal in one line of plain text."""
    return _response(status, _text_headers(), (line + "\n").encode())


def policy(host: str | None) -> str:
    """The page's Content-Security-Policy: its scripts, styles and images from its own origin,
    nothing inline, and connections only to its own origin's websocket (ws or wss)."""
    connect = f"ws://{host} wss://{host}" if host and HOST.fullmatch(host) else "'self'"
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        f"connect-src {connect}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def _gather(folder: Traversable, prefix: str, assets: dict[str, Asset]) -> None:
    for entry in folder.iterdir():
        name = prefix + entry.name
        if entry.is_dir():
            _gather(entry, name + "/", assets)
            continue
        suffix = "." + entry.name.rpartition(".")[2]
        if suffix in CONTENT_TYPES:
            assets[name] = Asset.of(entry.read_bytes(), CONTENT_TYPES[suffix])


def _etags(header: str | None) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in (header or "").split(",")}


def _guarded(headers: Headers) -> Headers:
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    return headers


def _headers(asset: Asset) -> Headers:
    return _guarded(
        Headers(
            [
                ("Content-Type", asset.content_type),
                ("Cache-Control", CACHE_CONTROL),
                ("ETag", asset.etag),
            ]
        )
    )


def _text_headers() -> Headers:
    return _guarded(Headers([("Content-Type", "text/plain; charset=utf-8")]))


def _response(status: HTTPStatus, headers: Headers, body: bytes) -> Response:
    headers["Content-Length"] = str(len(body))
    return Response(status.value, status.phrase, headers, body)
