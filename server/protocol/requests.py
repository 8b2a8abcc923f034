"""Requests: every message a client sends. Each gets exactly one reply, its result or an error,
carrying the request's `id`; the docstrings name the reply. docs/protocol.md lists the errors.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.protocol.account import ChangePassword, DeleteAccount, EndSession, ListSessions
from server.protocol.bots import CreateBot, CreateToken, ListBots, ListTokens, RevokeToken
from server.protocol.limits import (
    ChallengeId,
    ClientName,
    EngineText,
    EventVersion,
    GameCursorText,
    GameId,
    GameName,
    GamesPage,
    LadderGames,
    LadderName,
    MoveText,
    Password,
    Ply,
    PositionText,
    ProtocolVersion,
    Reason,
    SeekId,
    SetupName,
    Strength,
    Token,
    UserName,
)
from server.protocol.message import Request, by_tag
from server.protocol.values import DEFAULT_GAME, ColourPreference, TimeControl

__all__ = [
    "REQUESTS",
    "Abort",
    "AcceptChallenge",
    "AcceptSeek",
    "Analyze",
    "AnalyzeGame",
    "BotLogin",
    "CancelChallenge",
    "CancelQuickPair",
    "CancelSeek",
    "Challenge",
    "ClaimVictory",
    "DeclineChallenge",
    "Guest",
    "Hello",
    "JoinLadder",
    "LadderGamesRequest",
    "LadderStandings",
    "LeaveLadder",
    "ListGames",
    "ListOffers",
    "ListSeeks",
    "Login",
    "Ping",
    "PlayMove",
    "PlayerGames",
    "PlayerInfo",
    "QuickPair",
    "Resign",
    "Resume",
    "Resync",
    "Seek",
    "SignUp",
    "Unwatch",
    "Watch",
]


@dataclass(frozen=True)
class Hello(Request, tag="hello"):
    """The first frame: the client's protocol version and, for logs, its name. Reply `ok`."""

    version: ProtocolVersion
    client: ClientName | None = None


@dataclass(frozen=True)
class Login(Request, tag="login"):
    """Log in to an account. Reply `welcome`."""

    user: UserName
    password: Password


@dataclass(frozen=True)
class SignUp(Request, tag="sign_up"):
    """Make an account (when the server's `ok` to `hello` says `signups`) and log in to it.
    Reply `welcome`."""

    user: UserName
    password: Password


@dataclass(frozen=True)
class BotLogin(Request, tag="bot_login"):
    """Log in as a bot account with its token. Reply `welcome`."""

    token: Token


@dataclass(frozen=True)
class Guest(Request, tag="guest"):
    """Play as a guest under a name the server picks. Reply `welcome`."""


@dataclass(frozen=True)
class Resume(Request, tag="resume"):
    """Take up a session again with the token a `welcome` gave. Reply `welcome`."""

    session: Token


@dataclass(frozen=True)
class Ping(Request, tag="ping"):
    """Keep the connection alive and measure the round trip. Reply `pong`."""


@dataclass(frozen=True)
class Seek(Request, tag="seek"):
    """Offer a game of `game` from `setup` (the game's default when none) to anyone in the
    lobby. Reply `seek_added`."""

    time: TimeControl
    setup: SetupName | None = None
    rated: bool = False
    colour: ColourPreference = ColourPreference.RANDOM
    game: GameName = DEFAULT_GAME


@dataclass(frozen=True)
class CancelSeek(Request, tag="cancel_seek"):
    """Withdraw one's own seek. Reply `seek_removed`."""

    seek_id: SeekId


@dataclass(frozen=True)
class ListSeeks(Request, tag="list_seeks"):
    """The open seeks. Reply `seek_list`."""


@dataclass(frozen=True)
class AcceptSeek(Request, tag="accept_seek"):
    """Take up a seek. Reply `game_started`."""

    seek_id: SeekId


@dataclass(frozen=True)
class Challenge(Request, tag="challenge"):
    """Challenge a user, or a house bot at a `strength`, to a game of `game` from `setup` (the
    game's default when none). Reply `challenge_added`, or at once `game_started` from a house
    bot."""

    opponent: UserName
    time: TimeControl
    setup: SetupName | None = None
    rated: bool = False
    colour: ColourPreference = ColourPreference.RANDOM
    strength: Strength | None = None
    game: GameName = DEFAULT_GAME


@dataclass(frozen=True)
class AcceptChallenge(Request, tag="accept_challenge"):
    """Accept a challenge sent to you. Reply `game_started`."""

    challenge_id: ChallengeId


@dataclass(frozen=True)
class DeclineChallenge(Request, tag="decline_challenge"):
    """Decline a challenge sent to you, saying why if you like (the challenger is told).
    Reply `challenge_removed`."""

    challenge_id: ChallengeId
    reason: Reason | None = None


@dataclass(frozen=True)
class CancelChallenge(Request, tag="cancel_challenge"):
    """Withdraw a challenge you sent. Reply `challenge_removed`."""

    challenge_id: ChallengeId


@dataclass(frozen=True)
class QuickPair(Request, tag="quick_pair"):
    """Join the pairing pool for a game, setup (the game's default when none) and time control.
    Reply `ok`; `game_started` follows on a pairing."""

    time: TimeControl
    setup: SetupName | None = None
    rated: bool = False
    game: GameName = DEFAULT_GAME


@dataclass(frozen=True)
class CancelQuickPair(Request, tag="cancel_quick_pair"):
    """Leave the pairing pool. Reply `ok`."""


@dataclass(frozen=True)
class ListOffers(Request, tag="list_offers"):
    """What the server offers for every game. Reply `offer_list`."""


@dataclass(frozen=True)
class ListGames(Request, tag="list_games"):
    """The live games. Reply `game_list`."""


@dataclass(frozen=True)
class Watch(Request, tag="watch"):
    """Follow a game as a spectator. Reply `game_state`; the game's events follow."""

    game_id: GameId


@dataclass(frozen=True)
class Unwatch(Request, tag="unwatch"):
    """Stop following a game. Reply `ok`."""

    game_id: GameId


@dataclass(frozen=True)
class PlayMove(Request, tag="move"):
    """Play `move` as the game's move number `ply` (0 for the first). Reply `move_played`; a
    resend of a move already played is answered with the same `move_played`."""

    game_id: GameId
    ply: Ply
    move: MoveText


@dataclass(frozen=True)
class Resign(Request, tag="resign"):
    """Resign a game. Reply `game_ended`."""

    game_id: GameId


@dataclass(frozen=True)
class Abort(Request, tag="abort"):
    """Call off a game that has barely begun. Reply `game_ended`."""

    game_id: GameId


@dataclass(frozen=True)
class ClaimVictory(Request, tag="claim_victory"):
    """Claim a game whose opponent has been gone past the grace period. Reply `game_ended`."""

    game_id: GameId


@dataclass(frozen=True)
class Resync(Request, tag="resync"):
    """Catch up on a game from event `version` (0 when nothing is known): the missed events, or
    one `game_state`, then the reply `synced`."""

    game_id: GameId
    version: EventVersion


@dataclass(frozen=True)
class Analyze(Request, tag="analyze"):
    """The engine's judgement of a position, with the combinatorial analysis of its regions
    when it has them: given as text (of `game`, Amazons when left out), or as a game and a ply
    (the position after that many moves; the latest when `ply` is left out). The reply is
    `analysis`."""

    position: PositionText | None = None
    game_id: GameId | None = None
    ply: Ply | None = None
    game: GameName | None = None


@dataclass(frozen=True)
class AnalyzeGame(Request, tag="analyze_game"):
    """The review of a finished game: every position judged, each move marked. Replies
    `game_analysis`: progress, then the whole review."""

    game_id: GameId


@dataclass(frozen=True)
class JoinLadder(Request, tag="join_ladder"):
    """Join a bot ladder by name, playing up to `games` of its games at once, for as long as
    this connection lasts; `engine` says what plays (the standings show it). Reply
    `ladder_membership`; the ladder's games follow as `game_started`."""

    ladder: LadderName
    games: LadderGames = 1
    engine: EngineText | None = None


@dataclass(frozen=True)
class LeaveLadder(Request, tag="leave_ladder"):
    """Leave a bot ladder: no more of its games start (those under way go on). Reply
    `ladder_membership`."""

    ladder: LadderName


@dataclass(frozen=True)
class LadderStandings(Request, tag="ladder_standings"):
    """A ladder's standings, by name; anyone may ask. Reply `standings`."""

    ladder: LadderName


@dataclass(frozen=True)
class PlayerInfo(Request, tag="player_info"):
    """A player's page, by name (any case): an account, a guest, a bot or a house bot; anyone
    may ask. Reply `player_profile`; a name nobody has is `not_found`."""

    name: UserName


# Games a page of finished games holds unless the request says otherwise.
GAMES_PAGE = 30


@dataclass(frozen=True)
class PlayerGames(Request, tag="player_games"):
    """A page of the games a player (any case, as for `player_info`) played to an end, newest
    first: up to `limit`, only those of `game` if given, after `before`, the `next` a previous
    page gave. Reply `player_game_page`."""

    name: UserName
    before: GameCursorText | None = None
    limit: GamesPage = GAMES_PAGE
    game: GameName | None = None


@dataclass(frozen=True)
class LadderGamesRequest(Request, tag="ladder_games"):
    """A page of a ladder's finished games, newest first: up to `limit`, after `before`, the
    `next` a previous page gave. Reply `ladder_game_page`."""

    ladder: LadderName
    before: GameCursorText | None = None
    limit: GamesPage = GAMES_PAGE


REQUESTS = by_tag(
    Hello,
    Login,
    SignUp,
    BotLogin,
    Guest,
    Resume,
    Ping,
    Seek,
    CancelSeek,
    ListSeeks,
    AcceptSeek,
    Challenge,
    AcceptChallenge,
    DeclineChallenge,
    CancelChallenge,
    QuickPair,
    CancelQuickPair,
    ListOffers,
    ListGames,
    Watch,
    Unwatch,
    PlayMove,
    Resign,
    Abort,
    ClaimVictory,
    Resync,
    Analyze,
    AnalyzeGame,
    JoinLadder,
    LeaveLadder,
    LadderStandings,
    PlayerInfo,
    PlayerGames,
    LadderGamesRequest,
    CreateBot,
    ListBots,
    CreateToken,
    ListTokens,
    RevokeToken,
    ChangePassword,
    ListSessions,
    EndSession,
    DeleteAccount,
)
