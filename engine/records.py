"""Game records: one finished game as a JSON object (a line of a JSON Lines file), readable by
review and the server archive: start, moves in move text, seconds per move, result."""

from __future__ import annotations

import gzip
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.errors import NotationError
from engine.game import GameState, get_game

__all__ = ["GameRecord", "read_records"]


@dataclass(slots=True)
class GameRecord:
    game: str
    start: str  # position text of the start
    white: str  # player names or bot specs
    black: str
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

    def replay(self) -> GameState[object]:
        """The final state, every move checked by the rules."""
        state = get_game(self.game).parse_state(self.start)
        for ply, text in enumerate(self.moves, 1):
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
