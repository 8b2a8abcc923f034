"""The client core on bytes: frames as the server writes them go in, typed changes and the frames
to send come out. No socket and no event loop."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients import (
    CaughtUp,
    ChallengeClosed,
    ChallengeOpened,
    ClientCore,
    ClocksChanged,
    FrameSkipped,
    GameDropped,
    GameFollowed,
    GameOver,
    GameReplaced,
    GameView,
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
from engine.errors import NotationError
from engine.game import get_game
from server.protocol import (
    AcceptChallenge,
    AnalyzeGame,
    ChallengeAdded,
    ChallengeInfo,
    ChallengeOutcome,
    ChallengeRemoved,
    Clocks,
    ClockUpdate,
    Colour,
    ColourPreference,
    ErrorCode,
    ErrorReply,
    GameAnalysis,
    GameEnded,
    GameSnapshot,
    GameStarted,
    GameStatus,
    ListSeeks,
    MovePlayed,
    Offers,
    Player,
    PlayerKind,
    PlayMove,
    Presence,
    Resync,
    SeekAdded,
    SeekInfo,
    SeekList,
    SeekRemoved,
    Synced,
    Termination,
    TimeControl,
    Unwatch,
    Watch,
    Welcome,
    decode_request,
)

ANN = Player("ann", PlayerKind.HUMAN, 1500)
BOB = Player("bob", PlayerKind.GUEST)
START = "1B2B1/B4B/6/6/W4W/1W2W1 w"  # the 6x6 setup, White to move
TIME = TimeControl(60, 2)


def _moves(count: int) -> list[str]:
    """The first `count` moves of a 6x6 game, each the first legal move in its position."""
    state = get_game("amazons").parse_state(START)
    moves = []
    for _ in range(count):
        move = next(iter(state.legal_moves))
        moves.append(state.format_move(move))
        state.apply(move)
    return moves


MOVES = _moves(6)


def _started(game_id: str = "g1", **fields: object) -> bytes:
    event = GameStarted(
        game_id, 1, ANN, BOB, START, TIME, False, Clocks(60_000, 60_000), "6x6", **fields
    )
    return event.to_wire()


def _played(ply: int, version: int | None = None, game_id: str = "g1", **fields: object) -> bytes:
    clocks = Clocks(60_000 - ply, 60_000 - ply)
    version = ply + 2 if version is None else version
    return MovePlayed(game_id, version, ply, MOVES[ply], clocks, **fields).to_wire()


def _snapshot(moves: int, version: int, game_id: str = "g1") -> bytes:
    return GameSnapshot(
        game_id,
        version,
        ANN,
        BOB,
        START,
        TIME,
        False,
        tuple(MOVES[:moves]),
        Clocks(50_000, 40_000),
        Colour.WHITE if moves % 2 == 0 else Colour.BLACK,
        GameStatus.PLAYING,
        "6x6",
    ).to_wire()


def _sent(core: ClientCore) -> list[object]:
    return [decode_request(frame) for frame in core.data_to_send()]


def _following(moves: int = 0) -> ClientCore:
    """A core following game g1 with `moves` played, nothing left to send."""
    core = ClientCore()
    core.receive(_started())
    for ply in range(moves):
        core.receive(_played(ply))
    assert core.data_to_send() == []
    return core


def test_a_game_starts_its_moves_are_played_and_its_clocks_change() -> None:
    core = ClientCore()
    (news, followed) = core.receive(_started(), now=5.0)
    assert isinstance(news, News)
    assert isinstance(news.event, GameStarted)
    assert isinstance(followed, GameFollowed)
    view = followed.view
    assert (view.game_id, view.version, view.ply, view.to_move) == ("g1", 1, 0, Colour.WHITE)
    assert (view.game, view.setup, view.received) == ("amazons", "6x6", 5.0)
    assert view.colour_of("ANN") is Colour.WHITE
    assert view.colour_of("carol") is None

    _, moved = core.receive(_played(0, lag_credit=40), now=6.5)
    assert moved == MoveAdded(core.games["g1"], 0, MOVES[0], 40)
    view = core.games["g1"]
    assert (view.version, view.moves, view.to_move) == (2, (MOVES[0],), Colour.BLACK)
    assert view.clocks == Clocks(60_000, 60_000)
    assert view.received == 6.5
    # The position is the registered game's state after the moves, a new one at each call.
    position = view.position()
    assert position.text() == _after(1)
    assert position.current_player == 1
    position.apply(next(iter(position.legal_moves)))
    assert view.position().text() == _after(1)

    _, clocks = core.receive(ClockUpdate("g1", 3, Clocks(1_000, 2_000)).to_wire())
    assert isinstance(clocks, ClocksChanged)
    assert clocks.view.clocks == Clocks(1_000, 2_000)
    assert clocks.view.moves == (MOVES[0],)
    assert core.data_to_send() == []


def _after(moves: int) -> str:
    state = get_game("amazons").parse_state(START)
    for text in MOVES[:moves]:
        state.apply(state.parse_move(text))
    return state.text()


def test_the_earlier_view_is_not_changed_by_later_events() -> None:
    core = _following(1)
    before = core.games["g1"]
    core.receive(_played(1))
    assert before.moves == (MOVES[0],)
    assert before.version == 2
    assert core.games["g1"].moves == tuple(MOVES[:2])


def test_a_version_already_applied_is_ignored() -> None:
    core = _following(2)
    view = core.games["g1"]
    for frame in (_played(1), _played(0), _started()):
        changes = core.receive(frame, now=99.0)
        assert [type(change) for change in changes] == [News]
    assert core.games["g1"] is view
    assert core.data_to_send() == []


def test_a_gap_asks_for_one_resync_until_it_is_answered() -> None:
    core = _following(1)  # version 2
    changes = core.receive(_played(3))  # version 5: versions 3 and 4 are missing
    assert [type(change) for change in changes] == [News]
    assert _sent(core) == [Resync("g1", 2, id=1)]
    assert core.resyncing("g1")
    core.receive(_played(4))  # version 6, still past the gap: no second resync
    core.receive(ClockUpdate("g1", 7, Clocks(1, 1)).to_wire())
    assert core.data_to_send() == []
    # The server replays the missed events, then answers.
    for ply in (1, 2, 3, 4):
        core.receive(_played(ply))
    core.receive(ClockUpdate("g1", 7, Clocks(1, 1)).to_wire())
    changes = core.receive(Synced("g1", 7, id=1).to_wire())
    assert [type(change) for change in changes] == [CaughtUp, Replied]
    assert core.games["g1"].moves == tuple(MOVES[:5])
    assert core.games["g1"].version == 7
    assert not core.resyncing("g1")
    assert core.data_to_send() == []


def test_a_resync_that_did_not_bring_the_events_past_the_gap_is_asked_once_more() -> None:
    core = _following(1)
    core.receive(_played(3))  # version 5: a gap
    assert _sent(core) == [Resync("g1", 2, id=1)]
    # The resync was answered as of version 3, before version 5 was sent.
    core.receive(_played(1))
    core.receive(Synced("g1", 3, id=1).to_wire())
    assert _sent(core) == [Resync("g1", 3, id=2)]
    core.receive(_played(2))
    core.receive(_played(3))
    core.receive(Synced("g1", 5, id=2).to_wire())
    assert core.data_to_send() == []
    assert core.games["g1"].version == 5


def test_a_move_at_the_wrong_ply_is_a_gap_too() -> None:
    core = _following(1)
    # Version 3 as expected, but ply 2: the view is missing a move.
    core.receive(_played(2, version=3))
    assert core.games["g1"].ply == 1
    assert _sent(core) == [Resync("g1", 2, id=1)]


def test_news_of_a_game_never_seen_asks_for_all_of_it() -> None:
    core = ClientCore()
    core.receive(_played(0, game_id="g2"))
    assert _sent(core) == [Resync("g2", 0, id=1)]
    assert "g2" not in core.games


def test_a_snapshot_replaces_the_view_and_an_older_one_is_ignored() -> None:
    core = _following(1)
    core.receive(Presence("g1", 3, Colour.BLACK, online=False, claim_after=30_000).to_wire())
    core.receive(_played(3))  # a gap
    assert _sent(core) == [Resync("g1", 3, id=1)]
    changes = core.receive(_snapshot(moves=4, version=6))
    assert [type(change) for change in changes] == [News, GameReplaced]
    view = core.games["g1"]
    assert (view.version, view.moves, view.to_move) == (6, tuple(MOVES[:4]), Colour.WHITE)
    assert view.clocks == Clocks(50_000, 40_000)
    assert view.away == frozenset({Colour.BLACK})  # a snapshot does not say who is away
    assert view.position().text() == _after(4)
    core.receive(Synced("g1", 6, id=1).to_wire())
    # An older snapshot changes nothing.
    assert [type(change) for change in core.receive(_snapshot(moves=2, version=4))] == [News]
    assert core.games["g1"] is view
    assert core.data_to_send() == []


def test_presence_and_the_end_of_a_game() -> None:
    core = _following(2)  # version 3
    _, left = core.receive(Presence("g1", 4, Colour.BLACK, False, 30_000).to_wire())
    assert left == PresenceChanged(core.games["g1"], Colour.BLACK, False, 30_000)
    assert core.games["g1"].away == frozenset({Colour.BLACK})
    core.receive(Presence("g1", 5, Colour.BLACK, True).to_wire())
    assert core.games["g1"].away == frozenset()
    ended = GameEnded("g1", 6, Termination.RESIGNATION, Clocks(7, 8), winner=Colour.WHITE)
    _, over = core.receive(ended.to_wire())
    assert isinstance(over, GameOver)
    view = over.view
    assert (view.status, view.winner, view.termination) == (
        GameStatus.ENDED,
        Colour.WHITE,
        Termination.RESIGNATION,
    )
    assert view.clocks == Clocks(7, 8)
    assert view.moves == tuple(MOVES[:2])


def test_replies_and_errors_are_matched_to_their_requests() -> None:
    core = _following(0)
    move_id = core.send(PlayMove("g1", 0, MOVES[0]))
    watch_id = core.send(Watch("g9"))
    assert (move_id, watch_id) == (1, 2)
    assert _sent(core) == [PlayMove("g1", 0, MOVES[0], id=1), Watch("g9", id=2)]
    assert set(core.pending) == {1, 2}

    refused = core.receive(ErrorReply(ErrorCode.NOT_FOUND, "no game g9", id=2).to_wire())
    assert refused == [
        Refused(Watch("g9", id=2), ErrorReply(ErrorCode.NOT_FOUND, "no game g9", id=2))
    ]
    changes = core.receive(_played(0, id=1))
    assert [type(change) for change in changes] == [MoveAdded, Replied]
    assert isinstance(changes[1], Replied)
    assert changes[1].request == PlayMove("g1", 0, MOVES[0], id=1)
    assert changes[1].reply == MovePlayed("g1", 2, 0, MOVES[0], Clocks(60_000, 60_000), id=1)
    assert core.pending == {}

    # An error that answers nothing this client waits on, and a reply to an unknown id.
    stray = ErrorReply(ErrorCode.BAD_FRAME, "not a msgpack frame", id=41)
    assert core.receive(stray.to_wire())[1:] == [ServerError(stray)]
    assert [type(change) for change in core.receive(_played(1, id=42))] == [News, MoveAdded]


def test_a_reviews_progress_keeps_its_request_waiting_for_the_whole_review() -> None:
    core = ClientCore()
    asked = core.send(AnalyzeGame("g1"))
    core.data_to_send()
    for done in (1, 4):
        progress = GameAnalysis("g1", done, 7, id=asked).to_wire()
        assert core.receive(progress) == [ReviewProgress("g1", done, 7)]
        assert set(core.pending) == {asked}
    review = GameAnalysis("g1", 7, 7, complete=True, white_wins=(500,) * 7, id=asked)
    assert core.receive(review.to_wire()) == [Replied(AnalyzeGame("g1", id=asked), review)]
    assert core.pending == {}
    # Progress for no request of this client's is news, as any event is.
    stray = GameAnalysis("g2", 1, 3, id=99)
    assert core.receive(stray.to_wire()) == [News(stray)]


def test_a_resync_of_a_game_the_server_no_longer_has_drops_it() -> None:
    core = _following(1)
    core.receive(_played(3))
    (resync,) = _sent(core)
    assert isinstance(resync, Resync)
    error = ErrorReply(ErrorCode.NOT_FOUND, "no game g1", id=resync.id)
    changes = core.receive(error.to_wire())
    assert changes == [Refused(resync, error), GameDropped("g1", "no game g1")]
    assert "g1" not in core.games
    assert not core.resyncing("g1")


def test_after_unwatch_the_games_stray_events_are_ignored() -> None:
    core = _following(1)
    core.send(Unwatch("g1"))
    core.data_to_send()
    assert "g1" not in core.games
    assert [type(change) for change in core.receive(_played(1))] == [News]
    assert core.data_to_send() == []
    core.send(Watch("g1"))
    core.data_to_send()
    assert [type(c) for c in core.receive(_snapshot(2, 4))] == [News, GameFollowed]


def test_a_reconnect_resyncs_the_games_still_playing_and_those_the_welcome_lists() -> None:
    previous = _following(2)
    previous.receive(_started("g2"))
    previous.receive(GameEnded("g2", 2, Termination.ABORTED, Clocks(1, 1)).to_wire())
    previous.receive(_started("g3"))
    # The new connection's core follows what the old one knew of the live games.
    core = ClientCore(v for v in previous.games.values() if v.status is GameStatus.PLAYING)
    assert set(core.games) == {"g1", "g3"}
    ids = core.catch_up(["g4", "g1"])
    assert ids == [1, 2, 3]
    assert _sent(core) == [Resync("g4", 0, id=1), Resync("g1", 3, id=2), Resync("g3", 1, id=3)]
    # A resync under way is not asked again.
    assert core.catch_up() == []
    # A reconnect loses what was under way: the next connection asks again.
    assert core.connection_lost() == [
        Resync("g4", 0, id=1),
        Resync("g1", 3, id=2),
        Resync("g3", 1, id=3),
    ]
    assert core.catch_up() == [4, 5]


def test_the_welcome_is_kept() -> None:
    core = ClientCore()
    login_id = core.send(Watch("x"))  # any request: the welcome is a reply like others
    offers = Offers(("6x6",), 15, 600, 30, bot_allowance_ms=500, first_move_ms=30_000)
    welcome = Welcome(1, "s" * 32, ANN, ("g1",), offers, id=login_id)
    changes = core.receive(welcome.to_wire())
    assert [type(change) for change in changes] == [Replied]
    assert (core.user, core.session, core.offers) == (ANN, "s" * 32, offers)


def test_the_lobby_is_kept_as_the_server_tells_it() -> None:
    core = ClientCore()
    seek = SeekInfo("s1", ANN, "6x6", TIME, False, ColourPreference.RANDOM)
    other = SeekInfo("s2", BOB, "8x8", TIME, True, ColourPreference.WHITE)
    assert core.receive(SeekList((seek,)).to_wire())[1:] == [SeeksListed((seek,))]
    assert core.receive(SeekAdded(other).to_wire())[1:] == [SeekOpened(other)]
    assert list(core.seeks) == ["s1", "s2"]
    assert core.receive(SeekRemoved("s1").to_wire())[1:] == [SeekClosed("s1")]
    assert dict(core.seeks) == {"s2": other}
    challenge = ChallengeInfo("c1", BOB, ANN, "6x6", TIME, False, ColourPreference.BLACK)
    assert core.receive(ChallengeAdded(challenge).to_wire())[1:] == [ChallengeOpened(challenge)]
    assert dict(core.challenges) == {"c1": challenge}
    closed = ChallengeRemoved("c1", ChallengeOutcome.DECLINED, "not today").to_wire()
    assert core.receive(closed)[1:] == [
        ChallengeClosed("c1", ChallengeOutcome.DECLINED, challenge, "not today")
    ]
    assert core.challenges == {}


def test_a_seek_list_read_before_the_news_that_came_first_is_brought_up_to_date() -> None:
    # The server read the list, then a seek was added and one removed, and their news came
    # before the list.
    core = ClientCore()
    seek = SeekInfo("s1", ANN, "6x6", TIME, False, ColourPreference.RANDOM)
    other = SeekInfo("s2", BOB, "8x8", TIME, True, ColourPreference.WHITE)
    gone = SeekInfo("s3", BOB, "6x6", TIME, False, ColourPreference.BLACK)
    listing = core.send(ListSeeks())
    core.receive(SeekAdded(other).to_wire())
    core.receive(SeekRemoved("s3").to_wire())
    changes = core.receive(SeekList((seek, gone), id=listing).to_wire())
    assert SeeksListed((seek, other)) in changes
    assert dict(core.seeks) == {"s1": seek, "s2": other}
    # Once the list is in, news is news only.
    core.receive(SeekRemoved("s2").to_wire())
    core.receive(SeekList((seek, other)).to_wire())
    assert dict(core.seeks) == {"s1": seek, "s2": other}


def test_a_challenge_accepted_is_no_longer_open_for_the_one_who_accepted() -> None:
    core = ClientCore()
    challenge = ChallengeInfo("c1", BOB, ANN, "6x6", TIME, False, ColourPreference.BLACK)
    core.receive(ChallengeAdded(challenge).to_wire())
    accepted = core.send(AcceptChallenge("c1"))
    started = GameStarted("g1", 1, ANN, BOB, START, TIME, False, Clocks(1, 1), id=accepted)
    changes = core.receive(started.to_wire())
    assert ChallengeClosed("c1", ChallengeOutcome.ACCEPTED, challenge) in changes
    assert core.challenges == {}
    assert "g1" in core.games


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (b"\xc1", "not a msgpack frame"),
        ("hello", "text frame"),
        (msgpack.packb({"t": "no_such_event"}), "unknown message type 'no_such_event'"),
        (msgpack.packb({"t": "move_played", "game_id": "g1"}), "missing field 'version'"),
    ],
)
def test_a_frame_that_cannot_be_read_is_skipped_and_named(frame: bytes | str, reason: str) -> None:
    core = _following(1)
    (skipped,) = core.receive(frame)
    assert isinstance(skipped, FrameSkipped)
    assert reason in skipped.reason
    assert core.games["g1"].version == 2


def test_the_side_to_move_is_read_from_the_event_or_the_position() -> None:
    core = ClientCore()
    black_first = START[:-1] + "b"
    core.receive(GameStarted("g1", 1, ANN, BOB, black_first, TIME, False, Clocks(1, 1)).to_wire())
    assert core.games["g1"].to_move is Colour.BLACK
    core.receive(_started("g2", to_move=Colour.BLACK))
    assert core.games["g2"].to_move is Colour.BLACK


def test_a_view_whose_moves_cannot_be_read_still_follows_the_game() -> None:
    core = _following(0)
    core.receive(MovePlayed("g1", 2, 0, "a1-a1/a1", Clocks(1, 1)).to_wire())
    view = core.games["g1"]
    assert (view.moves, view.version, view.to_move) == (("a1-a1/a1",), 2, Colour.BLACK)
    with pytest.raises(NotationError, match=r"^move 1 'a1-a1/a1': "):
        view.position()


def test_a_view_of_a_game_not_registered_here_names_it() -> None:
    view = GameView("g1", ANN, BOB, START, TIME, False, Clocks(1, 1), game="no_such_game")
    with pytest.raises(NotationError, match="unknown game 'no_such_game'"):
        view.position()


def _log(moves: int) -> list[bytes]:
    """A game's event log as frames: index v - 1 holds version v."""
    frames = [_started()]
    for ply in range(moves):
        frames.append(_played(ply, version=len(frames) + 1))
        if ply == 2:
            frames.append(ClockUpdate("g1", len(frames) + 1, Clocks(9, 9)).to_wire())
    return frames


LOG = _log(6)


def _views_by_version() -> dict[int, GameView]:
    core = ClientCore()
    views = {}
    for frame in LOG:
        core.receive(frame)
        views[core.games["g1"].version] = core.games["g1"]
    return views


VIEWS = _views_by_version()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.integers(1, len(LOG)), st.just(0)),  # 0: the server answers the resyncs
        max_size=30,
    )
)
def test_frames_out_of_order_repeated_or_lost_never_corrupt_a_view(steps: list[int]) -> None:
    """Whatever the order the log's frames come in, with repeats and losses, the view is always
    the game as of some version, at most one resync is under way, and answering it brings the
    view up to the latest version sent."""
    core = ClientCore()
    sent = 0  # the latest version the server has sent: its log so far
    asked: list[Resync] = []

    def answer() -> None:
        while asked:
            resync = asked.pop(0)
            for frame in LOG[resync.version : sent]:
                core.receive(frame)
            core.receive(Synced("g1", sent, id=resync.id).to_wire())
            take_requests()

    def take_requests() -> None:
        for request in _sent(core):
            assert isinstance(request, Resync)
            asked.append(request)
        assert len(asked) <= 1

    for step in steps:
        if step == 0:
            answer()
        else:
            sent = max(sent, step)
            core.receive(LOG[step - 1])
            take_requests()
        view = core.games.get("g1")
        if view is not None:
            assert view == VIEWS[view.version]
    answer()
    if sent:
        assert core.games["g1"] == VIEWS[sent]
