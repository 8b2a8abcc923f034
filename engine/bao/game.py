"""Bao la Kiswahili as a game of the generic interface (engine.game), registered there as
`bao`: the Zanzibar rules with the recommended options (docs/bao.md); other readings are
`BaoGame(BaoRules(...))`. The server offers it, and both clients draw its board
(`clients/tui/bao_board.py`, `server/web/static/bao_board.js`).
"""

from __future__ import annotations

from typing import Final

from engine.bao.notation import Move
from engine.bao.position import BaoPosition
from engine.bao.rules import RECOMMENDED, BaoRules
from engine.errors import NotationError
from engine.game import GameInfo

__all__ = ["BAO", "BaoGame"]

SETUPS: Final = ("zanzibar",)
# `B8<+`: a pit, an arrow, the safari mark.
MAX_MOVE_TEXT: Final = len("B8<+")
# 32 pits of up to 2 digits, 28 commas, 3 slashes; then `64-64 SN xA8 n namua ` and the ply.
_FIXED_TEXT: Final = 32 * 2 + 28 + 3 + len(" 64-64 SN xA8 n namua ")


class BaoGame:
    """Bao la Kiswahili (Zanzibar rules) played by `rules`: South (player 0, white on the
    wire) moves first."""

    def __init__(self, rules: BaoRules = RECOMMENDED) -> None:
        self.rules = rules
        self.info: Final = GameInfo(
            name="bao",
            players=2,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
            setups=SETUPS,
            default_setup=SETUPS[0],
            # The protocol's colours: white is South, who moves first; black is North.
            player_names=("white", "black"),
            max_plies=rules.ply_cap,
            max_move_text=MAX_MOVE_TEXT,
            max_position_text=_FIXED_TEXT + len(str(rules.ply_cap)),
        )

    def new_state(self, setup: str | None = None) -> BaoPosition:
        name = setup or self.info.default_setup
        if name not in SETUPS:
            raise NotationError(f"unknown setup {name!r}: known setups are {', '.join(SETUPS)}")
        return BaoPosition(rules=self.rules)

    def parse_state(self, text: str) -> BaoPosition:
        return BaoPosition.parse(text, self.rules)

    def state_from_bytes(self, data: bytes) -> BaoPosition:
        return BaoPosition.from_bytes(data, self.rules)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)


BAO: Final = BaoGame()
