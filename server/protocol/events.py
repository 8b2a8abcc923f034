"""Events: every message the server sends, as a reply (carrying the request's `id`) or as news.

Game events carry the game's event version; `game_state` is the full state of a game (all moves
and both clocks), so a machine client that reconnects needs no history of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from server.protocol.account import SessionList
from server.protocol.bots import BotList, TokenCreated, TokenList
from server.protocol.errors import ErrorCode, ProtocolError
from server.protocol.limits import (
    MAX_CROSS_PAIRS,
    MAX_FINISHED_GAMES,
    MAX_LINE,
    MAX_LISTED,
    MAX_MESSAGE_LENGTH,
    MAX_OWN_GAMES,
    MAX_PLY,
    MAX_REGIONS,
    ChallengeId,
    Count,
    Epoch,
    EventVersion,
    FieldPath,
    GameCursorText,
    GameId,
    GameName,
    LadderName,
    Millis,
    MoveText,
    Ply,
    PositionText,
    ProtocolVersion,
    Reason,
    ReplyText,
    RetryAfter,
    SeekId,
    SetupName,
    Token,
    UserName,
    ValueText,
    WinPermille,
)
from server.protocol.message import Event, GameEvent, by_tag
from server.protocol.schema import Length
from server.protocol.values import (
    DEFAULT_GAME,
    AbortCause,
    ChallengeInfo,
    ChallengeOutcome,
    Clocks,
    Colour,
    CrossScore,
    GameStatus,
    GameSummary,
    LadderGame,
    MoveReview,
    Offers,
    PlayedGame,
    Player,
    PlayerKind,
    PlayerReview,
    PoolRating,
    RegionValue,
    SeekInfo,
    StandingRow,
    Termination,
    TimeControl,
)

__all__ = [
    "EVENTS",
    "Analysis",
    "ChallengeAdded",
    "ChallengeRemoved",
    "ClockUpdate",
    "ErrorReply",
    "GameAnalysis",
    "GameEnded",
    "GameList",
    "GameSnapshot",
    "GameStarted",
    "HouseBots",
    "LadderGamePage",
    "LadderMembership",
    "MovePlayed",
    "OfferList",
    "Ok",
    "PlayerGamePage",
    "PlayerProfile",
    "Pong",
    "Presence",
    "SeekAdded",
    "SeekList",
    "SeekRemoved",
    "Spectators",
    "Standings",
    "Synced",
    "Welcome",
]


@dataclass(frozen=True)
class Ok(Event, tag="ok"):
    """The request succeeded and has no other result. The reply to `hello` says whether anyone
    may make an account here (`sign_up`): `signups`, which clients read before a login."""

    signups: bool | None = None


@dataclass(frozen=True)
class ErrorReply(Event, tag="error"):
    """The request failed: a stable `code`, a message naming the problem, the offending `field`
    when one is to blame, and `retry_after` seconds when waiting will help."""

    code: ErrorCode
    message: ReplyText
    field: FieldPath | None = None
    retry_after: RetryAfter | None = None

    @classmethod
    def of(cls, error: ProtocolError, *, id: int | None = None) -> ErrorReply:
        """The reply for `error`, answering request `id` (by default the one the error names)."""
        return cls(
            error.code,
            str(error)[:MAX_MESSAGE_LENGTH],
            field=error.field,
            retry_after=error.retry_after,
            id=error.request_id if id is None else id,
        )


@dataclass(frozen=True)
class Welcome(Event, tag="welcome"):
    """Logged in: the server's protocol version, the session token for `resume`, the user, and
    the user's live games (a `game_state` of each follows)."""

    version: ProtocolVersion
    session: Token
    user: Player
    games: Annotated[tuple[GameId, ...], Length(0, MAX_OWN_GAMES)] = ()
    offers: Offers | None = None


@dataclass(frozen=True)
class OfferList(Event, tag="offer_list"):
    """The reply to `list_offers`: what the server offers, with `offers.games` for every game."""

    offers: Offers


@dataclass(frozen=True)
class Pong(Event, tag="pong"):
    """The reply to `ping`."""


@dataclass(frozen=True)
class SeekList(Event, tag="seek_list"):
    """The reply to `list_seeks`: the open seeks."""

    seeks: Annotated[tuple[SeekInfo, ...], Length(0, MAX_LISTED)]


@dataclass(frozen=True)
class SeekAdded(Event, tag="seek_added"):
    """A seek opened in the lobby; to its owner, the reply to `seek`."""

    seek: SeekInfo


@dataclass(frozen=True)
class SeekRemoved(Event, tag="seek_removed"):
    """A seek left the lobby: cancelled, accepted, or its owner left."""

    seek_id: SeekId


@dataclass(frozen=True)
class ChallengeAdded(Event, tag="challenge_added"):
    """A challenge was made: sent to the challenged user, and as the reply to its sender."""

    challenge: ChallengeInfo


@dataclass(frozen=True)
class ChallengeRemoved(Event, tag="challenge_removed"):
    """A challenge closed, to both sides; an accepted one is followed by `game_started`."""

    challenge_id: ChallengeId
    outcome: ChallengeOutcome
    reason: Reason | None = None  # why it was declined, when the one declining said


@dataclass(frozen=True)
class GameList(Event, tag="game_list"):
    """The reply to `list_games`: the live games."""

    games: Annotated[tuple[GameSummary, ...], Length(0, MAX_LISTED)]


@dataclass(frozen=True)
class GameStarted(GameEvent, tag="game_started"):
    """A game began (version 1 of its log), sent to both players."""

    white: Player
    black: Player
    start: PositionText
    time: TimeControl
    rated: bool
    clocks: Clocks
    setup: SetupName | None = None
    to_move: Colour | None = None
    game: GameName = DEFAULT_GAME


@dataclass(frozen=True)
class GameSnapshot(GameEvent, tag="game_state"):
    """The whole game as of event `version`: who plays, the start, every move, both clocks,
    the side to move and, once it has ended, the outcome (with why, when it was aborted).
    While the side to move has a first move to make, `first_move_left` is the time left to
    make it. `epoch` rises when the server finds that its store lost events it had sent (a
    failover, docs/server.md): a state of a later epoch replaces a client's whatever its
    version."""

    white: Player
    black: Player
    start: PositionText
    time: TimeControl
    rated: bool
    moves: Annotated[tuple[MoveText, ...], Length(0, MAX_PLY)]
    clocks: Clocks
    to_move: Colour
    status: GameStatus
    setup: SetupName | None = None
    winner: Colour | None = None
    termination: Termination | None = None
    game: GameName = DEFAULT_GAME
    abort_cause: AbortCause | None = None
    abort_side: Colour | None = None
    first_move_left: Millis | None = None
    epoch: Epoch = 0


@dataclass(frozen=True)
class MovePlayed(GameEvent, tag="move_played"):
    """Move number `ply` was played; `clocks` are after it, the increment added. `lag_credit` is
    the time given back to the mover by lag compensation; `to_move` the side to move next."""

    ply: Ply
    move: MoveText
    clocks: Clocks
    lag_credit: Millis = 0
    to_move: Colour | None = None


@dataclass(frozen=True)
class ClockUpdate(GameEvent, tag="clock"):
    """The clocks changed other than by a move."""

    clocks: Clocks


@dataclass(frozen=True)
class Presence(GameEvent, tag="presence"):
    """A player left or came back. While `side` is away, `claim_after` is the time until the
    opponent may send `claim_victory` (0: now)."""

    side: Colour
    online: bool
    claim_after: Millis | None = None


@dataclass(frozen=True)
class GameEnded(GameEvent, tag="game_ended"):
    """The game is over: the `winner` (None when aborted), why, and the final clocks. An
    aborted game says why (`abort_cause`) and which side called it off or made no first move
    (`abort_side`)."""

    termination: Termination
    clocks: Clocks
    winner: Colour | None = None
    abort_cause: AbortCause | None = None
    abort_side: Colour | None = None


@dataclass(frozen=True)
class Analysis(Event, tag="analysis"):
    """The reply to `analyze`: each region's value, their sum (`?` unless every region's value
    was found), who wins with each side to move first (none when the sum is unknown), and the
    moves that keep a win for the side to move (none when not known, empty when every move
    loses)."""

    position: PositionText
    regions: Annotated[tuple[RegionValue, ...], Length(0, MAX_REGIONS)]
    sum: ValueText
    black_first: Colour | None = None
    white_first: Colour | None = None
    best_moves: Annotated[tuple[MoveText, ...], Length(0, MAX_LISTED)] | None = None
    # The engine's judgement (servers before it send none): the position asked about, White's
    # winning chance in thousandths, the best line from the position, what the estimate rests
    # on, whether the winner is known exactly, and the judgement in words.
    game_id: GameId | None = None
    ply: Ply | None = None
    game: GameName = DEFAULT_GAME
    white_wins: WinPermille | None = None
    line: Annotated[tuple[MoveText, ...], Length(0, MAX_LINE)] | None = None
    depth: Ply | None = None
    playouts: Count | None = None
    exact: bool = False
    note: ReplyText | None = None


@dataclass(frozen=True)
class GameAnalysis(Event, tag="game_analysis"):
    """The reply to `analyze_game`, several times: progress (`done` of `total` positions
    judged), then once `complete`: White's winning chance in each position from the start
    (`white_wins`, thousandths, `total` of them), each move's review and each side's summary."""

    game_id: GameId
    done: Count
    total: Count
    complete: bool = False
    white_wins: Annotated[tuple[WinPermille, ...], Length(0, MAX_PLY + 1)] = ()
    moves: Annotated[tuple[MoveReview, ...], Length(0, MAX_PLY)] = ()
    summary: Annotated[tuple[PlayerReview, ...], Length(0, 2)] = ()


@dataclass(frozen=True)
class Synced(Event, tag="synced"):
    """The reply to `resync`: every event of the game up to `version` has now been sent."""

    game_id: GameId
    version: EventVersion


@dataclass(frozen=True)
class Spectators(Event, tag="spectators"):
    """How many watch a live game, to its players and spectators as the count changes. News
    about the game, not one of its events: it has no version and is not replayed."""

    game_id: GameId
    count: Count


@dataclass(frozen=True)
class HouseBots(Event, tag="house_bots"):
    """What is ready to play, as a server starts: the house bots a worker is `ready` to play
    now, those still `preparing` (being compiled, in the order they will be ready), and
    whether this server has its games' rules ready (`rules_ready`; until then a new game or a
    move waits for them). Sent after `welcome` and whenever it changes."""

    ready: Annotated[tuple[UserName, ...], Length(0, MAX_LISTED)] = ()
    preparing: Annotated[tuple[UserName, ...], Length(0, MAX_LISTED)] = ()
    rules_ready: bool = True


@dataclass(frozen=True)
class LadderMembership(Event, tag="ladder_membership"):
    """The reply to `join_ladder` and `leave_ladder`: whether the bot is now a `member` of the
    ladder, the `games` it plays there at once (0 when not a member), and whether the request
    `changed` anything (false for a second join with the same games, or leaving a ladder the
    bot was not on); then the ladder's terms, which every game it starts has: its `game`,
    `setup` and `time` control (servers before them send none)."""

    ladder: LadderName
    member: bool
    games: Count
    changed: bool
    game: GameName | None = None
    setup: SetupName | None = None
    time: TimeControl | None = None


@dataclass(frozen=True)
class Standings(Event, tag="standings"):
    """The reply to `ladder_standings`: the ladder's `rows`, highest rated first; its last
    `games` (20 at most, the latest first); and its `cross` table, each pair of bots
    that has played once, the higher ranked first, with the games each won against the other.
    Servers before `games` and `cross` send neither."""

    ladder: LadderName
    rows: Annotated[tuple[StandingRow, ...], Length(0, MAX_LISTED)]
    games: Annotated[tuple[LadderGame, ...], Length(0, MAX_LISTED)] = ()
    cross: Annotated[tuple[CrossScore, ...], Length(0, MAX_CROSS_PAIRS)] = ()


@dataclass(frozen=True)
class PlayerProfile(Event, tag="player_profile"):
    """The reply to `player_info`: the player's `name` as it is spelled, its `kind`, a bot's
    `owner` (the human account it belongs to; None for a bot without one), its `ratings`, one
    per pool it has played rated games in, the first page of its finished `games`, the latest
    first, and `next`, where `player_games` goes on from (None when that was all)."""

    name: UserName
    kind: PlayerKind
    ratings: Annotated[tuple[PoolRating, ...], Length(0, MAX_LISTED)] = ()
    games: Annotated[tuple[PlayedGame, ...], Length(0, MAX_FINISHED_GAMES)] = ()
    owner: UserName | None = None
    next: GameCursorText | None = None


@dataclass(frozen=True)
class PlayerGamePage(Event, tag="player_game_page"):
    """The reply to `player_games`: a page of the player's finished `games`, the latest first,
    and `next`, the `before` of the page after it (None after the last)."""

    name: UserName
    games: Annotated[tuple[PlayedGame, ...], Length(0, MAX_FINISHED_GAMES)] = ()
    next: GameCursorText | None = None


@dataclass(frozen=True)
class LadderGamePage(Event, tag="ladder_game_page"):
    """The reply to `ladder_games`: a page of the ladder's finished `games`, the latest first
    (a game without a winner is left out, so a page may hold fewer than asked), and `next`, the
    `before` of the page after it (None after the last)."""

    ladder: LadderName
    games: Annotated[tuple[LadderGame, ...], Length(0, MAX_FINISHED_GAMES)] = ()
    next: GameCursorText | None = None


EVENTS = by_tag(
    Ok,
    ErrorReply,
    Welcome,
    OfferList,
    Pong,
    SeekList,
    SeekAdded,
    SeekRemoved,
    ChallengeAdded,
    ChallengeRemoved,
    GameList,
    GameStarted,
    GameSnapshot,
    MovePlayed,
    ClockUpdate,
    Presence,
    GameEnded,
    Synced,
    Analysis,
    GameAnalysis,
    HouseBots,
    Spectators,
    LadderMembership,
    Standings,
    PlayerProfile,
    PlayerGamePage,
    LadderGamePage,
    BotList,
    TokenCreated,
    TokenList,
    SessionList,
)
