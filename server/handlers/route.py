"""The typed dispatch table: a request type and the handler that answers it (`on`), the
handlers of one area bound to that area's services (`bind`), and the check that every request
a connection passes on has exactly one handler (`check`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from server.protocol import Request

__all__ = ["Route", "bind", "check", "on"]

Services = TypeVar("Services")
Connection = TypeVar("Connection")
R = TypeVar("R", bound=Request)
# A route for a narrow view of the connection serves any connection that offers more.
ServicesIn = TypeVar("ServicesIn", contravariant=True)
ConnectionIn = TypeVar("ConnectionIn", contravariant=True)


@dataclass(frozen=True)
class Route(Generic[ServicesIn, ConnectionIn]):
    """One request type and its handler, which takes its area's services, the connection the
    request came on and the request."""

    request: type[Request]
    handler: Callable[[ServicesIn, ConnectionIn, Any], Awaitable[None]]


def on(
    request: type[R], handler: Callable[[Services, Connection, R], Awaitable[None]]
) -> Route[Services, Connection]:
    """Route `request` to `handler` (the types make sure the handler takes that request)."""
    return Route(request, handler)


def bind(
    routes: Iterable[Route[Services, Connection]], services: Services
) -> dict[type[Request], Callable[[Connection, Request], Awaitable[None]]]:
    """An area's handlers, each given the area's services once, by request type."""
    return {route.request: partial(route.handler, services) for route in routes}


def check(routes: Iterable[Route[Any, Any]], requests: Iterable[type[Request]]) -> None:
    """Raise TypeError unless each of `requests` has exactly one route and no route is for
    anything else."""
    seen: dict[type[Request], Route[Any, Any]] = {}
    for route in routes:
        if route.request in seen:
            raise TypeError(
                f"{route.request.__name__} has two handlers: "
                f"{_name(seen[route.request])} and {_name(route)}"
            )
        seen[route.request] = route
    expected = set(requests)
    missing = sorted(kind.__name__ for kind in expected - seen.keys())
    if missing:
        raise TypeError(f"no handler for {', '.join(missing)}")
    extra = sorted(kind.__name__ for kind in seen.keys() - expected)
    if extra:
        raise TypeError(f"handlers for requests a connection never passes on: {', '.join(extra)}")


def _name(route: Route[Any, Any]) -> str:
    return f"{route.handler.__module__}.{route.handler.__qualname__}"
