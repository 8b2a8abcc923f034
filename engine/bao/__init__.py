"""Bao la Kiswahili (Zanzibar rules): the rules with their options, positions, move and
position text, and the game of the generic interface (registered as `bao`)."""

from engine.bao.board import Board
from engine.bao.game import BAO, BaoGame
from engine.bao.notation import CCW, CW, Move
from engine.bao.position import BaoPosition
from engine.bao.rules import KUJIFUNZA, RECOMMENDED, BaoRules, MtajiHouse, NamuaTakasaStart

__all__ = [
    "BAO",
    "CCW",
    "CW",
    "KUJIFUNZA",
    "RECOMMENDED",
    "BaoGame",
    "BaoPosition",
    "BaoRules",
    "Board",
    "Move",
    "MtajiHouse",
    "NamuaTakasaStart",
]
