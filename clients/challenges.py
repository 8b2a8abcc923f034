"""Which challenges a bot accepts: `ChallengePolicy`, judged on the challenge alone and the
number of games the bot is playing, so the bot runner (`clients.bot`) only asks it."""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import NotationError
from engine.game import get_game
from server.protocol import DEFAULT_GAME, ChallengeInfo

__all__ = ["DEFAULT_GAMES", "ESTIMATED_MOVES", "ChallengePolicy", "setups_of"]

# Moves expected in a game when judging a time control by base + this many increments (the
# estimate lichess uses to sort time controls).
ESTIMATED_MOVES = 40
DEFAULT_GAMES = 4  # games a bot plays at once unless told otherwise (`arena bot --games`)


def setups_of(game: str) -> frozenset[str]:
    """The named setups of `game` as registered here; none for a game not registered here."""
    try:
        return frozenset(get_game(game).info.setups)
    except NotationError:
        return frozenset()


@dataclass(frozen=True)
class ChallengePolicy:
    """Which incoming challenges the bot accepts; it declines the others at once.

    A challenge is accepted when its game is one of `games` (the games the engine plays) and
    its setup one of `setups` (by default every named setup of its game), its time control
    gives at least `min_game_seconds` for a game of about 40 moves (`base + 40 * increment`, so
    0+0 is never accepted: the network alone would lose on time) and at most
    `max_game_seconds`, it is casual or `rated` is set, and the bot plays fewer than
    `max_games` games at the moment. Subclass and override `refusal` for more.
    """

    games: frozenset[str] = frozenset({DEFAULT_GAME})
    setups: frozenset[str] | None = None
    min_game_seconds: int = 10
    max_game_seconds: int | None = None
    rated: bool = True
    max_games: int = DEFAULT_GAMES

    def refusal(self, challenge: ChallengeInfo, playing: int) -> str | None:
        """Why the bot declines `challenge` while it plays `playing` games; None to accept."""
        why = self.board_refusal(challenge.game, challenge.setup)
        if why is not None:
            return why
        seconds = challenge.time.base + ESTIMATED_MOVES * challenge.time.increment
        if seconds < self.min_game_seconds:
            return f"time control too fast: a game needs {self.min_game_seconds} s or more"
        if self.max_game_seconds is not None and seconds > self.max_game_seconds:
            return f"time control too slow: a game must take {self.max_game_seconds} s or less"
        if challenge.rated and not self.rated:
            return "rated games are not played"
        if playing >= self.max_games:
            return f"already playing {playing} game{'' if playing == 1 else 's'}"
        return None

    def board_refusal(self, game: str, setup: str) -> str | None:
        """Why the bot does not play `game` on `setup` at all (a challenge's or a ladder's);
        None when it does."""
        if game not in self.games:
            return f"game {game} is not played"
        if setup not in setups_of(game) or (self.setups is not None and setup not in self.setups):
            return f"setup {setup} is not played"
        return None
