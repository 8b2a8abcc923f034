"""A ladder's definition, without a store: its name and the game, setup and time control of
every game it starts, the default ladders, and a time control as `60+1` reads. The database
keeps the definitions (`server.db.ladders`), the ladder's live state is in Redis
(`server.ladder.store`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from engine.game import game_names, get_game
from server.offers import Offered
from server.protocol import DEFAULT_GAME, ProtocolError, TimeControl
from server.protocol.limits import MAX_BASE_SECONDS, MAX_INCREMENT_SECONDS, MAX_NAME_LENGTH

__all__ = ["DEFAULT_LADDERS", "Ladder", "LadderError", "parse_time"]

_NAME = re.compile(r"[A-Za-z0-9_-]+")


class LadderError(ValueError):
    """A ladder that cannot be made or is not there; the message is one line for the user."""


@dataclass(frozen=True)
class Ladder:
    """A ladder: its `name` (kept in lower case), and the game, setup and time control of every
    game it starts."""

    name: str
    setup: str
    time: TimeControl
    game: str = DEFAULT_GAME

    def __post_init__(self) -> None:
        if len(self.name) > MAX_NAME_LENGTH or not _NAME.fullmatch(self.name):
            raise LadderError(
                f"a ladder name is 1 to {MAX_NAME_LENGTH} letters, digits, _ or -, "
                f"not {self.name!r}"
            )
        # Names compare case-insensitively: a ladder is known by its name in lower case.
        object.__setattr__(self, "name", self.name.lower())

    @property
    def terms(self) -> str:
        """`amazons 10x10 60+1`: what its games are."""
        return f"{self.game} {self.setup} {self.time.base}+{self.time.increment}"

    @classmethod
    def from_json(cls, name: str, text: str | bytes) -> Ladder:
        """A definition as servers before the database kept it in Redis (an older data
        folder's, `server.db.moved_ladders`)."""
        fields = json.loads(text)
        return cls(
            name,
            fields["setup"],
            TimeControl(fields["base"], fields["increment"]),
            fields.get("game", DEFAULT_GAME),
        )

    @classmethod
    def new(
        cls, name: str, time: TimeControl, game: str = DEFAULT_GAME, setup: str | None = None
    ) -> Ladder:
        """A ladder of the game registered as `game`, on its `setup` (the game's standard one
        when None); a LadderError names a game not registered here or a setup the game does not
        have. (Whether a server offers them is `refusal`'s question.)"""
        if game not in game_names():
            raise LadderError(
                f"unknown game {game!r}: registered games are {', '.join(game_names())}"
            )
        info = get_game(game).info
        if setup is None:
            setup = info.default_setup
        elif setup not in info.setups:
            raise LadderError(
                f"{game} has no setup {setup!r}: its setups are {', '.join(info.setups)}"
            )
        return cls(name, setup, time, game)

    def refusal(self, offered: Offered) -> str | None:
        """Why a server offering `offered` cannot play this ladder's games, or None."""
        try:
            offered.terms(self.game).check(self.setup, self.time)
        except ProtocolError as error:
            return f"ladder {self.name}: {error}"
        return None


def parse_time(text: str) -> TimeControl:
    """`60+1` as a time control: whole seconds of base and increment."""
    base, plus, increment = text.strip().partition("+")
    try:
        control = TimeControl(int(base), int(increment))
    except ValueError:
        control = None
    if not plus or control is None:
        raise LadderError(
            f"time control {text.strip()!r} is not BASE+INCREMENT in whole seconds (as in 60+1)"
        )
    if not (1 <= control.base <= MAX_BASE_SECONDS and control.increment <= MAX_INCREMENT_SECONDS):
        raise LadderError(
            f"time control {text.strip()!r}: a base of 1 to {MAX_BASE_SECONDS} s and an "
            f"increment of 0 to {MAX_INCREMENT_SECONDS} s"
        )
    return control


# `fast` is 10 s + 0.1 s in spirit; the protocol's clocks count whole seconds, so its
# increment is 0 (a bot still gets its flat allowance on every move, docs/protocol.md). `bao`
# has the same clock: bot games of Bao last some 40 to 80 plies, so 10 s a side ends a game in
# about a minute, and a house bot's share of it (a twentieth of its clock a move) is what its
# anchor rating was measured at.
DEFAULT_LADDERS = (
    Ladder("main", "10x10", TimeControl(60, 1)),
    Ladder("fast", "6x6", TimeControl(10, 0)),
    Ladder("bao", "zanzibar", TimeControl(10, 0), "bao"),
)
