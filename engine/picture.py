"""A position of any registered game drawn as a standalone SVG picture, with the move that led
to it marked: each game draws its own board (engine.amazons.picture, engine.bao.picture); this
module picks the drawing by the kind of position and replays a game to the ply asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.amazons.notation import Move
from engine.amazons.picture import amazons_svg
from engine.amazons.position import Position
from engine.bao.notation import Move as BaoMove
from engine.bao.picture import bao_svg
from engine.bao.position import BaoPosition
from engine.game import GameState, get_game

__all__ = ["NoPictureError", "game_caption", "game_svg", "position_svg"]


class NoPictureError(ValueError):
    """A position of a game that has no drawing here."""


def position_svg(
    state: GameState[Any],
    move: object = None,
    before: GameState[Any] | None = None,
    caption: str = "",
) -> str:
    """The picture of `state`; with `move` and `before` (the move that led to it and the state
    it was made in) the move marked."""
    if isinstance(state, Position):
        return amazons_svg(state, move if isinstance(move, Move) else None, caption)
    if isinstance(state, BaoPosition):
        sown = move if isinstance(move, BaoMove) else None
        return bao_svg(state, sown, before if isinstance(before, BaoPosition) else None, caption)
    raise NoPictureError(f"there is no picture of a {type(state).__name__}")


def game_svg(game: str, start: str, moves: Sequence[str], ply: int, caption: str = "") -> str:
    """The picture of a game of `game` from position text `start` after its first `ply`
    moves (0 for the start), its last move marked."""
    if not 0 <= ply <= len(moves):
        raise ValueError(f"there is no ply {ply}: the game has plies 0 to {len(moves)}")
    state: GameState[Any] = get_game(game).parse_state(start)
    before: GameState[Any] | None = None
    move: object = None
    for number, text in enumerate(moves[:ply], 1):
        if number == ply:
            before = state.clone()
        move = state.parse_move(text)
        state.apply(move)
    try:
        return position_svg(state, move, before, caption)
    except NoPictureError:
        raise NoPictureError(f"there is no picture of a {game} board") from None


def game_caption(white: str, black: str, moves: Sequence[str], ply: int) -> str:
    """`alice (White) vs bob (Black) · ply 12: d1-d7/g7` over a game's picture: nothing in it
    changes as the game goes on, so neither does the picture of a ply once it is played."""
    players = f"{white} (White) vs {black} (Black)"
    if ply == 0:
        return f"{players} · the start"
    return f"{players} · ply {ply}: {moves[ply - 1]}"
