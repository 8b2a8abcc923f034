"""Game records: one finished game as a JSON object (a line of a JSON Lines file), readable by
review and the server archive: its id and date, players and ratings, start, moves in move text,
seconds per move, result."""

from __future__ import annotations

import gzip
import json
import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from engine.errors import NotationError
from engine.game import GameState, get_game

__all__ = ["GameRecord", "new_game_id", "read_record", "read_records", "utc_date"]


@dataclass(slots=True)
class GameRecord:
    game: str
    start: str  # position text of the start
    white: str  # player names or bot specs
    black: str
    # Records written before these fields read as None.
    game_id: str | None = None  # the server's game id, or one made for a match game
    date: str | None = None  # when the game began, ISO 8601 UTC (utc_date)
    rated: bool | None = None  # match games are never rated
    white_rating: int | None = None  # when the game began; None for guests, bots and matches
    black_rating: int | None = None
    moves: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # thinking time of each move
    nodes: list[int] = field(default_factory=list)  # nodes or playouts of each move (bots)
    winner: str | None = None  # "white" or "black"; None while unfinished
    termination: str = ""  # "no legal move", "time forfeit", "resignation", ...
    setup: str | None = None
    budget: float | None = None  # seconds per move, when fixed
    # Clocked games (the server's archive): the time control and (White, Black) ms left after
    # each move.
    time: list[int] | None = None  # [base seconds, increment seconds]
    clocks: list[list[int]] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
            return cls(**data)
        except (json.JSONDecodeError, TypeError) as error:
            raise NotationError(f"not a game record: {error}") from None

    def replay(self, plies: int | None = None) -> GameState[object]:
        """The state after the first `plies` moves (all of them by default), every move checked
        by the rules."""
        state = get_game(self.game).parse_state(self.start)
        for ply, text in enumerate(self.moves[:plies], 1):
            try:
                state.apply(state.parse_move(text))
            except ValueError as error:
                raise NotationError(f"move {ply} {text!r}: {error}") from None
        return state


def read_records(path: Path) -> list[GameRecord]:
    """The records of a JSON Lines file, gzip-compressed when its name ends in .gz."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise NotationError(f"cannot read {path}: {error.strerror}") from None
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise NotationError(f"{path}: not a gzip file of records: {error}") from None
    records = []
    for number, line in enumerate(data.decode().splitlines(), 1):
        if line.strip():
            try:
                records.append(GameRecord.from_json(line))
            except NotationError as error:
                raise NotationError(f"{path}:{number}: {error}") from None
    return records


def read_record(path: Path, number: int) -> GameRecord:
    """Game `number` of a file of records, counted from 1."""
    records = read_records(path)
    if not 1 <= number <= len(records):
        games = f"{len(records)} game{'s' if len(records) != 1 else ''}"
        raise NotationError(f"{path} has {games}: there is no game {number} (games count from 1)")
    return records[number - 1]


def new_game_id() -> str:
    """An id for a game played away from the server, drawn as the server draws its own."""
    return secrets.token_urlsafe(6)


def utc_date(seconds: float) -> str:
    """A time (seconds since the epoch) as a record's date: ISO 8601 UTC to the second."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
