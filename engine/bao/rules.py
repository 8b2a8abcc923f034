"""The rule options of Bao la Kiswahili where the sources disagree (docs/bao.md, the rules
note's section 12), as one frozen set of flags: the defaults are the recommended ruleset."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

__all__ = ["KUJIFUNZA", "RECOMMENDED", "BaoRules", "MtajiHouse", "NamuaTakasaStart"]


class NamuaTakasaStart(Enum):
    """Which front pits may start a namua takasa when the house is not functional (A4)."""

    # Pits of 2 or more first, singletons only when there are none; an owned house under the
    # functional count is an ordinary pit (Mancala World, the BGA rules pdf).
    PREFER_TWO = "prefer-two"
    # Any occupied pit while the house is owned, else as PREFER_TWO (BGA code, NKK engine).
    ANY_WHILE_OWNED = "any-while-owned"
    # Other pits of 2 or more, then other singletons, the house last (AbstractPlay).
    HOUSE_LAST = "house-last"


class MtajiHouse(Enum):
    """What an owned house does in the mtaji stage (A3)."""

    # An ordinary pit, except that a functional house cannot be takasia'd (de Voogt 2001,
    # Polovynka, the BGA pdf, AbstractPlay).
    ORDINARY = "ordinary"
    # Kept until its owner's first mtaji capture (Donkers, KIBA), read as the rules note's
    # model reads it: while functional it stops its owner's takasa laps, and it starts a
    # takasa only when no other front pit can.
    KEPT_UNTIL_FIRST_CAPTURE = "kept-until-first-capture"


@dataclass(frozen=True, slots=True)
class BaoRules:
    """The options of the rules note's section 12, named after what they decide."""

    # A1: an owned house is functional from this many seeds on.
    functional_house_seeds: int = 6
    # A3: the house in the mtaji stage.
    mtaji_house: MtajiHouse = MtajiHouse.ORDINARY
    # A4: the start pits of a namua takasa without a functional house.
    namua_takasa_start: NamuaTakasaStart = NamuaTakasaStart.PREFER_TWO
    # A5: tax only a functional house (False: tax any owned house that is the lone front pit).
    tax_needs_functional_house: bool = True
    # A6: a move that would empty the mover's own front row is illegal (False: it is legal
    # and the mover loses at once).
    own_front_row_emptying_illegal: bool = True
    # Section 7: takasia is played at all.
    takasia: bool = True
    # A7: the blocker's next move, if it can capture the blocked pit, must take it with its
    # first capture (the BGA pdf, Polovynka); the mark itself lasts one move either way.
    takasia_binds_blocker: bool = False
    # A8: a pit holding one seed can be takasia'd.
    takasia_of_singletons: bool = False
    # A10: takasia only when the blocked side has no capture.
    takasia_needs_no_capture: bool = True
    # A15: Bao la Kujifunza, the learners' game: 2 seeds in every pit, nothing in store (so
    # no namua), no houses and no takasia.
    kujifunza: bool = False
    # Section 8 has no draw rule: a game still going after this many plies is adjudicated a
    # draw (not a rule of Bao; every game must end somewhere).
    ply_cap: int = 600

    def __post_init__(self) -> None:
        if not 1 <= self.functional_house_seeds <= 64:
            raise ValueError(
                f"functional_house_seeds {self.functional_house_seeds}: a house holds 1 to 64"
            )
        if self.ply_cap < 1:
            raise ValueError(f"ply_cap {self.ply_cap}: a game lasts at least one ply")


RECOMMENDED: Final = BaoRules()
KUJIFUNZA: Final = BaoRules(kujifunza=True)
