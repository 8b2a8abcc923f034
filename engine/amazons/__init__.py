"""The Game of the Amazons: notation, rules, numba kernels and regions."""

from engine.amazons.game import AMAZONS, AmazonsGame
from engine.amazons.notation import Move, Side, Square
from engine.amazons.position import SETUPS, LegalMoves, Position
from engine.amazons.regions import CanonicalRegion, Region, RegionKind, Symmetry

__all__ = [
    "AMAZONS",
    "SETUPS",
    "AmazonsGame",
    "CanonicalRegion",
    "LegalMoves",
    "Move",
    "Position",
    "Region",
    "RegionKind",
    "Side",
    "Square",
    "Symmetry",
]
