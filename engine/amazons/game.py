"""Amazons as a registered game of the generic interface."""

from __future__ import annotations

from typing import Final

from engine.amazons.notation import Move
from engine.amazons.position import SETUPS, Position
from engine.game import GameInfo

__all__ = ["AMAZONS", "AmazonsGame"]


class AmazonsGame:
    """The Game of the Amazons on any board from 1x1 to 26x26."""

    info: Final = GameInfo(
        name="amazons",
        players=2,
        zero_sum=True,
        min_utility=-1.0,
        max_utility=1.0,
        setups=tuple(SETUPS),
        default_setup="10x10",
    )

    def new_state(self, setup: str | None = None) -> Position:
        return Position.setup(setup or self.info.default_setup)

    def parse_state(self, text: str) -> Position:
        return Position.parse(text)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)


AMAZONS: Final = AmazonsGame()
