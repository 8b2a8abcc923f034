"""What a bot offers on its own, besides answering challenges: an `Offer` is a seek, a place in
quick pairing, or a challenge to one opponent (a person, another bot or a house bot), each with
its terms, as `arena bot --seek`, `--quick-pair` and `--challenge` give them. The bot runner
(`clients.bot`) keeps each one open while it has room for another game."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from clients.challenges import setups_of
from server.protocol import (
    Challenge,
    ChallengeInfo,
    QuickPair,
    Seek,
    SeekInfo,
    TimeControl,
)

__all__ = ["Offer", "OfferKind"]

# SETUP:BASE+INCREMENT, then `:rated` for a rated game; a challenge starts with NAME:.
_TERMS = re.compile(r"(?P<setup>[^:]+):(?P<base>\d+)\+(?P<increment>\d+)(?P<rated>:rated)?")


class OfferKind(StrEnum):
    SEEK = "seek"
    QUICK_PAIR = "quick pairing"
    CHALLENGE = "challenge"


@dataclass(frozen=True)
class Offer:
    """One thing the bot keeps offering: a seek, quick pairing, or a challenge to `opponent`,
    for a game of `game` on `setup` at `time`, rated or not."""

    kind: OfferKind
    game: str
    setup: str
    time: TimeControl
    rated: bool = False
    opponent: str | None = None

    @classmethod
    def parse(cls, kind: OfferKind, text: str, games: Iterable[str]) -> Offer:
        """The offer that `text` writes (`6x6:60+1`, `6x6:60+1:rated`, and for a challenge
        `NAME:6x6:60+1`), of the one of `games` whose setup it names; a ValueError saying
        what is wrong otherwise."""
        opponent = None
        terms = text
        if kind is OfferKind.CHALLENGE:
            opponent, _, terms = text.partition(":")
            if not opponent or not terms:
                raise ValueError(f"{text!r}: write NAME:SETUP:BASE+INCREMENT, e.g. ann:6x6:60+1")
        found = _TERMS.fullmatch(terms)
        if found is None:
            raise ValueError(
                f"{text!r}: write SETUP:BASE+INCREMENT in whole seconds, with :rated for a "
                "rated game, e.g. 6x6:60+1 or 10x10:300+5:rated"
            )
        setup = found["setup"]
        played = sorted(games)
        game = next((game for game in played if setup in setups_of(game)), None)
        if game is None:
            known = sorted(set().union(*(setups_of(game) for game in played)))
            raise ValueError(f"{text!r}: no game played has setup {setup}: {', '.join(known)}")
        time = TimeControl(int(found["base"]), int(found["increment"]))
        return cls(kind, game, setup, time, found["rated"] is not None, opponent)

    def __str__(self) -> str:
        terms = f"{self.setup} {self.time.base}+{self.time.increment}"
        terms += " rated" if self.rated else " casual"
        if self.opponent is not None:
            return f"challenge to {self.opponent}, {terms}"
        return f"{self.kind}, {terms}"

    def request(self) -> Seek | QuickPair | Challenge:
        """The request that makes the offer."""
        if self.kind is OfferKind.SEEK:
            return Seek(self.time, self.setup, self.rated, game=self.game)
        if self.kind is OfferKind.QUICK_PAIR:
            return QuickPair(self.time, self.setup, self.rated, game=self.game)
        assert self.opponent is not None
        return Challenge(self.opponent, self.time, self.setup, self.rated, game=self.game)

    def made(self, open_offer: SeekInfo | ChallengeInfo) -> bool:
        """Whether `open_offer`, a seek or a challenge of the bot's, is this offer open."""
        terms = (open_offer.game, open_offer.setup, open_offer.time, open_offer.rated)
        if terms != (self.game, self.setup, self.time, self.rated):
            return False
        if isinstance(open_offer, SeekInfo):
            return self.kind is OfferKind.SEEK
        return (
            self.kind is OfferKind.CHALLENGE
            and self.opponent is not None
            and open_offer.opponent.name.lower() == self.opponent.lower()
        )
