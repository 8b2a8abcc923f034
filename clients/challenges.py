"""Which challenges a bot accepts: `ChallengePolicy`, judged on the challenge alone and the
number of games the bot is playing, so the bot runner (`clients.bot`) only asks it."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.game import get_game
from server.protocol import ChallengeInfo

__all__ = ["ESTIMATED_MOVES", "GAME", "ChallengePolicy", "game_setups"]

# The game of every challenge and game on the wire today: messages do not name one yet.
GAME = "amazons"
# Moves expected in a game when judging a time control by base + this many increments (the
# estimate lichess uses to sort time controls).
ESTIMATED_MOVES = 40


def game_setups() -> frozenset[str]:
    """The named setups of the game the bot plays."""
    return frozenset(get_game(GAME).info.setups)


@dataclass(frozen=True)
class ChallengePolicy:
    """Which incoming challenges the bot accepts; it declines the others at once.

    A challenge is accepted when its setup is one of `setups` (by default every named setup the
    engine plays), its time control gives at least `min_game_seconds` for a game of about 40
    moves (`base + 40 * increment`, so 0+0 is never accepted: the network alone would lose on
    time) and at most `max_game_seconds`, it is casual or `rated` is set, and the bot plays
    fewer than `max_games` games at the moment. Subclass and override `refusal` for more.
    """

    setups: frozenset[str] = field(default_factory=game_setups)
    min_game_seconds: int = 10
    max_game_seconds: int | None = None
    rated: bool = True
    max_games: int = 4

    def refusal(self, challenge: ChallengeInfo, playing: int) -> str | None:
        """Why the bot declines `challenge` while it plays `playing` games; None to accept."""
        if challenge.setup not in self.setups or challenge.setup not in game_setups():
            return f"setup {challenge.setup} is not played"
        seconds = challenge.time.base + ESTIMATED_MOVES * challenge.time.increment
        if seconds < self.min_game_seconds:
            return f"time control too fast: a game needs {self.min_game_seconds} s or more"
        if self.max_game_seconds is not None and seconds > self.max_game_seconds:
            return f"time control too slow: a game must take {self.max_game_seconds} s or less"
        if challenge.rated and not self.rated:
            return "rated games are not played"
        if playing >= self.max_games:
            return f"already playing {playing} games"
        return None
