"""Combinatorial game theory: short partizan games in canonical form (Left = Black,
Right = White), with sums, comparison, stops, thermographs, cooling and heating, and CGSuite's
notation. `Form` is the value type; engine.cgt.forms is the same library on raw int ids, for
hot loops that build many games.
"""

from engine.cgt.census import born_by
from engine.cgt.form import DOWN, ONE, STAR, UP, ZERO, Form, Outcome
from engine.cgt.thermography import Thermograph, Trajectory

__all__ = [
    "DOWN",
    "ONE",
    "STAR",
    "UP",
    "ZERO",
    "Form",
    "Outcome",
    "Thermograph",
    "Trajectory",
    "born_by",
]
