"""Amazons as a registered game of the generic interface."""

from __future__ import annotations

from typing import Final

from engine.amazons.notation import MAX_SIZE, Move
from engine.amazons.position import SETUPS, Position
from engine.game import GameInfo

__all__ = ["AMAZONS", "AmazonsGame"]

# Every move burns a square, so no game outlasts the squares of the largest board.
MAX_PLIES: Final = MAX_SIZE * MAX_SIZE
# `z26-z26/z26`.
MAX_MOVE_TEXT: Final = len("z26-z26/z26")
# A full 26x26 board of single letters: its rows, the `/` between them, and ` w`.
MAX_POSITION_TEXT: Final = MAX_SIZE * MAX_SIZE + (MAX_SIZE - 1) + 2


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
        player_names=("white", "black"),
        max_plies=MAX_PLIES,
        max_move_text=MAX_MOVE_TEXT,
        max_position_text=MAX_POSITION_TEXT,
    )

    def new_state(self, setup: str | None = None) -> Position:
        return Position.setup(setup or self.info.default_setup)

    def parse_state(self, text: str) -> Position:
        return Position.parse(text)

    def state_from_bytes(self, data: bytes) -> Position:
        return Position.from_bytes(data)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)


AMAZONS: Final = AmazonsGame()
