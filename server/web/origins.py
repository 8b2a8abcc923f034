"""Which web pages may open the websocket. A browser names the page's origin in the handshake's
`Origin` header, and any page on any site may try to connect: without this check another site
could play, chat or watch as a visitor's guest session. Clients that are not browsers (bots,
the terminal client) send no `Origin` and are let through."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["Origins", "origin"]


def origin(text: str) -> str:
    """An origin as a browser writes it (`https://arena.example`, `http://127.0.0.1:8765`):
    scheme, host and port if not the default, lowercase, no path; raises ValueError otherwise."""
    scheme, sep, rest = text.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https") or not rest or "/" in rest.rstrip("/"):
        raise ValueError(f"{text!r} is not an origin such as https://arena.example")
    return f"{scheme.lower()}://{rest.rstrip('/').lower()}"


class Origins:
    """The origins allowed: those listed, or with none listed the server's own, that is the
    origin of a page served by the host the handshake names (its `Host` header)."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = frozenset(origin(text) for text in allowed)

    def allows(self, page: str | None, host: str | None) -> bool:
        """Whether a handshake from a page of origin `page` (None: no `Origin` header, not a
        browser) to `host` may open the websocket."""
        if page is None:
            return True
        page = page.lower()
        if self.allowed:
            return page in self.allowed
        return host is not None and page in (f"http://{host.lower()}", f"https://{host.lower()}")
