"""The client side of a connection, without I/O: the mirror of `server.protocol`'s
`ServerConnection`. Frames from the server go into `receive`, which returns what they changed;
requests go into `send`, which numbers them; the frames to write come out of `data_to_send`,
among them the resyncs the core asks for itself when a game's events show a gap. It keeps the
followed games (one `GameView` each), the lobby as the server told it, and the login.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType

from clients.changes import (
    CaughtUp,
    ChallengeClosed,
    ChallengeOpened,
    Change,
    ClocksChanged,
    FrameSkipped,
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
from clients.view import GameView
from server.protocol import (
    AcceptChallenge,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    ClockUpdate,
    ErrorCode,
    ErrorReply,
    Event,
    GameAnalysis,
    GameEnded,
    GameEvent,
    GameSnapshot,
    GameStarted,
    GameStatus,
    HouseBots,
    ListSeeks,
    MovePlayed,
    Offers,
    Player,
    Presence,
    ProtocolError,
    Request,
    Resync,
    SeekAdded,
    SeekInfo,
    SeekList,
    SeekRemoved,
    Synced,
    Unwatch,
    Watch,
    Welcome,
    decode_event,
)

__all__ = ["ClientCore"]


class ClientCore:
    """The protocol state of one connection as a client sees it.

    Each game's events are applied once each, in version order: a version already applied is
    ignored, and a gap (a version beyond the next, a move at the wrong ply, news of a game not
    known) queues one `resync` for the game, and no other until it is answered; if events beyond
    the gap came while it was under way and the answer did not bring them, one more follows. A
    `game_state` not older than the view replaces it: of a later epoch (the server's store
    lost events this client saw), whatever its version. `games` seeds the core with the views
    of a previous connection, which `catch_up` then brings up to date.
    """

    def __init__(self, games: Iterable[GameView] = ()) -> None:
        self.user: Player | None = None
        self.session: str | None = None
        self.offers: Offers | None = None
        # The house bots ready and still being prepared, as the server last said (none yet).
        self.house_bots: HouseBots | None = None
        self._games: dict[str, GameView] = {view.game_id: view for view in games}
        self._seeks: dict[str, SeekInfo] = {}
        # The seeks' news while a `list_seeks` is on its way: the list may have been read before
        # some of it, and is brought up to date with it as it comes (None: no list awaited).
        self._seek_news: list[SeekAdded | SeekRemoved] | None = None
        self._challenges: dict[str, ChallengeInfo] = {}
        self._ids = itertools.count(1)
        self._pending: dict[int, Request] = {}  # request id -> the request it numbers
        self._resyncing: dict[str, int] = {}  # game id -> id of the resync under way
        self._beyond: dict[str, int] = {}  # game id -> latest version seen past a gap
        self._unwatched: set[str] = set()  # games whose stray events are not news
        self._outgoing: list[bytes] = []

    @property
    def games(self) -> Mapping[str, GameView]:
        """The followed games by id, each as of its latest applied version."""
        return MappingProxyType(self._games)

    @property
    def seeks(self) -> Mapping[str, SeekInfo]:
        """The open seeks by id, as far as this client has heard (`list_seeks` fills it)."""
        return MappingProxyType(self._seeks)

    @property
    def challenges(self) -> Mapping[str, ChallengeInfo]:
        """The open challenges to or from this client's user, by id."""
        return MappingProxyType(self._challenges)

    @property
    def pending(self) -> Mapping[int, Request]:
        """The requests sent and not answered yet, by request id."""
        return MappingProxyType(self._pending)

    def resyncing(self, game_id: str) -> bool:
        """Whether a resync of the game is under way."""
        return game_id in self._resyncing

    # Sending

    def send(self, request: Request) -> int:
        """Queue `request` with a fresh request id, and return the id its reply will carry.
        A `resync` counts as the game's resync under way; an `unwatch` stops following the
        game at once (its events still on the way are ignored)."""
        request_id = next(self._ids)
        numbered = replace(request, id=request_id)
        self._pending[request_id] = numbered
        self._outgoing.append(numbered.to_wire())
        if isinstance(numbered, Resync):
            self._resyncing[numbered.game_id] = request_id
        elif isinstance(numbered, Unwatch):
            self._games.pop(numbered.game_id, None)
            self._unwatched.add(numbered.game_id)
        elif isinstance(numbered, Watch):
            self._unwatched.discard(numbered.game_id)
        elif isinstance(numbered, ListSeeks) and self._seek_news is None:
            self._seek_news = []
        return request_id

    def resync(self, game_id: str) -> int:
        """Queue a resync of one game from the version it is known up to (0 when unknown)."""
        view = self._games.get(game_id)
        return self.send(Resync(game_id, view.version if view is not None else 0))

    def catch_up(self, game_ids: Iterable[str] = ()) -> list[int]:
        """After a reconnect: queue a resync of every followed game that is still playing, and
        of `game_ids` (those a `welcome` lists), each once; the request ids, in that order."""
        playing = [g for g, view in self._games.items() if view.status is GameStatus.PLAYING]
        return [
            self.resync(game_id)
            for game_id in dict.fromkeys([*game_ids, *playing])
            if game_id not in self._resyncing
        ]

    @property
    def has_data_to_send(self) -> bool:
        """Whether frames are queued (the core queues resyncs by itself as frames come)."""
        return bool(self._outgoing)

    def data_to_send(self) -> list[bytes]:
        """The frames queued since the last call, in order."""
        frames, self._outgoing = self._outgoing, []
        return frames

    def connection_lost(self) -> list[Request]:
        """The connection closed: the requests that will never be answered (no resync is under
        way any more; a new connection's `catch_up` asks again)."""
        lost = list(self._pending.values())
        self._pending.clear()
        self._resyncing.clear()
        self._beyond.clear()
        self._outgoing.clear()
        return lost

    # Receiving

    def receive(self, frame: bytes | str, now: float = 0.0) -> list[Change]:
        """What one frame from the server changed, in order; `now` (monotonic seconds) is
        stamped on the game views it changes. A frame that cannot be read is skipped."""
        try:
            event = decode_event(frame)
        except ProtocolError as error:
            return [FrameSkipped(str(error))]
        if isinstance(event, GameAnalysis) and not event.complete and event.id in self._pending:
            # A review's progress: its request stays pending until the complete review comes.
            return [ReviewProgress(event.game_id, event.done, event.total)]
        request = self._pending.pop(event.id, None) if event.id is not None else None
        changes: list[Change] = [] if request is not None else [News(event)]
        if isinstance(event, GameEvent):
            self._game_event(event, now, changes)
        elif isinstance(event, Synced):
            self._synced(event, request, changes)
        elif isinstance(event, Welcome):
            self.user, self.session, self.offers = event.user, event.session, event.offers
        elif isinstance(event, HouseBots):
            self.house_bots = event
        else:
            self._lobby(event, changes)
        if isinstance(event, ErrorReply):
            if request is None:
                changes.append(ServerError(event))
            else:
                self._refused(request, event, changes)
        elif request is not None:
            if isinstance(request, AcceptChallenge):
                # The challenger hears `challenge_removed`; the one who accepts, only the game.
                known = self._challenges.pop(request.challenge_id, None)
                changes.append(
                    ChallengeClosed(request.challenge_id, ChallengeOutcome.ACCEPTED, known)
                )
            changes.append(Replied(request, event))
        return changes

    def _game_event(self, event: GameEvent, now: float, changes: list[Change]) -> None:
        game_id = event.game_id
        view = self._games.get(game_id)
        if isinstance(event, GameSnapshot | GameStarted):
            if view is None:
                self._unwatched.discard(game_id)
                self._games[game_id] = new = GameView.open(event, now, offers=self.offers)
                changes.append(GameFollowed(new))
            elif isinstance(event, GameSnapshot) and (event.epoch, event.version) >= (
                view.epoch,
                view.version,
            ):
                new = GameView.open(event, now, previous=view, offers=self.offers)
                self._games[game_id] = new
                changes.append(GameReplaced(new))
            return
        if view is None:
            # News of a game this client has not seen start: all of it up to here is missed.
            if game_id not in self._unwatched:
                self._gap(game_id, event.version)
            return
        if event.version <= view.version:
            return  # applied already
        if event.version > view.version + 1 or (
            isinstance(event, MovePlayed) and event.ply != view.ply
        ):
            self._gap(game_id, event.version)
            return
        self._games[game_id] = new = view.apply(event, now)
        if isinstance(event, MovePlayed):
            changes.append(MoveAdded(new, event.ply, event.move, event.lag_credit))
        elif isinstance(event, GameEnded):
            changes.append(GameOver(new))
        elif isinstance(event, ClockUpdate):
            changes.append(ClocksChanged(new))
        elif isinstance(event, Presence):
            changes.append(PresenceChanged(new, event.side, event.online, event.claim_after))

    def _gap(self, game_id: str, version: int) -> None:
        self._beyond[game_id] = max(version, self._beyond.get(game_id, 0))
        if game_id not in self._resyncing:
            self.resync(game_id)

    def _synced(self, event: Synced, request: Request | None, changes: list[Change]) -> None:
        game_id = event.game_id
        if self._resyncing.get(game_id) == (request.id if request is not None else None):
            del self._resyncing[game_id]
        view = self._games.get(game_id)
        beyond = self._beyond.pop(game_id, 0)
        if view is None:
            return
        changes.append(CaughtUp(view, event.version))
        if beyond > view.version and game_id not in self._resyncing:
            # Events past the gap came while the resync was under way and it did not bring
            # them: they were sent after it was answered, so one more brings them.
            self._beyond[game_id] = beyond
            self.resync(game_id)

    def _refused(self, request: Request, error: ErrorReply, changes: list[Change]) -> None:
        changes.append(Refused(request, error))
        if not isinstance(request, Resync):
            return
        game_id = request.game_id
        if self._resyncing.get(game_id) == request.id:
            del self._resyncing[game_id]
            self._beyond.pop(game_id, None)
        if error.code == ErrorCode.NOT_FOUND and self._games.pop(game_id, None) is not None:
            changes.append(GameDropped(game_id, error.message))

    def _seek_news_heard(self, news: SeekAdded | SeekRemoved) -> None:
        if isinstance(news, SeekAdded):
            self._seeks[news.seek.seek_id] = news.seek
        else:
            self._seeks.pop(news.seek_id, None)

    def _lobby(self, event: Event, changes: list[Change]) -> None:
        if isinstance(event, SeekList):
            self._seeks = {seek.seek_id: seek for seek in event.seeks}
            for news in self._seek_news or ():
                self._seek_news_heard(news)
            self._seek_news = None
            changes.append(SeeksListed(tuple(self._seeks.values())))
        elif isinstance(event, SeekAdded | SeekRemoved):
            if self._seek_news is not None:
                self._seek_news.append(event)
            self._seek_news_heard(event)
            changes.append(
                SeekOpened(event.seek)
                if isinstance(event, SeekAdded)
                else SeekClosed(event.seek_id)
            )
        elif isinstance(event, ChallengeAdded):
            self._challenges[event.challenge.challenge_id] = event.challenge
            changes.append(ChallengeOpened(event.challenge))
        elif isinstance(event, ChallengeRemoved):
            known = self._challenges.pop(event.challenge_id, None)
            changes.append(ChallengeClosed(event.challenge_id, event.outcome, known, event.reason))
