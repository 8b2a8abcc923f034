"""The protocol's limits, and the bounded field types built from them.

Every int, string and list on the wire has bounds; a value outside them is refused by the decoder
with `bad_field`. Raising a limit is a protocol change: docs/protocol.md lists them all.
"""

from __future__ import annotations

from typing import Annotated

from server.protocol.schema import Length, Range

__all__ = [
    "MAX_BASE_SECONDS",
    "MAX_CLIENT_LENGTH",
    "MAX_CLOCK_MS",
    "MAX_COUNT",
    "MAX_CROSS_PAIRS",
    "MAX_CURSOR_LENGTH",
    "MAX_ENGINE_LENGTH",
    "MAX_EVENT_FRAME",
    "MAX_EVENT_VERSION",
    "MAX_FIELD_PATH_LENGTH",
    "MAX_FINISHED_GAMES",
    "MAX_GAME_NAME_LENGTH",
    "MAX_HISTORY_POINTS",
    "MAX_ID_LENGTH",
    "MAX_INCREMENT_SECONDS",
    "MAX_LINE",
    "MAX_LISTED",
    "MAX_MESSAGE_LENGTH",
    "MAX_MOVE_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_OWN_GAMES",
    "MAX_PASSWORD_LENGTH",
    "MAX_PLY",
    "MAX_POSITION_LENGTH",
    "MAX_PROTOCOL_VERSION",
    "MAX_RATING",
    "MAX_REASON_LENGTH",
    "MAX_REGIONS",
    "MAX_REQUEST_FRAME",
    "MAX_REQUEST_ID",
    "MAX_RETRY_AFTER",
    "MAX_SETUP_LENGTH",
    "MAX_STRENGTH",
    "MAX_TIME_MS",
    "MAX_TOKEN_LENGTH",
    "MAX_VALUE_LENGTH",
    "MAX_WIN_PERMILLE",
    "BaseSeconds",
    "ChallengeId",
    "ClientName",
    "Count",
    "EngineText",
    "Epoch",
    "EventVersion",
    "FieldPath",
    "GameCursorText",
    "GameId",
    "GameName",
    "GamesPage",
    "IncrementSeconds",
    "LadderGames",
    "LadderName",
    "Millis",
    "MoveText",
    "Password",
    "Ply",
    "PositionText",
    "ProtocolVersion",
    "Rating",
    "Reason",
    "ReplyText",
    "RequestId",
    "RetryAfter",
    "SeekId",
    "ServerTime",
    "SetupName",
    "Strength",
    "Token",
    "UserName",
    "ValueText",
    "WinPermille",
]

# Frames, in bytes. Server frames may be larger: a full game or a list of live games.
MAX_REQUEST_FRAME = 16 * 1024
MAX_EVENT_FRAME = 1024 * 1024

# Numbers.
MAX_REQUEST_ID = 2**32 - 1
MAX_PROTOCOL_VERSION = 65_535
MAX_PLY = 1000  # a 26x26 board burns a square a move, so no game reaches 676 moves
MAX_EVENT_VERSION = 1_000_000
MAX_CLOCK_MS = 24 * 3600 * 1000
MAX_BASE_SECONDS = 3 * 3600
MAX_INCREMENT_SECONDS = 180
MAX_RETRY_AFTER = 24 * 3600
MAX_RATING = 4000
MAX_STRENGTH = 10
MAX_COUNT = 1_000_000
MAX_WIN_PERMILLE = 1000  # a winning chance in thousandths: 1000 is a sure win
MAX_TIME_MS = 2**53 - 1  # a time in ms since the Unix epoch (an int a JavaScript number holds)

# Strings, in characters.
MAX_NAME_LENGTH = 32
MAX_PASSWORD_LENGTH = 128
MAX_TOKEN_LENGTH = 128
MAX_ID_LENGTH = 32
MAX_SETUP_LENGTH = 32
MAX_GAME_NAME_LENGTH = 32
MAX_MOVE_LENGTH = 32
MAX_POSITION_LENGTH = 1024  # a 26x26 position is at most 27 * 26 + 2 characters
MAX_VALUE_LENGTH = 4096  # a CGT value in CGSuite notation; a longer one is sent as "?"
MAX_CLIENT_LENGTH = 64
MAX_MESSAGE_LENGTH = 1000
MAX_REASON_LENGTH = 200  # why a challenge was declined
MAX_FIELD_PATH_LENGTH = 200
MAX_ENGINE_LENGTH = 100  # what a bot says its engine is
MAX_CURSOR_LENGTH = 64  # where a page of finished games ends: a time in ms, a dot, a game id

# Lists, in items.
MAX_LINE = 32  # plies of an engine's best line
MAX_LISTED = 500  # seeks or live games in one list
MAX_REGIONS = 676  # regions of one position: at most one per square of a 26x26 board
MAX_OWN_GAMES = 100  # live games of one user
MAX_CROSS_PAIRS = 5000  # pairs of bots in a ladder's cross table
MAX_FINISHED_GAMES = 100  # finished games in one page (a profile's, a player's, a ladder's)
MAX_HISTORY_POINTS = 500  # points of one rating history in a profile

RequestId = Annotated[int, Range(0, MAX_REQUEST_ID)]
ProtocolVersion = Annotated[int, Range(1, MAX_PROTOCOL_VERSION)]
Ply = Annotated[int, Range(0, MAX_PLY)]
EventVersion = Annotated[int, Range(0, MAX_EVENT_VERSION)]
Epoch = Annotated[int, Range(0, MAX_EVENT_VERSION)]
Millis = Annotated[int, Range(0, MAX_CLOCK_MS)]
BaseSeconds = Annotated[int, Range(0, MAX_BASE_SECONDS)]
IncrementSeconds = Annotated[int, Range(0, MAX_INCREMENT_SECONDS)]
RetryAfter = Annotated[int, Range(0, MAX_RETRY_AFTER)]
Rating = Annotated[int, Range(0, MAX_RATING)]
Strength = Annotated[int, Range(1, MAX_STRENGTH)]
Count = Annotated[int, Range(0, MAX_COUNT)]
WinPermille = Annotated[int, Range(0, MAX_WIN_PERMILLE)]
ServerTime = Annotated[int, Range(0, MAX_TIME_MS)]  # ms since the Unix epoch
LadderGames = Annotated[int, Range(1, MAX_OWN_GAMES)]  # games a bot plays at once on a ladder
GamesPage = Annotated[int, Range(1, MAX_FINISHED_GAMES)]  # finished games a page asks for

UserName = Annotated[str, Length(1, MAX_NAME_LENGTH)]
Password = Annotated[str, Length(1, MAX_PASSWORD_LENGTH)]
Token = Annotated[str, Length(1, MAX_TOKEN_LENGTH)]
GameId = Annotated[str, Length(1, MAX_ID_LENGTH)]
SeekId = Annotated[str, Length(1, MAX_ID_LENGTH)]
ChallengeId = Annotated[str, Length(1, MAX_ID_LENGTH)]
SetupName = Annotated[str, Length(1, MAX_SETUP_LENGTH)]
GameName = Annotated[str, Length(1, MAX_GAME_NAME_LENGTH)]
MoveText = Annotated[str, Length(1, MAX_MOVE_LENGTH)]
PositionText = Annotated[str, Length(1, MAX_POSITION_LENGTH)]
ValueText = Annotated[str, Length(1, MAX_VALUE_LENGTH)]
ClientName = Annotated[str, Length(1, MAX_CLIENT_LENGTH)]
Reason = Annotated[str, Length(1, MAX_REASON_LENGTH)]
ReplyText = Annotated[str, Length(0, MAX_MESSAGE_LENGTH)]
FieldPath = Annotated[str, Length(1, MAX_FIELD_PATH_LENGTH)]
LadderName = Annotated[str, Length(1, MAX_NAME_LENGTH)]
EngineText = Annotated[str, Length(1, MAX_ENGINE_LENGTH)]
GameCursorText = Annotated[str, Length(1, MAX_CURSOR_LENGTH)]
