"""The envelope every message shares: a type tag `t` and an optional request id `id`.

`Request` (client to server) and `Event` (server to client) subclasses name their tag in the
class line (`class Resign(Request, tag="resign")`) and encode themselves as one msgpack map per
frame with `to_wire()`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import msgpack

from server.protocol.limits import EventVersion, GameId, RequestId
from server.protocol.schema import encode_fields

__all__ = ["Event", "GameEvent", "Message", "Request", "by_tag"]

M = TypeVar("M", bound="Message")


@dataclass(frozen=True)
class Message:
    """A message of either direction. `id` is the client's request id: set on a request to have
    it echoed in the reply, and on a reply to say which request it answers."""

    TAG: ClassVar[str]

    id: RequestId | None = field(default=None, kw_only=True)

    def to_wire(self) -> bytes:
        """The message as one frame: a msgpack map with `t` first, then `id`, then the fields."""
        frame: bytes = msgpack.packb({"t": self.TAG, **encode_fields(self)})
        return frame


def by_tag(*types: type[M]) -> Mapping[str, type[M]]:
    """A read-only table of message types by their tags, for the decoder to dispatch on."""
    table: dict[str, type[M]] = {}
    for cls in types:
        if cls.TAG in table:
            raise TypeError(f"{cls.__name__} and {table[cls.TAG].__name__} share tag {cls.TAG!r}")
        table[cls.TAG] = cls
    return MappingProxyType(table)


@dataclass(frozen=True)
class Request(Message):
    """A message from a client to the server. Subclasses name their tag: `tag="move"`."""

    def __init_subclass__(cls, tag: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.TAG = tag


@dataclass(frozen=True)
class Event(Message):
    """A message from the server to a client: a reply to a request, or news the client follows.
    Abstract groups of events pass `tag=None`."""

    def __init_subclass__(cls, tag: str | None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if tag is not None:
            cls.TAG = tag


@dataclass(frozen=True)
class GameEvent(Event, tag=None):
    """An event about one game, with the game's event version. The events of a game's log count
    up from 1 with no gaps; a `game_state` snapshot carries the version it is up to date with."""

    game_id: GameId
    version: EventVersion
