import re
from dataclasses import dataclass
from typing import Any

import msgpack
import pytest

from server.protocol import (
    EVENTS,
    MAX_EVENT_FRAME,
    MAX_REQUEST_FRAME,
    REQUESTS,
    Clocks,
    Colour,
    ColourPreference,
    ErrorCode,
    ErrorReply,
    Event,
    GameEnded,
    GameEvent,
    GameList,
    Message,
    PlayMove,
    ProtocolError,
    Request,
    Seek,
    Termination,
    TimeControl,
    decode_event,
    decode_request,
)
from server.protocol.schema import Context, decode_fields
from tests.server.protocol import examples


def _tag(message: Message) -> str:
    return message.TAG


@pytest.mark.parametrize("request_", examples.REQUESTS, ids=_tag)
def test_every_request_round_trips(request_: Request) -> None:
    assert decode_request(request_.to_wire()) == request_


@pytest.mark.parametrize("event", examples.EVENTS, ids=_tag)
def test_every_event_round_trips(event: Event) -> None:
    assert decode_event(event.to_wire()) == event


def test_the_examples_cover_every_message_type() -> None:
    assert {message.TAG for message in examples.REQUESTS} == set(REQUESTS)
    assert {message.TAG for message in examples.EVENTS} == set(EVENTS)


def test_tags_say_the_direction() -> None:
    assert not set(REQUESTS) & set(EVENTS)
    with pytest.raises(ProtocolError, match="unknown message type 'game_state'") as caught:
        decode_request(msgpack.packb({"t": "game_state", "id": 3}))
    assert caught.value.code is ErrorCode.UNKNOWN_TYPE
    with pytest.raises(ProtocolError, match="unknown message type 'move'"):
        decode_event(PlayMove("g1", 0, "d1-d7/g7").to_wire())


def test_a_move_is_one_map_with_the_type_first() -> None:
    frame = PlayMove("g1", 3, "d1-d7/g7", id=7).to_wire()
    assert frame == (b"\x85\xa1t\xa4move\xa2id\x07\xa7game_id\xa2g1\xa3ply\x03\xa4move\xa8d1-d7/g7")
    assert decode_request(frame) == PlayMove("g1", 3, "d1-d7/g7", id=7)


def test_absent_and_nil_optional_fields_are_the_same() -> None:
    event = ErrorReply(ErrorCode.NOT_FOUND, "no game g9")
    assert msgpack.unpackb(event.to_wire()) == {
        "t": "error",
        "code": "not_found",
        "message": "no game g9",
    }
    with_nils = {"t": "error", "code": "not_found", "message": "no game g9", "field": None}
    assert decode_event(msgpack.packb(with_nils)) == event


def test_fields_with_defaults_may_be_left_out() -> None:
    frame = msgpack.packb({"t": "seek", "time": {"base": 300, "increment": 3}})
    # No setup is the game's default one, which the server picks.
    assert decode_request(frame) == Seek(
        TimeControl(300, 3), None, False, ColourPreference.RANDOM, "amazons"
    )


def test_clients_skip_fields_they_do_not_know_but_the_server_refuses_them() -> None:
    fields: dict[str, Any] = {"t": "synced", "game_id": "g1", "version": 4, "since": "v2"}
    assert decode_event(msgpack.packb(fields)).id is None
    fields = {"t": "watch", "game_id": "g1", "spectate": True}
    with pytest.raises(ProtocolError, match="unknown field 'spectate' in watch") as caught:
        decode_request(msgpack.packb(fields))
    assert (caught.value.code, caught.value.field) == (ErrorCode.BAD_FIELD, "spectate")


@dataclass(frozen=True)
class GameEndedBefore(GameEvent, tag=None):
    """`game_ended` as clients read it before it said why a game was aborted."""

    termination: Termination
    clocks: Clocks
    winner: Colour | None = None


def test_a_client_from_before_a_field_was_added_reads_the_event_without_it() -> None:
    ended = next(e for e in examples.EVENTS if isinstance(e, GameEnded) and e.abort_cause)
    frame = msgpack.unpackb(ended.to_wire())
    assert {"abort_cause", "abort_side"} <= frame.keys()
    before = decode_fields(GameEndedBefore, frame, Context("game_ended", strict=False))
    assert before == GameEndedBefore(ended.game_id, ended.version, ended.termination, ended.clocks)


MOVE = {"t": "move", "id": 12, "game_id": "g1", "ply": 3, "move": "d1-d7/g7"}
SEEK = {"t": "seek", "id": 13, "time": {"base": 300, "increment": 3}}


@pytest.mark.parametrize(
    ("changes", "code", "field", "message"),
    [
        ({"ply": -3}, "bad_field", "ply", "field 'ply' must be an int from 0 to 1000, got -3"),
        ({"ply": 10**12}, "bad_field", "ply", "must be an int from 0 to 1000, got 1000000000000"),
        ({"ply": 2**64 - 1}, "bad_field", "ply", "got 18446744073709551615"),
        ({"ply": "3"}, "bad_field", "ply", "must be an int from 0 to 1000, got '3'"),
        ({"ply": 3.0}, "bad_field", "ply", "got the float 3.0"),
        ({"ply": True}, "bad_field", "ply", "got true"),
        ({"ply": None}, "bad_field", "ply", "got nil"),
        ({"ply": [3]}, "bad_field", "ply", "got an array of 1 item"),
        ({"ply": {"n": 3}}, "bad_field", "ply", "got a map of 1 field"),
        ({"ply": b"\x03"}, "bad_field", "ply", "got binary data of 1 byte"),
        (
            {"move": ""},
            "bad_field",
            "move",
            "'move' must be a string of 1 to 32 characters, got ''",
        ),
        ({"move": "d1" * 50}, "bad_field", "move", "got a string of 100 characters"),
        ({"game_id": 42}, "bad_field", "game_id", "'game_id' must be a string of 1 to 32"),
        ({"ply": ...}, "missing_field", "ply", "missing field 'ply' in move"),
        ({"game_id": ...}, "missing_field", "game_id", "missing field 'game_id' in move"),
        ({"t": ...}, "missing_field", "t", "missing field 't'"),
        ({"t": 5}, "bad_field", "t", "field 't' must be a message type name, got 5"),
        ({"t": b"move"}, "bad_field", "t", "got binary data of 4 bytes"),
        ({"t": "mvoe"}, "unknown_type", None, "unknown message type 'mvoe'"),
        ({"from": "d1"}, "bad_field", "from", "unknown field 'from' in move"),
    ],
)
def test_a_bad_move_names_its_field(
    changes: dict[str, Any], code: str, field: str | None, message: str
) -> None:
    fields = {**MOVE, **changes}
    frame = msgpack.packb({key: value for key, value in fields.items() if value is not ...})
    with pytest.raises(ProtocolError) as caught:
        decode_request(frame)
    assert caught.value.code == code
    assert caught.value.field == field
    assert message in str(caught.value)
    assert caught.value.request_id == 12


@pytest.mark.parametrize(
    ("changes", "code", "field", "message"),
    [
        ({"time": {"base": -60, "increment": 0}}, "bad_field", "time.base", "from 0 to 10800"),
        ({"time": {"base": 60, "increment": 181}}, "bad_field", "time.increment", "got 181"),
        ({"time": {"base": 60}}, "missing_field", "time.increment", "'time.increment' in seek"),
        ({"time": 300}, "bad_field", "time", "field 'time' must be a map, got 300"),
        (
            {"time": {"base": 60, "increment": 0, "delay": 2}},
            "bad_field",
            "time.delay",
            "unknown field 'time.delay' in seek",
        ),
        ({"colour": "purple"}, "bad_field", "colour", "one of 'white', 'black', 'random'"),
        ({"colour": "WHITE"}, "bad_field", "colour", "got 'WHITE'"),
        ({"rated": 1}, "bad_field", "rated", "field 'rated' must be true or false, got 1"),
        ({"setup": ""}, "bad_field", "setup", "a string of 1 to 32 characters"),
        ({b"rated": True}, "bad_field", "b'rated'", "unknown field \"b'rated'\" in seek"),
    ],
)
def test_a_bad_seek_names_its_field(
    changes: dict[Any, Any], code: str, field: str, message: str
) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_request(msgpack.packb({**SEEK, **changes}))
    assert (caught.value.code, caught.value.field) == (code, field)
    assert message in str(caught.value)
    assert caught.value.request_id == 13


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"t": "hello", "version": 0}, "version", "'version' must be an int from 1 to 65535"),
        (
            {"t": "challenge", "opponent": "x", "time": SEEK["time"], "strength": 0},
            "strength",
            "from 1 to 10",
        ),
        ({"t": "resync", "game_id": "g1", "version": -1}, "version", "from 0 to 1000000"),
        ({"t": "login", "user": "ann", "password": "p" * 129}, "password", "1 to 128 characters"),
        ({"t": "login", "user": "a" * 33, "password": "p"}, "user", "1 to 32 characters"),
        ({"t": "bot_login", "token": ""}, "token", "got ''"),
    ],
)
def test_other_requests_check_their_bounds(
    fields: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(ProtocolError, match=message) as caught:
        decode_request(msgpack.packb(fields))
    assert (caught.value.code, caught.value.field) == (ErrorCode.BAD_FIELD, field)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"moves": ["d1-d7/g7"] * 1001}, "moves", "an array of at most 1000 items, got an array"),
        ({"moves": ["d1-d7/g7", "g10-g4/d4", 5]}, "moves[2]", "field 'moves[2]' must be a string"),
        ({"clocks": {"white": -1, "black": 0}}, "clocks.white", "got -1"),
        ({"clocks": {"white": 0, "black": 10**9}}, "clocks.black", "from 0 to 86400000"),
        ({"to_move": "red"}, "to_move", "one of 'white', 'black', got 'red'"),
        ({"termination": "draw"}, "termination", "one of 'no_legal_move', 'time_forfeit'"),
        ({"white": {"name": "ann", "kind": "human", "rating": 5000}}, "white.rating", "0 to 4000"),
    ],
)
def test_a_bad_game_state_names_its_field(
    changes: dict[str, Any], field: str, message: str
) -> None:
    snapshot = msgpack.unpackb(examples.SNAPSHOT.to_wire())
    with pytest.raises(ProtocolError, match=re.escape(message)) as caught:
        decode_event(msgpack.packb({**snapshot, **changes}))
    assert (caught.value.code, caught.value.field) == (ErrorCode.BAD_FIELD, field)


def test_paths_reach_into_lists_of_maps() -> None:
    listing = msgpack.unpackb(GameList((examples.SUMMARY, examples.SUMMARY)).to_wire())
    listing["games"][1]["black"]["kind"] = "alien"
    with pytest.raises(
        ProtocolError, match=re.escape("field 'games[1].black.kind' must be one of")
    ):
        decode_event(msgpack.packb(listing))


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (b"", "not a msgpack frame: Unpack failed: incomplete input"),
        (b"\xc1", "not a msgpack frame: a byte that starts no msgpack value"),
        (b"\x82\xa1t\xa4ping", "not a msgpack frame"),
        (b"\x81\xa1t\xa4ping\x00", "bytes left over after the first value"),
        (b"\x81\xa1t\xa2\xff\xfe", "a string that is not UTF-8"),
        (b"\x91" * 3000, "values nested too deep"),
        (b"\x93\x01\x02\x03", "a frame must be a map, got an array of 3 items"),
        (b"\xa4ping", "a frame must be a map, got 'ping'"),
        (b"\xc0", "a frame must be a map, got nil"),
        (b"\x81\x01\xa4ping", "not a msgpack frame: int is not allowed for map key"),
        ('{"t": "ping"}', "text frame: messages go in binary frames"),
    ],
)
def test_bytes_that_are_not_a_message_are_a_bad_frame(frame: bytes | str, message: str) -> None:
    for decode in (decode_request, decode_event):
        with pytest.raises(ProtocolError, match=message) as caught:
            decode(frame)
        assert caught.value.code is ErrorCode.BAD_FRAME
        assert caught.value.request_id is None


def test_a_ping_in_raw_bytes() -> None:
    assert decode_request(b"\x82\xa1t\xa4ping\xa2id\x05").id == 5


def test_frames_over_the_limit_are_refused_before_reading() -> None:
    frame = msgpack.packb({"t": "analyze", "id": 1, "position": "x" * MAX_REQUEST_FRAME})
    with pytest.raises(
        ProtocolError, match=f"bytes is over the limit of {MAX_REQUEST_FRAME}"
    ) as caught:
        decode_request(frame)
    assert caught.value.code is ErrorCode.FRAME_TOO_LARGE
    assert caught.value.request_id is None
    with pytest.raises(ProtocolError) as caught:
        decode_request(b"\xc1" * (MAX_REQUEST_FRAME + 1))
    assert caught.value.code is ErrorCode.FRAME_TOO_LARGE
    with pytest.raises(ProtocolError) as caught:
        decode_request(b"\xc1" * MAX_REQUEST_FRAME)
    assert caught.value.code is ErrorCode.BAD_FRAME


def test_server_frames_may_be_larger_than_client_frames() -> None:
    listing = GameList((examples.SUMMARY,) * 300)
    frame = listing.to_wire()
    assert MAX_REQUEST_FRAME < len(frame) <= MAX_EVENT_FRAME
    assert decode_event(frame) == listing
    with pytest.raises(ProtocolError) as caught:
        decode_event(b"\x80" * (MAX_EVENT_FRAME + 1))
    assert caught.value.code is ErrorCode.FRAME_TOO_LARGE


@pytest.mark.parametrize("bad_id", [-1, 2**32, "7", 7.0, True, [7]])
def test_a_bad_request_id_is_refused_and_not_echoed(bad_id: object) -> None:
    with pytest.raises(
        ProtocolError, match="field 'id' must be an int from 0 to 4294967295"
    ) as caught:
        decode_request(msgpack.packb({**MOVE, "id": bad_id}))
    assert (caught.value.code, caught.value.field, caught.value.request_id) == (
        ErrorCode.BAD_FIELD,
        "id",
        None,
    )


def test_the_error_reply_echoes_the_request_id() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_request(msgpack.packb({"t": "resign", "id": 99}))
    reply = ErrorReply.of(caught.value)
    assert msgpack.unpackb(reply.to_wire()) == {
        "t": "error",
        "id": 99,
        "code": "missing_field",
        "message": "missing field 'game_id' in resign",
        "field": "game_id",
    }
    assert ErrorReply.of(ProtocolError(ErrorCode.NOT_FOUND, "no game g1"), id=5).id == 5


def test_a_rate_limit_reply_says_when_to_retry() -> None:
    error = ProtocolError(ErrorCode.RATE_LIMITED, "too many moves", request_id=4, retry_after=2)
    assert msgpack.unpackb(ErrorReply.of(error).to_wire()) == {
        "t": "error",
        "id": 4,
        "code": "rate_limited",
        "message": "too many moves",
        "retry_after": 2,
    }


def test_a_protocol_error_is_a_value_error_with_a_readable_repr() -> None:
    error = ProtocolError(ErrorCode.STALE_PLY, "ply 3 was already played")
    assert isinstance(error, ValueError)
    assert repr(error) == "ProtocolError(ErrorCode.STALE_PLY, 'ply 3 was already played')"


def test_clocks_are_whole_milliseconds() -> None:
    clocks = {"t": "clock", "game_id": "g1", "version": 2, "clocks": {"white": 1.5, "black": 0}}
    with pytest.raises(
        ProtocolError, match=r"'clocks\.white' must be an int .* got the float 1\.5"
    ):
        decode_event(msgpack.packb(clocks))
