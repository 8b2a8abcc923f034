"""Each player's rating history: one bounded list per player and rating pool of the points its
rating went through, a point (when, which game, its setup, the rating and deviation after it)
appended in the transaction that settles that game's rating, so the history and the rating never
disagree. A game's pool is kept by the ratings hash it moves (`identity.rating_key`: an account,
or a house bot at one strength); a ladder's under the ladder's own keys (`ladder.store`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from server.identity import rating_key

__all__ = ["HISTORY_POINTS", "RatingPoint", "append_point", "game_history_key", "read_history"]

# Points kept per player and pool, the oldest dropped first: a chart of the last 200 games says
# where a rating went, and the list stays a few kilobytes.
HISTORY_POINTS = 200


@dataclass(frozen=True)
class RatingPoint:
    """A player's rating and deviation right after the rated game `game_id` (of `setup`, when it
    had a named one) ended at `at` (ms since the Unix epoch)."""

    at: int
    game_id: str
    rating: float
    deviation: float
    setup: str | None = None

    def to_json(self) -> str:
        return json.dumps(
            {
                "at": self.at,
                "game_id": self.game_id,
                "rating": self.rating,
                "deviation": self.deviation,
                "setup": self.setup,
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> RatingPoint:
        fields = json.loads(text)
        return cls(
            int(fields["at"]),
            str(fields["game_id"]),
            float(fields["rating"]),
            float(fields["deviation"]),
            fields.get("setup"),
        )


def game_history_key(name: str, game: str, house: str | None = None) -> str:
    """List: the rating history in `game` of the account `name`, or of the house bot whose spec
    is `house` when given (names have no ':', so this never meets another account's key)."""
    return f"{rating_key(name, house)}:history:{game}"


def append_point(pipe: Pipeline, key: str, point: RatingPoint) -> None:
    """Queue `point` on the history at `key` in `pipe`, keeping the last HISTORY_POINTS."""
    pipe.rpush(key, point.to_json())
    pipe.ltrim(key, -HISTORY_POINTS, -1)


async def read_history(redis: aioredis.Redis, key: str) -> list[RatingPoint]:
    """The points of the history at `key`, oldest first."""
    return [RatingPoint.from_json(text) for text in await redis.lrange(key, 0, -1)]
