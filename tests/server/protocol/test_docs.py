"""docs/protocol.md is the contract: it must name every message, error code and enum value, and
quote the limits the code enforces."""

from enum import StrEnum
from pathlib import Path

import pytest

from server.protocol import (
    EVENTS,
    PROTOCOL_VERSION,
    REQUESTS,
    AbortCause,
    ChallengeOutcome,
    Colour,
    ColourPreference,
    ErrorCode,
    GameStatus,
    MoveMark,
    PlayerKind,
    Termination,
    limits,
)

DOC = (Path(__file__).resolve().parents[3] / "docs" / "protocol.md").read_text()


@pytest.mark.parametrize("tag", [*REQUESTS, *EVENTS])
def test_every_message_type_is_documented(tag: str) -> None:
    assert f"| `{tag}` |" in DOC


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_error_code_is_in_the_table(code: ErrorCode) -> None:
    assert f"| `{code}` |" in DOC


@pytest.mark.parametrize(
    "enum",
    [
        Colour,
        ColourPreference,
        GameStatus,
        Termination,
        PlayerKind,
        ChallengeOutcome,
        AbortCause,
        MoveMark,
    ],
)
def test_every_enum_value_is_documented(enum: type[StrEnum]) -> None:
    for member in enum:
        assert f"`{member}`" in DOC


@pytest.mark.parametrize(
    "text",
    [
        f"# The wire protocol (version {PROTOCOL_VERSION})",
        f"0..{limits.MAX_REQUEST_ID}",
        f"1..{limits.MAX_PROTOCOL_VERSION}",
        f"0..{limits.MAX_PLY}",
        f"0..{limits.MAX_EVENT_VERSION}",
        f"0..{limits.MAX_CLOCK_MS}",
        f"0..{limits.MAX_RETRY_AFTER}",
        f"1..{limits.MAX_STRENGTH}",
        f"0..{limits.MAX_RATING}",
        f"0..{limits.MAX_BASE_SECONDS}",
        f"0..{limits.MAX_INCREMENT_SECONDS}",
        f"0..{limits.MAX_COUNT}",
        f"1..{limits.MAX_NAME_LENGTH} characters",
        f"1..{limits.MAX_PASSWORD_LENGTH}",
        f"1..{limits.MAX_TOKEN_LENGTH}",
        f"1..{limits.MAX_ID_LENGTH}",
        f"1..{limits.MAX_SETUP_LENGTH}",
        f"game name | string | 1..{limits.MAX_GAME_NAME_LENGTH}",
        f"1..{limits.MAX_MOVE_LENGTH}",
        f"1..{limits.MAX_POSITION_LENGTH}",
        f"1..{limits.MAX_CLIENT_LENGTH}",
        f"0..{limits.MAX_MESSAGE_LENGTH} characters",
        f"1..{limits.MAX_FIELD_PATH_LENGTH} characters",
        f"up to {limits.MAX_PLY}",
        f"up to {limits.MAX_LISTED}",
        f"up to {limits.MAX_OWN_GAMES}",
        f"up to {limits.MAX_CROSS_PAIRS} pairs",
        f"`games` up to {limits.MAX_FINISHED_GAMES} (it sends",
        f"`history` up to {limits.MAX_HISTORY_POINTS} points",
        f"engine text | string | 1..{limits.MAX_ENGINE_LENGTH}",
        f"0..{limits.MAX_TIME_MS}",
        f"0..{limits.MAX_WIN_PERMILLE}: a winning chance",
        f"`line` up to {limits.MAX_LINE}",
        f"at most **{limits.MAX_REQUEST_FRAME // 1024} KiB**",
        f"up to {limits.MAX_EVENT_FRAME // 1024 // 1024} MiB",
    ],
)
def test_the_limits_in_the_doc_are_the_limits_in_the_code(text: str) -> None:
    assert text in DOC
