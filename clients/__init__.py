"""Clients of the game server: the sans-I/O client core (`ClientCore`, its game views and the
changes it reports), its asyncio transport (`ArenaClient`), and the bot runner, which plays an
engine through it (`clients.bot`, with `challenges`, `engines`, `program` for engines that are
programs of any language, `sdk` for bots written in Python, and the command line `bot_cli`;
imported on their own: they load the engine's bots).
"""

from clients.changes import (
    CaughtUp,
    ChallengeClosed,
    ChallengeOpened,
    Change,
    ClocksChanged,
    FrameSkipped,
    GameChange,
    GameDropped,
    GameFollowed,
    GameOver,
    GameReplaced,
    MoveAdded,
    News,
    PresenceChanged,
    Refused,
    Replied,
    ReviewProgress,
    SeekClosed,
    SeekOpened,
    SeeksListed,
    ServerError,
)
from clients.connection import ArenaClient, ArenaError, Backoff, Subscription
from clients.core import ClientCore
from clients.view import GameView

__all__ = [
    "ArenaClient",
    "ArenaError",
    "Backoff",
    "CaughtUp",
    "ChallengeClosed",
    "ChallengeOpened",
    "Change",
    "ClientCore",
    "ClocksChanged",
    "FrameSkipped",
    "GameChange",
    "GameDropped",
    "GameFollowed",
    "GameOver",
    "GameReplaced",
    "GameView",
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
    "Subscription",
]
