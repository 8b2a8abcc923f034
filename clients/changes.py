"""What a frame from the server changed, as the client core reports it: typed, frozen values a
user interface or a bot acts on. Game changes carry the game's view after the change; replies
and refusals carry the request they answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from clients.view import GameView
from server.protocol import (
    ChallengeInfo,
    ChallengeOutcome,
    Colour,
    ErrorReply,
    Event,
    Request,
    SeekInfo,
)

__all__ = [
    "CaughtUp",
    "ChallengeClosed",
    "ChallengeOpened",
    "Change",
    "ClocksChanged",
    "FrameSkipped",
    "GameChange",
    "GameDropped",
    "GameFollowed",
    "GameOver",
    "GameReplaced",
    "MoveAdded",
    "News",
    "PresenceChanged",
    "Refused",
    "Replied",
    "ReviewProgress",
    "SeekClosed",
    "SeekOpened",
    "SeeksListed",
    "ServerError",
]


@dataclass(frozen=True)
class Change:
    """Something a frame changed."""


@dataclass(frozen=True)
class GameChange(Change):
    """A change to one game; `view` is the game after it."""

    view: GameView

    @property
    def game_id(self) -> str:
        return self.view.game_id


@dataclass(frozen=True)
class GameFollowed(GameChange):
    """A game this client did not know: it started, or its first `game_state` came."""


@dataclass(frozen=True)
class GameReplaced(GameChange):
    """A `game_state` replaced what was known of a game (after a resync or a reconnect)."""


@dataclass(frozen=True)
class MoveAdded(GameChange):
    """Move number `ply` was played; `lag_credit` ms went back to its player."""

    ply: int
    move: str
    lag_credit: int = 0


@dataclass(frozen=True)
class ClocksChanged(GameChange):
    """The clocks changed other than by a move."""


@dataclass(frozen=True)
class PresenceChanged(GameChange):
    """The player of `side` left (`online` false) or came back; while away, the opponent may
    claim the game after `claim_after` ms."""

    side: Colour
    online: bool
    claim_after: int | None = None


@dataclass(frozen=True)
class GameOver(GameChange):
    """The game ended: the view has its winner and termination."""


@dataclass(frozen=True)
class CaughtUp(GameChange):
    """A resync is answered: the view has every event up to `version`."""

    version: int


@dataclass(frozen=True)
class GameDropped(Change):
    """The client no longer follows a game: the server does not have it any more, or it was
    unwatched."""

    game_id: str
    reason: str


@dataclass(frozen=True)
class SeeksListed(Change):
    """The open seeks, all of them (the reply to `list_seeks`)."""

    seeks: tuple[SeekInfo, ...]


@dataclass(frozen=True)
class SeekOpened(Change):
    seek: SeekInfo


@dataclass(frozen=True)
class SeekClosed(Change):
    seek_id: str


@dataclass(frozen=True)
class ChallengeOpened(Change):
    """A challenge was made, to this client's user or by it."""

    challenge: ChallengeInfo


@dataclass(frozen=True)
class ChallengeClosed(Change):
    """A challenge closed: `challenge` as it was known (None if it never was), and `reason`,
    when the one who declined it said why."""

    challenge_id: str
    outcome: ChallengeOutcome
    challenge: ChallengeInfo | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Replied(Change):
    """The server answered `request` (which carries its id) with `reply`."""

    request: Request
    reply: Event


@dataclass(frozen=True)
class Refused(Change):
    """The server refused `request` (which carries its id) with `error`."""

    request: Request
    error: ErrorReply


@dataclass(frozen=True)
class ReviewProgress(Change):
    """The server has judged `done` of a game's `total` positions for an `analyze_game` still
    under way (its complete review is the reply)."""

    game_id: str
    done: int
    total: int


@dataclass(frozen=True)
class ServerError(Change):
    """An error that answers no request this client is waiting on."""

    error: ErrorReply


@dataclass(frozen=True)
class News(Change):
    """An event the server sent on its own, as it came; the changes it makes follow it."""

    event: Event


@dataclass(frozen=True)
class FrameSkipped(Change):
    """A frame this client could not read (from a newer server, say), skipped: a game it
    belonged to shows a version gap and is resynced."""

    reason: str
