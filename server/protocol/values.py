"""The values carried inside messages: colours, game outcomes, time controls, clocks, players,
seeks, challenges and live-game summaries. Each is a frozen dataclass or a string enum and goes
on the wire as a msgpack map or string.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from server.protocol.limits import (
    MAX_HISTORY_POINTS,
    MAX_LISTED,
    BaseSeconds,
    ChallengeId,
    Count,
    EngineText,
    GameId,
    GameName,
    IncrementSeconds,
    LadderName,
    Millis,
    MoveText,
    Ply,
    Rating,
    SeekId,
    ServerTime,
    SetupName,
    Strength,
    UserName,
    ValueText,
    WinPermille,
)
from server.protocol.schema import Length

DEFAULT_GAME = "amazons"  # the game of a message that names none

__all__ = [
    "DEFAULT_GAME",
    "AbortCause",
    "ChallengeInfo",
    "ChallengeOutcome",
    "Clocks",
    "Colour",
    "ColourPreference",
    "CrossScore",
    "GameOffers",
    "GameStatus",
    "GameSummary",
    "HistoryPoint",
    "LadderGame",
    "MoveMark",
    "MoveReview",
    "Offers",
    "PlayedGame",
    "Player",
    "PlayerKind",
    "PlayerReview",
    "PoolRating",
    "RegionValue",
    "SeekInfo",
    "StandingRow",
    "Termination",
    "TimeControl",
    "colour_of",
    "colour_to_move",
]


class Colour(StrEnum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Colour:
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE


class ColourPreference(StrEnum):
    """The colour a seeker or challenger wants to play."""

    WHITE = "white"
    BLACK = "black"
    RANDOM = "random"


class GameStatus(StrEnum):
    PLAYING = "playing"
    ENDED = "ended"


class Termination(StrEnum):
    """Why a game ended."""

    NO_LEGAL_MOVE = "no_legal_move"  # the side to move had none and lost
    TIME_FORFEIT = "time_forfeit"
    RESIGNATION = "resignation"
    ABANDONED = "abandoned"  # the opponent claimed victory after the player left
    ABORTED = "aborted"  # called off before it really began; nobody wins
    PLY_CAP = "ply_cap"  # reached its game's ply cap (Bao: 600) still going; adjudicated drawn


class AbortCause(StrEnum):
    """Why a game was aborted, with the side it names (`abort_side`)."""

    CALLED_OFF = "called_off"  # that side sent `abort`
    NO_FIRST_MOVE = "no_first_move"  # that side, to move, made no first move within the window


class PlayerKind(StrEnum):
    HUMAN = "human"
    GUEST = "guest"
    BOT = "bot"  # an external bot with a bot token
    HOUSE = "house"  # one of the server's own bots


class MoveMark(StrEnum):
    """How much a move of a reviewed game gave away: the mover's drop in winning chance
    (thresholds in docs/protocol.md)."""

    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


class ChallengeOutcome(StrEnum):
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class TimeControl:
    """Fischer clock: `base` seconds each, plus `increment` seconds after every move."""

    base: BaseSeconds
    increment: IncrementSeconds


@dataclass(frozen=True)
class GameOffers:
    """What the server offers for one game: its setups (`default_setup` when a request names
    none), its house bots, and its time controls: the ones listed in `time_controls` when that
    is not empty, else any with a base from `min_base` to `max_base` seconds and an increment up
    to `max_increment`."""

    game: GameName
    setups: Annotated[tuple[SetupName, ...], Length(1, MAX_LISTED)]
    default_setup: SetupName
    min_base: BaseSeconds
    max_base: BaseSeconds
    max_increment: IncrementSeconds
    time_controls: Annotated[tuple[TimeControl, ...], Length(0, MAX_LISTED)] = ()
    house_bots: Annotated[tuple[UserName, ...], Length(0, MAX_LISTED)] = ()


@dataclass(frozen=True)
class Offers:
    """What the server offers: for its default game (Amazons) its setups, house bots and time
    controls, as `GameOffers` has them; the clock rules a bot plans by; and in `games`, when
    sent, the offers of every game."""

    setups: Annotated[tuple[SetupName, ...], Length(0, MAX_LISTED)]
    min_base: BaseSeconds
    max_base: BaseSeconds
    max_increment: IncrementSeconds
    time_controls: Annotated[tuple[TimeControl, ...], Length(0, MAX_LISTED)] = ()
    house_bots: Annotated[tuple[UserName, ...], Length(0, MAX_LISTED)] = ()
    # The clock rules a bot plans by: the flat allowance a bot's every move gets, the time
    # each side has for its first move, and how many plies from the start are off the clock.
    bot_allowance_ms: Millis | None = None
    first_move_ms: Millis | None = None
    free_plies: Ply | None = None
    games: Annotated[tuple[GameOffers, ...], Length(0, MAX_LISTED)] | None = None


@dataclass(frozen=True)
class Clocks:
    """Both players' remaining time in milliseconds, as the server's clock had it when sent."""

    white: Millis
    black: Millis


@dataclass(frozen=True)
class Player:
    """A user as others see them; `rating` is None for guests and unrated accounts."""

    name: UserName
    kind: PlayerKind
    rating: Rating | None = None


@dataclass(frozen=True)
class SeekInfo:
    """An open seek in the lobby: `player` will play anyone who accepts these terms; the
    player's rating is the one in `game`."""

    seek_id: SeekId
    player: Player
    setup: SetupName
    time: TimeControl
    rated: bool
    colour: ColourPreference
    game: GameName = DEFAULT_GAME


@dataclass(frozen=True)
class ChallengeInfo:
    """An open challenge from `challenger` to `opponent`; `colour` is the challenger's wish;
    the players' ratings are theirs in `game`."""

    challenge_id: ChallengeId
    challenger: Player
    opponent: Player
    setup: SetupName
    time: TimeControl
    rated: bool
    colour: ColourPreference
    game: GameName = DEFAULT_GAME


@dataclass(frozen=True)
class GameSummary:
    """A live game as the lobby lists it; `ply` is the number of moves played so far."""

    game_id: GameId
    white: Player
    black: Player
    setup: SetupName
    time: TimeControl
    rated: bool
    clocks: Clocks
    to_move: Colour
    ply: Ply
    spectators: Count
    game: GameName = DEFAULT_GAME


@dataclass(frozen=True)
class RegionValue:
    """One region of an analysed position: its kind (`settled`: only one colour's amazons or
    none; `contested`), size, amazons, and combinatorial value in CGSuite notation with Left =
    Black (`?` when the solver did not finish it), with its mean and temperature."""

    kind: Annotated[str, Length(1, 32)]
    squares: Count
    white: Count
    black: Count
    value: ValueText
    mean: ValueText
    temperature: ValueText


@dataclass(frozen=True)
class MoveReview:
    """One move of a reviewed game: the move that made position `ply`, who made it, the
    mover's drop in winning chance (`loss`, thousandths), its mark when the drop passes a
    threshold, and then the engine's `better` move in the position before it."""

    ply: Ply
    move: MoveText
    mover: Colour
    loss: WinPermille
    mark: MoveMark | None = None
    better: MoveText | None = None


@dataclass(frozen=True)
class PlayerReview:
    """One side of a reviewed game: how many of its moves got each mark, and its average
    loss of winning chance a move (thousandths)."""

    colour: Colour
    inaccuracies: Count
    mistakes: Count
    blunders: Count
    average_loss: WinPermille


def colour_to_move(start: str, ply: int) -> Colour:
    """The colour to move after `ply` moves from the position text `start` (Amazons has no
    passes, so the turn alternates)."""
    white_first = not start.rstrip().endswith(" b")
    return Colour.WHITE if (ply % 2 == 0) == white_first else Colour.BLACK


def colour_of(white: Player, black: Player, name: str) -> Colour | None:
    """The colour the user `name` (any case) plays, or None for someone else."""
    if white.name.lower() == name.lower():
        return Colour.WHITE
    if black.name.lower() == name.lower():
        return Colour.BLACK
    return None


@dataclass(frozen=True)
class StandingRow:
    """A bot's row in a ladder's standings: its `rank` (1 the highest), `bot` name, `rating` on
    the ladder's maximum-likelihood list and `margin`, the half-width of its 95% interval (0 for
    an `anchor`), its `games` and `wins` on the ladder, whether its Glicko-2 rating is still
    `provisional`, whether it is `online` (connected and on the ladder now), that Glicko-2
    `glicko` rating and its `deviation` (None before its first rated game), its `owner` (the
    human account it belongs to, or the bot itself), the `engine` it last said it plays with,
    and `last_seen`, the latest of its connection on the ladder and its last game there (ms
    since the Unix epoch). The last three are None where unknown, and from servers before
    them."""

    rank: Count
    bot: UserName
    rating: Rating
    margin: Rating
    anchor: bool
    games: Count
    wins: Count
    provisional: bool
    online: bool
    glicko: Rating | None = None
    deviation: Rating | None = None
    owner: UserName | None = None
    engine: EngineText | None = None
    last_seen: ServerTime | None = None


@dataclass(frozen=True)
class LadderGame:
    """A rated game of a ladder: `white` against `black`, the `winner`'s colour, and when it
    `ended` (ms since the Unix epoch; None for games rated before that was kept)."""

    game_id: GameId
    white: UserName
    black: UserName
    winner: Colour
    ended: ServerTime | None = None


# A pair of bots in a ladder's cross table: [bot, opponent, the bot's wins, the opponent's].
CrossScore = tuple[UserName, UserName, Count, Count]


@dataclass(frozen=True)
class HistoryPoint:
    """A rating right after one rated game: when the game ended (`at`, ms since the Unix
    epoch), its id, the `rating` and `deviation` it left, and its `setup` when it had a named
    one and counted for a game's pool (a ladder's games all have the ladder's)."""

    at: ServerTime
    game_id: GameId
    rating: Rating
    deviation: Rating
    setup: SetupName | None = None


@dataclass(frozen=True)
class PoolRating:
    """A player's rating in one pool: `game`'s (for a house bot, at one `strength`), or a bot
    ladder's when `ladder` names it; its `deviation`, whether it is still `provisional`
    (deviation 110 or more), and its `history`, oldest first, one point per rated game (the
    last ones the server keeps)."""

    game: GameName
    rating: Rating
    deviation: Rating
    provisional: bool
    ladder: LadderName | None = None
    strength: Strength | None = None
    history: Annotated[tuple[HistoryPoint, ...], Length(0, MAX_HISTORY_POINTS)] = ()


@dataclass(frozen=True)
class PlayedGame:
    """A game a player played to its end, as their page lists it: the `opponent` as they were
    in it, the `colour` the player had, the `winner`'s colour (None when it was aborted), why
    it ended, when (ms since the Unix epoch), and whether it was `rated`."""

    game_id: GameId
    game: GameName
    opponent: Player
    colour: Colour
    termination: Termination
    rated: bool
    setup: SetupName | None = None
    winner: Colour | None = None
    ended: ServerTime | None = None
