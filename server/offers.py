"""What a server offers, game by game: the game's setups (from engine.game's registry), its house
bots (those of the server's that play it), and time controls, from a setting that is either a
range (`10-10800+180`: a base from 10 s to 3 h, an increment up to 180 s) or a list
(`60+0,180+2,600+5`). A base of 0 is never offered: the first move off the clock would leave
White's clock empty at its second move."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from engine.game import game_names, get_game
from engine.search.registry import bots_for
from server.clock import BOT_ALLOWANCE_MS, FIRST_MOVE_MS, FREE_PLIES
from server.protocol import (
    DEFAULT_GAME,
    ErrorCode,
    GameOffers,
    Offers,
    ProtocolError,
    TimeControl,
)
from server.protocol.limits import MAX_BASE_SECONDS, MAX_INCREMENT_SECONDS

__all__ = ["DEFAULT_TIME_CONTROLS", "GameTerms", "Offered", "TimeControls"]

DEFAULT_TIME_CONTROLS = "10-10800+180"  # 10 s: the base of the `fast` bot ladder


@dataclass(frozen=True)
class TimeControls:
    """Offered time controls: the listed ones, or when none are listed, the range."""

    min_base: int
    max_base: int
    max_increment: int
    listed: tuple[TimeControl, ...] = ()

    @classmethod
    def parse(cls, text: str) -> TimeControls:
        """Read a range or a list; a ValueError names what is wrong."""
        text = text.strip()
        if "-" in text:
            bases, _, increment = text.partition("+")
            low, _, high = bases.partition("-")
            controls = cls(
                _seconds(low, "base"), _seconds(high, "base"), _seconds(increment, "increment")
            )
            if controls.min_base > controls.max_base:
                raise ValueError(f"time control range {text!r}: {low} s is above {high} s")
        else:
            listed = tuple(_control(item) for item in text.split(","))
            controls = cls(
                min(c.base for c in listed),
                max(c.base for c in listed),
                max(c.increment for c in listed),
                listed,
            )
        if controls.min_base == 0:
            raise ValueError(
                f"time controls {text!r}: a base of 0 s loses on time at once; the least is 1 s"
            )
        if controls.max_base > MAX_BASE_SECONDS or controls.max_increment > MAX_INCREMENT_SECONDS:
            raise ValueError(
                f"time controls {text!r}: at most {MAX_BASE_SECONDS} s base and "
                f"{MAX_INCREMENT_SECONDS} s increment"
            )
        return controls

    def refusal(self, time: TimeControl) -> str | None:
        """Why `time` is not offered, or None when it is."""
        shown = f"{time.base}+{time.increment}"
        if self.listed:
            if time in self.listed:
                return None
            offered = ", ".join(f"{c.base}+{c.increment}" for c in self.listed)
            return f"time control {shown} is not offered; offered: {offered}"
        if not self.min_base <= time.base <= self.max_base:
            return (
                f"time control {shown} is not offered: the base must be "
                f"{self.min_base} to {self.max_base} s"
            )
        if time.increment > self.max_increment:
            return (
                f"time control {shown} is not offered: the increment must be at most "
                f"{self.max_increment} s"
            )
        return None

    def refuse(self, time: TimeControl) -> None:
        """Raise `bad_field` on `time` unless it is offered."""
        refusal = self.refusal(time)
        if refusal is not None:
            raise ProtocolError(ErrorCode.BAD_FIELD, refusal, field="time")


@dataclass(frozen=True)
class GameTerms:
    """What the server offers for one game: its setups (`default_setup` when a request names
    none), time controls and house bots."""

    game: str
    setups: tuple[str, ...]
    default_setup: str
    time_controls: TimeControls
    house_bots: tuple[str, ...]

    @classmethod
    def of(
        cls,
        game: str,
        time_controls: TimeControls,
        house_bots: Iterable[str],
        setups: Iterable[str] | None = None,
    ) -> GameTerms:
        """The terms of the registered game `game`: `setups` (by default all the game's), and
        those of the server's `house_bots` that play it. A ValueError names an unknown game or
        setup."""
        info = get_game(game).info
        offered = tuple(info.setups if setups is None else setups)
        for name in offered:
            if name not in info.setups:
                raise ValueError(
                    f"unknown {game} setup {name!r}: its setups are {', '.join(info.setups)}"
                )
        if not offered:
            raise ValueError(f"{game} needs at least one setup offered")
        default = info.default_setup if info.default_setup in offered else offered[0]
        playing = bots_for(game)
        bots = tuple(bot for bot in house_bots if bot in playing)
        return cls(game, offered, default, time_controls, bots)

    def check(self, name: str | None, time: TimeControl) -> str:
        """The setup to play for a request naming setup `name` (the default one when None) and
        `time`; `bad_field` on the time control or setup if either is not offered."""
        self.time_controls.refuse(time)
        if name is None:
            return self.default_setup
        if name not in self.setups:
            raise ProtocolError(
                ErrorCode.BAD_FIELD,
                f"setup {name!r} is not offered for {self.game}; offered: "
                + ", ".join(self.setups),
                field="setup",
            )
        return name

    def check_house_bot(self, bot: str) -> None:
        """`bad_field` on `opponent` unless the house bot `bot` plays this game."""
        if bot not in self.house_bots:
            bots = ", ".join(self.house_bots)
            raise ProtocolError(
                ErrorCode.BAD_FIELD,
                f"house bot {bot} does not play {self.game}; "
                + (f"its house bots: {bots}" if bots else f"{self.game} has no house bots"),
                field="opponent",
            )

    def offers(self) -> GameOffers:
        controls = self.time_controls
        return GameOffers(
            self.game,
            self.setups,
            self.default_setup,
            controls.min_base,
            controls.max_base,
            controls.max_increment,
            controls.listed,
            self.house_bots,
        )


@dataclass(frozen=True)
class Offered:
    """The games a server offers, each with its terms; the first is the one `welcome` shows
    (Amazons, the default game, when offered)."""

    games: tuple[GameTerms, ...]

    def __post_init__(self) -> None:
        if not self.games:
            raise ValueError("a server offers at least one game")

    @classmethod
    def every_game(
        cls,
        time_controls: TimeControls,
        house_bots: Iterable[str],
        per_game: Mapping[str, TimeControls] | None = None,
    ) -> Offered:
        """Every registered game with all its setups, the time controls of `per_game` or else
        `time_controls`, and the `house_bots` that play it; the default game first."""
        per_game = per_game or {}
        unknown = sorted(set(per_game) - set(game_names()))
        if unknown:
            raise ValueError(
                f"time controls for unknown game {unknown[0]!r}: registered games are "
                + ", ".join(game_names())
            )
        bots = tuple(house_bots)
        names = sorted(game_names(), key=lambda name: name != DEFAULT_GAME)
        return cls(
            tuple(GameTerms.of(name, per_game.get(name, time_controls), bots) for name in names)
        )

    def terms(self, game: str) -> GameTerms:
        """The terms of `game`; `bad_field` on `game` when it is not offered."""
        for terms in self.games:
            if terms.game == game:
                return terms
        if game not in game_names():
            message = f"unknown game {game!r}: registered games are {', '.join(game_names())}"
        else:
            offered = ", ".join(terms.game for terms in self.games)
            message = f"game {game!r} is not offered; offered: {offered}"
        raise ProtocolError(ErrorCode.BAD_FIELD, message, field="game")

    def offers(self) -> Offers:
        """What `welcome` shows: the first game's terms and the clock rules of bots."""
        first = self.games[0].offers()
        return Offers(
            first.setups,
            first.min_base,
            first.max_base,
            first.max_increment,
            first.time_controls,
            first.house_bots,
            bot_allowance_ms=BOT_ALLOWANCE_MS,
            first_move_ms=FIRST_MOVE_MS,
            free_plies=FREE_PLIES,
        )

    def every_game_offers(self, shown: Offers) -> Offers:
        """`shown` (what `welcome` shows) with the terms of every game, for `offer_list`."""
        return replace(shown, games=tuple(terms.offers() for terms in self.games))


def _seconds(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{what} {text.strip()!r} is not a whole number of seconds") from None
    if value < 0:
        raise ValueError(f"{what} {value} is negative")
    return value


def _control(text: str) -> TimeControl:
    base, plus, increment = text.strip().partition("+")
    if not plus:
        raise ValueError(f"time control {text.strip()!r} is not BASE+INCREMENT (as in 180+2)")
    return TimeControl(_seconds(base, "base"), _seconds(increment, "increment"))
