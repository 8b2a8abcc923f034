"""Hypothesis strategies for Amazons positions and moves."""

from __future__ import annotations

from hypothesis import strategies as st

from engine.amazons import Move, Position, Side, Square


@st.composite
def positions(draw: st.DrawFn, max_size: int = 7, max_arrows: float = 0.3) -> Position:
    """Random boards up to max_size on a side: any mix of amazons, arrows and empty squares."""
    width = draw(st.integers(1, max_size))
    height = draw(st.integers(1, max_size))
    cell = st.sampled_from(["", "", "", "W", "B", "x"] if max_arrows else ["", "", "", "W", "B"])
    pieces = {}
    for x in range(width):
        for y in range(height):
            letter = draw(cell)
            if letter:
                pieces[Square(x, y)] = letter
    return Position(width, height, pieces, draw(st.sampled_from(Side)))


@st.composite
def game_positions(draw: st.DrawFn) -> Position:
    """Positions reached by random play from a named setup."""
    position = Position.setup(draw(st.sampled_from(["6x6", "8x8", "10x10"])))
    seed = draw(st.integers(0, 2**32))
    for _ in range(draw(st.integers(0, 60))):
        move = position.random_move(seed + position.ply)
        if move is None:
            break
        position.apply(move)
    return position


squares = st.builds(Square, st.integers(0, 25), st.integers(0, 25))
moves = st.builds(Move, squares, squares, squares)
