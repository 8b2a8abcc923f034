"""How the terminal client writes the protocol's values for people, and reads a time control
typed as `minutes+seconds`."""

from __future__ import annotations

from server.protocol import GameOffers, HouseBots, Player, TimeControl

__all__ = [
    "TimeControlError",
    "in_ascii",
    "parse_time",
    "player_text",
    "readiness_text",
    "time_text",
]

# The marks of the client's words that are not ASCII (the sides' marks beside their players,
# as in the analysis, and an ellipsis), as `--ascii` writes them: the sides as its boards do.
_ASCII = str.maketrans({"○": "W", "●": "B", "…": "..."})


def in_ascii(text: str) -> str:
    """`text` with the client's marks in ASCII (`○ ann` becomes `W ann`)."""
    return text.translate(_ASCII)


class TimeControlError(ValueError):
    """A time control that cannot be read, or one the server does not offer."""


def time_text(time: TimeControl) -> str:
    """`5+3`: the base in minutes (`0:15` for 15 s) and the increment in seconds."""
    minutes, seconds = divmod(time.base, 60)
    base = f"{minutes}" if seconds == 0 else f"{minutes}:{seconds:02d}"
    return f"{base}+{time.increment}"


def player_text(player: Player) -> str:
    """`ann (1712)`, or the name alone when the player has no rating."""
    return player.name if player.rating is None else f"{player.name} ({player.rating})"


def readiness_text(news: HouseBots) -> str:
    """`house bots 2 of 8 ready, preparing greedy, mcts`, and first `the rules compiling; `
    while the server is still compiling its games' rules."""
    total = len(news.ready) + len(news.preparing)
    if total == 0:
        bots = "no house-bot worker is ready yet"
    else:
        bots = f"house bots {len(news.ready)} of {total} ready"
        if news.preparing:
            bots += f", preparing {', '.join(news.preparing)}"
    return bots if news.rules_ready else f"the rules compiling; {bots}"


def parse_time(text: str, offers: GameOffers) -> TimeControl:
    """The time control `text` names (`5+3`: 5 minutes and 3 s a move; `0:30+0`: 30 s), if the
    game's offers include it."""
    base_text, plus, increment_text = text.strip().partition("+")
    try:
        minutes, colon, seconds = base_text.strip().partition(":")
        base = int(minutes) * 60 + (int(seconds) if colon else 0)
        increment = int(increment_text) if plus else 0
    except ValueError:
        raise TimeControlError(
            f"{text!r} is not a time control: write minutes+seconds, such as 5+3 or 0:30+0"
        ) from None
    time = TimeControl(base, increment)
    if offers.time_controls:
        if time not in offers.time_controls:
            listed = ", ".join(time_text(t) for t in offers.time_controls)
            raise TimeControlError(f"{time_text(time)} is not offered; the server offers {listed}")
    elif not (offers.min_base <= base <= offers.max_base and increment <= offers.max_increment):
        low = time_text(TimeControl(offers.min_base, 0)).removesuffix("+0")
        high = time_text(TimeControl(offers.max_base, 0)).removesuffix("+0")
        raise TimeControlError(
            f"{time_text(time)} is not offered: a base of {low} to {high} minutes and an "
            f"increment of at most {offers.max_increment} s"
        )
    return time
