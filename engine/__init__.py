"""Pure game logic: the generic game interface, Amazons, and (later) search and CGT.

Nothing here touches asyncio, sockets or Redis; hot loops are numba kernels.
"""

from engine.errors import GameOverError, IllegalMoveError, NotationError
from engine.game import Game, GameInfo, GameState, MoveList, game_names, get_game

__all__ = [
    "Game",
    "GameInfo",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "MoveList",
    "NotationError",
    "game_names",
    "get_game",
]
