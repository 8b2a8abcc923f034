from dataclasses import dataclass
from typing import Annotated

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.protocol import (
    Clocks,
    Colour,
    GameEnded,
    GameSnapshot,
    GameStatus,
    Ping,
    Player,
    PlayerKind,
    PlayMove,
    Pong,
    Request,
    Termination,
    Welcome,
    decode_event,
    decode_request,
)
from server.protocol.limits import (
    MAX_CLOCK_MS,
    MAX_EVENT_VERSION,
    MAX_PLY,
    MAX_RATING,
    MAX_REQUEST_ID,
)
from server.protocol.message import by_tag
from server.protocol.schema import Context, Length, Range, decode_fields, describe, encode_fields
from tests.server.protocol.examples import ANN, BLITZ, START

ids = st.text(min_size=1, max_size=32)
request_ids = st.none() | st.integers(min_value=0, max_value=MAX_REQUEST_ID)
players = st.builds(
    Player,
    st.text(min_size=1, max_size=32),
    st.sampled_from(PlayerKind),
    st.none() | st.integers(0, MAX_RATING),
)
clocks = st.builds(
    Clocks, st.integers(min_value=0, max_value=MAX_CLOCK_MS), st.integers(0, MAX_CLOCK_MS)
)


@given(
    st.builds(
        PlayMove, ids, st.integers(0, MAX_PLY), st.text(min_size=1, max_size=32), id=request_ids
    )
)
def test_moves_round_trip(move: PlayMove) -> None:
    assert decode_request(move.to_wire()) == move


@given(
    st.builds(
        GameSnapshot,
        ids,
        st.integers(0, MAX_EVENT_VERSION),
        players,
        players,
        st.just(START),
        st.just(BLITZ),
        st.booleans(),
        st.lists(st.text(min_size=1, max_size=32), max_size=MAX_PLY).map(tuple),
        clocks,
        st.sampled_from(Colour),
        st.sampled_from(GameStatus),
        setup=st.none() | ids,
        winner=st.none() | st.sampled_from(Colour),
        termination=st.none() | st.sampled_from(Termination),
        id=request_ids,
    )
)
def test_game_states_round_trip(snapshot: GameSnapshot) -> None:
    assert decode_event(snapshot.to_wire()) == snapshot


def test_enums_and_tuples_go_out_as_plain_values() -> None:
    fields = encode_fields(GameEnded("g1", 9, Termination.NO_LEGAL_MOVE, Clocks(1, 2)))
    assert fields == {
        "game_id": "g1",
        "version": 9,
        "termination": "no_legal_move",
        "clocks": {"white": 1, "black": 2},
    }
    assert type(fields["termination"]) is str
    assert encode_fields(Welcome(1, "s", ANN, ("g1",)))["games"] == ["g1"]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (None, "nil"),
        (False, "false"),
        (-3, "-3"),
        (0.5, "the float 0.5"),
        ("ok", "'ok'"),
        ("x" * 41, "a string of 41 characters"),
        (b"\x00\x01", "binary data of 2 bytes"),
        ([], "an array of 0 items"),
        ({"a": 1}, "a map of 1 field"),
        (msgpack.ExtType(5, b""), "an extension value"),
    ],
)
def test_error_messages_show_values_briefly(raw: object, shown: str) -> None:
    assert describe(raw) == shown


def test_a_field_without_bounds_is_a_programming_error() -> None:
    @dataclass(frozen=True)
    class Unbounded:
        count: int

    with pytest.raises(TypeError, match="no wire form for <class 'int'>"):
        decode_fields(Unbounded, {"count": 1}, Context("unbounded", strict=True))


def test_list_bounds_can_require_items() -> None:
    @dataclass(frozen=True)
    class Pair:
        names: Annotated[tuple[Annotated[str, Length(1, 8)], ...], Length(2, 2)]

    context = Context("pair", strict=True)
    assert decode_fields(Pair, {"names": ["a", "b"]}, context) == Pair(("a", "b"))
    with pytest.raises(ValueError, match="'names' must be an array of 2 to 2 items, got an array"):
        decode_fields(Pair, {"names": ["a"]}, context)


def test_a_tuple_with_a_type_per_item_is_an_array_of_that_length() -> None:
    @dataclass(frozen=True)
    class Score:
        score: tuple[Annotated[str, Length(1, 8)], Annotated[int, Range(0, 9)]]

    context = Context("score", strict=True)
    assert decode_fields(Score, {"score": ["ann", 3]}, context) == Score(("ann", 3))
    with pytest.raises(ValueError, match="'score' must be an array of 2 items, got an array"):
        decode_fields(Score, {"score": ["ann"]}, context)
    with pytest.raises(ValueError, match=r"'score\[1\]' must be an int from 0 to 9, got 10"):
        decode_fields(Score, {"score": ["ann", 10]}, context)


def test_two_types_cannot_share_a_tag() -> None:
    @dataclass(frozen=True)
    class Knock(Request, tag="ping"):
        pass

    with pytest.raises(TypeError, match="Knock and Ping share tag 'ping'"):
        by_tag(Ping, Knock)
    assert by_tag(Pong)["pong"] is Pong
