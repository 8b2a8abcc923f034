"""The time controls a server offers, from a setting that is either a range (`15-10800+180`: a base
from 15 s to 3 h, an increment up to 180 s) or a list (`60+0,180+2,600+5`). A base of 0 is never
offered: the first move off the clock would leave White's clock empty at its second move."""

from __future__ import annotations

from dataclasses import dataclass

from server.clock import BOT_ALLOWANCE_MS, FIRST_MOVE_MS, FREE_PLIES
from server.protocol import Offers, TimeControl
from server.protocol.limits import MAX_BASE_SECONDS, MAX_INCREMENT_SECONDS

__all__ = ["DEFAULT_TIME_CONTROLS", "TimeControls"]

DEFAULT_TIME_CONTROLS = "15-10800+180"


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

    def offers(self, setups: tuple[str, ...], house_bots: tuple[str, ...]) -> Offers:
        return Offers(
            setups,
            self.min_base,
            self.max_base,
            self.max_increment,
            self.listed,
            house_bots,
            bot_allowance_ms=BOT_ALLOWANCE_MS,
            first_move_ms=FIRST_MOVE_MS,
            free_plies=FREE_PLIES,
        )


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
