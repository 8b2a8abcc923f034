"""The rules of a live game's life as pure functions, without Redis: moves, refusals, resends,
late moves, the end of a game by its rules, resigning, aborting, claiming and presence, on
Amazons and on the test suite's take-away game."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.game import GameInfo
from server import referee, stored_game
from server.clock import FIRST_MOVE_MS, Timeout
from server.protocol import (
    AbortCause,
    Colour,
    ErrorCode,
    GameEnded,
    GameStatus,
    MovePlayed,
    Player,
    PlayerKind,
    ProtocolError,
    Termination,
    TimeControl,
)
from server.protocol.limits import MAX_PLY
from server.stored_game import StoredGame
from tests.games.takeaway import TAKEAWAY, TakeAway

ANN = Player("ann", PlayerKind.HUMAN)
BOB = Player("bob", PlayerKind.HUMAN)


def _new(game: str = "amazons", setup: str | None = "6x6", start: str | None = None) -> StoredGame:
    stored, _ = referee.new_game(
        ANN, BOB, time=TimeControl(60, 0), rated=False, now=0, game=game, setup=setup, start=start
    )
    return stored


def _play(game: StoredGame, name: str, text: str, now: int) -> referee.Moved:
    outcome = referee.play(game, game.state(), name, game.ply, text, now)
    assert isinstance(outcome, referee.Moved)
    return outcome


def _refusal(game: StoredGame, name: str, ply: int, text: str, now: int = 1_000) -> ProtocolError:
    with pytest.raises(ProtocolError) as refused:
        referee.play(game, game.state(), name, ply, text, now)
    return refused.value


def test_a_new_game_starts_from_its_setup_with_its_first_player_to_move() -> None:
    stored, started = referee.new_game(
        ANN, BOB, time=TimeControl(60, 0), rated=True, now=0, game="takeaway", setup="10"
    )
    assert (stored.game, stored.start, stored.to_move, stored.version) == (
        "takeaway",
        "10 w",
        Colour.WHITE,
        1,
    )
    assert (started.game, started.start, started.to_move) == ("takeaway", "10 w", Colour.WHITE)
    black_first = _new("takeaway", setup=None, start="7 b")
    assert black_first.to_move is Colour.BLACK
    assert black_first.clock.to_move is Colour.BLACK


def test_a_new_game_refuses_an_unknown_game_or_setup() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        _new("chess")
    with pytest.raises(ValueError, match="unknown setup '5'"):
        _new("takeaway", setup="5")
    with pytest.raises(ValueError, match="a game needs a setup or a start position"):
        _new(setup=None)


def test_a_move_gives_the_game_after_it_and_its_event_and_leaves_the_input_alone() -> None:
    game = _new()
    state = game.state()
    before = state.text()
    moved = referee.play(game, state, "ann", 0, "b1b4d4", now=1_000)
    assert isinstance(moved, referee.Moved)
    assert state.text() == before
    assert moved.game.moves == ("b1-b4/d4",)
    assert (moved.game.version, moved.game.to_move) == (2, Colour.BLACK)
    assert moved.game.current == moved.state.to_bytes()
    [event] = moved.events
    assert event == MovePlayed(
        game.game_id,
        2,
        ply=0,
        move="b1-b4/d4",
        clocks=moved.game.clocks(1_000),
        to_move=Colour.BLACK,
    )


@pytest.mark.parametrize(
    ("name", "ply", "text", "code", "message"),
    [
        ("cat", 0, "b1-b4/d4", ErrorCode.NOT_A_PLAYER, "cat does not play in game"),
        ("bob", 0, "e6-e2/f3", ErrorCode.NOT_YOUR_TURN, "it is white's turn to move"),
        ("ann", 1, "b1-b4/d4", ErrorCode.STALE_PLY, "ply 1 is not the next move's number"),
        ("ann", 0, "b1-b7/d4", ErrorCode.ILLEGAL_MOVE, "b7 is off the 6x6 board"),
        ("ann", 0, "b2-b3/b4", ErrorCode.ILLEGAL_MOVE, "no white amazon on b2"),
    ],
)
def test_a_move_out_of_turn_or_illegal_is_refused_by_name(
    name: str, ply: int, text: str, code: ErrorCode, message: str
) -> None:
    refused = _refusal(_new(), name, ply, text)
    assert refused.code is code
    assert message in str(refused)


def test_a_resent_move_is_known_in_any_notation_but_not_from_the_other_player() -> None:
    game = _play(_new(), "ann", "b1-b4/d4", 1_000).game
    for text in ("b1-b4/d4", "B1 B4 D4", "b1-b4(d4)"):
        assert referee.play(game, game.state(), "ann", 0, text, 2_000) == referee.Resent(0)
    assert _refusal(game, "ann", 0, "b1-b3/d3").code is ErrorCode.STALE_PLY
    assert _refusal(game, "bob", 0, "b1-b4/d4").code is ErrorCode.STALE_PLY
    with pytest.raises(ProtocolError, match="ply 0 is not the next move's number"):
        referee.play(game, game.state(), "ann", 0, "b1-b4/d4", 2_000, resends=False)


def test_a_first_move_too_late_aborts_and_a_late_move_loses_on_time() -> None:
    game = _new()
    late = referee.play(game, game.state(), "ann", 0, "b1-b4/d4", FIRST_MOVE_MS)
    assert late == referee.TimeUp(
        Timeout.ABORTED, "the game was aborted: white did not make a first move in time"
    )
    ended, event = referee.time_up(game, Timeout.ABORTED, FIRST_MOVE_MS)
    assert (ended.status, event.termination, event.winner) == (
        GameStatus.ENDED,
        Termination.ABORTED,
        None,
    )
    assert (event.abort_cause, event.abort_side) == (AbortCause.NO_FIRST_MOVE, Colour.WHITE)
    game = _play(_play(game, "ann", "b1-b4/d4", 1_000).game, "bob", "e6-e2/f3", 2_000).game
    late = referee.play(game, game.state(), "ann", 2, "a2-a3/a4", 2_000 + 70_000)
    assert late == referee.TimeUp(Timeout.TIME_FORFEIT, "white ran out of time")
    ended, event = referee.time_up(game, Timeout.TIME_FORFEIT, 72_000)
    assert (event.termination, event.winner, event.clocks.white) == (
        Termination.TIME_FORFEIT,
        Colour.BLACK,
        0,
    )


def test_the_move_that_ends_a_game_by_its_rules_ends_it_for_the_player_it_favours() -> None:
    game = _new("takeaway", setup=None, start="5 w")
    game = _play(game, "ann", "2", 1_000).game
    assert game.state().text() == "3 b"
    moved = _play(game, "bob", "3", 2_000)
    played, ended = moved.events
    assert isinstance(played, MovePlayed)
    assert isinstance(ended, GameEnded)
    assert (ended.version, ended.termination, ended.winner) == (
        4,
        Termination.NO_LEGAL_MOVE,
        Colour.BLACK,
    )
    assert (moved.game.status, moved.game.winner, moved.game.moves) == (
        GameStatus.ENDED,
        Colour.BLACK,
        ("2", "3"),
    )
    refused = _refusal(moved.game, "ann", 2, "1", 3_000)
    assert refused.code is ErrorCode.GAME_OVER


def test_take_away_refuses_taking_more_than_the_pile() -> None:
    game = _new("takeaway", setup=None, start="2 w")
    refused = _refusal(game, "ann", 0, "3")
    assert (refused.code, str(refused)) == (
        ErrorCode.ILLEGAL_MOVE,
        "cannot take 3: take 1 to 2 counters",
    )


def test_resigning_gives_the_game_to_the_opponent() -> None:
    ended, event = referee.resign(_new(), "bob", 5_000)
    assert (event.termination, event.winner, ended.ended) == (
        Termination.RESIGNATION,
        Colour.WHITE,
        5_000,
    )
    with pytest.raises(ProtocolError, match="is over \\(resignation\\)"):
        referee.resign(ended, "ann", 6_000)


def test_a_game_can_be_aborted_only_before_both_sides_moved() -> None:
    game = _play(_new(), "ann", "b1-b4/d4", 1_000).game
    _, event = referee.abort(game, "bob", 1_500)
    assert (event.termination, event.winner) == (Termination.ABORTED, None)
    assert (event.abort_cause, event.abort_side) == (AbortCause.CALLED_OFF, Colour.BLACK)
    game = _play(game, "bob", "e6-e2/f3", 2_000).game
    with pytest.raises(ProtocolError, match="too late to abort"):
        referee.abort(game, "ann", 3_000)


def test_an_aborted_game_keeps_why_for_its_state_and_one_stored_before_loads_without() -> None:
    game = _play(_new(), "ann", "b1-b4/d4", 1_000).game
    for ended, side, cause in (
        (referee.abort(game, "ann", 1_500)[0], Colour.WHITE, AbortCause.CALLED_OFF),
        (referee.time_up(game, Timeout.ABORTED, 40_000)[0], Colour.BLACK, AbortCause.NO_FIRST_MOVE),
    ):
        state = StoredGame.from_bytes(ended.to_bytes()).snapshot(50_000)
        assert (state.termination, state.abort_cause, state.abort_side) == (
            Termination.ABORTED,
            cause,
            side,
        )
        assert state.first_move_left is None
    stored_before = replace(ended, extra={"final_clocks": [60_000, 60_000]})
    state = StoredGame.from_bytes(stored_before.to_bytes()).snapshot(50_000)
    assert (state.termination, state.abort_cause, state.abort_side) == (
        Termination.ABORTED,
        None,
        None,
    )
    resigned = StoredGame.from_bytes(referee.resign(game, "ann", 2_000)[0].to_bytes())
    assert (resigned.abort_cause, resigned.snapshot(3_000).abort_side) == (None, None)


def test_the_state_says_how_long_is_left_of_a_first_moves_window() -> None:
    game = _new()
    assert game.snapshot(10_000).first_move_left == FIRST_MOVE_MS - 10_000
    assert game.snapshot(FIRST_MOVE_MS + 5_000).first_move_left == 0
    game = _play(game, "ann", "b1-b4/d4", 12_000).game
    assert game.snapshot(15_000).first_move_left == FIRST_MOVE_MS - 3_000
    game = _play(game, "bob", "e6-e2/f3", 20_000).game
    assert game.snapshot(21_000).first_move_left is None


def test_presence_and_claims() -> None:
    game = _new()
    assert referee.presence(game, Colour.WHITE, online=True, now=0, grace_ms=1_000) is None
    with pytest.raises(ProtocolError, match="your opponent is connected"):
        referee.claim(game, "bob", 0, 1_000)
    change = referee.presence(game, Colour.WHITE, online=False, now=100, grace_ms=1_000)
    assert change is not None
    away, event = change
    assert (event.side, event.online, event.claim_after, away.version) == (
        Colour.WHITE,
        False,
        1_000,
        2,
    )
    assert referee.presence(away, Colour.WHITE, online=False, now=200, grace_ms=1_000) is None
    with pytest.raises(ProtocolError) as early:
        referee.claim(away, "bob", 600, 1_000)
    assert (early.value.code, early.value.retry_after) == (ErrorCode.CONFLICT, 1)
    _, ended = referee.claim(away, "bob", 1_100, 1_000)
    assert (ended.termination, ended.winner) == (Termination.ABANDONED, Colour.BLACK)
    back = referee.presence(away, Colour.WHITE, online=True, now=300, grace_ms=1_000)
    assert back is not None
    assert back[1].online
    assert back[0].extra["away"] == {}


class _Oversized(TakeAway):
    """Take-away with a pile too high for the protocol's `ply` bound."""

    @property
    def info(self) -> GameInfo:  # type: ignore[override]
        return replace(TAKEAWAY.info, name="bigpile", max_plies=MAX_PLY + 1)


def test_a_game_whose_plies_or_texts_outgrow_the_protocol_is_not_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stored_game, "get_game", lambda name: _Oversized())
    with pytest.raises(
        ValueError, match=f"game 'bigpile' may need {MAX_PLY + 1} plies: the protocol carries"
    ):
        stored_game.rules_of("bigpile")


def test_a_bao_game_that_reaches_the_ply_cap_ends_drawn_as_adjudicated() -> None:
    """Bao's rules cap a game at 600 plies; the move that reaches the cap ends the game with no
    winner, marked `ply_cap`, not as a game its rules decided."""
    start = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22-22 SN - s namua 599"
    game = _new("bao", setup=None, start=start)
    moved = _play(game, "ann", "A6>", 1_000)
    _, ended = moved.events
    assert isinstance(ended, GameEnded)
    assert (ended.termination, ended.winner) == (Termination.PLY_CAP, None)
    assert (moved.game.status, moved.game.termination) == (GameStatus.ENDED, Termination.PLY_CAP)
