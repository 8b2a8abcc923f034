"""Pure game logic: the generic game interface, Amazons, and (later) search and CGT.

Nothing here touches asyncio, sockets or Redis; hot loops are numba kernels.
"""

from engine.errors import GameOverError, IllegalMoveError, NotationError
from engine.game import GameInfo, GameRules, GameState, MoveList, game_names, get_game, register

__all__ = [
    "GameInfo",
    "GameOverError",
    "GameRules",
    "GameState",
    "IllegalMoveError",
    "MoveList",
    "NotationError",
    "game_names",
    "get_game",
    "register",
]
