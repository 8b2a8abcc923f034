"""`Form`: a short partizan game in canonical form, as a value with arithmetic, order and
CGSuite notation. It wraps an interned id of engine.cgt.forms, so equal games are the same id
and comparing or hashing one costs what it costs for an int. Left is Black, Right is White.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from fractions import Fraction
from typing import Final

from engine.cgt import dyadic, forms, notation, thermography
from engine.cgt.thermography import Thermograph

__all__ = ["DOWN", "ONE", "STAR", "UP", "ZERO", "Form", "Outcome"]


class Outcome(Enum):
    """Who wins a game played alone, by who moves first."""

    L = "L"  # Left (Black) wins whoever starts: G > 0
    R = "R"  # Right (White) wins whoever starts: G < 0
    N = "N"  # the first player wins: G || 0
    P = "P"  # the second player wins: G = 0

    def __str__(self) -> str:
        return self.value


class Form:
    """A canonical form. Build one with `Form.parse`, `Form.from_options`, `Form.number`,
    `Form.nimber` or `Form.nus`, or by arithmetic on others; ints and dyadic Fractions mix in
    as numbers (`Form.parse('^') + 1`)."""

    __slots__ = ("_id",)

    def __init__(self, id: int) -> None:
        """Wrap an id of engine.cgt.forms."""
        self._id = id

    @property
    def id(self) -> int:
        """The interned id: equal games have equal ids."""
        return self._id

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Form:
        """Read CGSuite notation (`{3||2|1}`, `+-1`, `^*`, `1/2`, sums like `^ + v`)."""
        return cls(notation.parse(text))

    @classmethod
    def from_options(
        cls, left: Iterable[Form | int | Fraction], right: Iterable[Form | int | Fraction]
    ) -> Form:
        """{left | right}, reduced to canonical form."""
        return cls(forms.construct([_id(x) for x in left], [_id(x) for x in right]))

    @classmethod
    def number(cls, value: int | Fraction) -> Form:
        """A dyadic rational m/2^e; ValueError for other fractions."""
        return cls(forms.number(dyadic.from_fraction(value)))

    @classmethod
    def nimber(cls, k: int) -> Form:
        """*k."""
        return cls(forms.nimber(k))

    @classmethod
    def nus(cls, number: int | Fraction = 0, ups: int = 0, nimber: int = 0) -> Form:
        """number + ups.^ + *nimber (negative ups are downs)."""
        return cls(forms.nus(dyadic.from_fraction(number), ups, nimber))

    # -- what it is ----------------------------------------------------------------------------

    @property
    def left_options(self) -> tuple[Form, ...]:
        """Canonical left options, in the order CGSuite prints them."""
        return tuple(Form(x) for x in notation.ordered(forms.left_options(self.id)))

    @property
    def right_options(self) -> tuple[Form, ...]:
        return tuple(Form(x) for x in notation.ordered(forms.right_options(self.id)))

    @property
    def is_number(self) -> bool:
        return forms.is_number(self.id)

    @property
    def is_integer(self) -> bool:
        return forms.is_integer(self.id)

    @property
    def is_nimber(self) -> bool:
        value = forms.nus_of(self.id)
        return value is not None and value[0] == 0 and value[2] == 0

    @property
    def is_nus(self) -> bool:
        """Whether this is number + n.^ + *k."""
        return forms.nus_of(self.id) is not None

    @property
    def is_infinitesimal(self) -> bool:
        """Both stops 0 (0 itself included, as CGSuite counts it)."""
        return forms.left_stop(self.id) == (0, 0) == forms.right_stop(self.id)

    @property
    def is_switch(self) -> bool:
        """G = -G with G not a nimber: written +-H."""
        return forms.nus_of(self.id) is None and forms.negate(self.id) == self.id

    @property
    def nus_parts(self) -> tuple[Fraction, int, int] | None:
        """(number, ups, nimber) when this is number + ups.^ + *nimber, else None."""
        value = forms.nus_of(self.id)
        if value is None:
            return None
        return dyadic.to_fraction(value[:2]), value[2], value[3]

    @property
    def outcome(self) -> Outcome:
        zero = forms.ZERO
        at_least = forms.leq(zero, self.id)
        at_most = forms.leq(self.id, zero)
        if at_least:
            return Outcome.P if at_most else Outcome.L
        return Outcome.R if at_most else Outcome.N

    @property
    def birthday(self) -> int:
        return forms.birthday(self.id)

    # -- temperature -----------------------------------------------------------------------------

    @property
    def left_stop(self) -> Fraction:
        return dyadic.to_fraction(forms.left_stop(self.id))

    @property
    def right_stop(self) -> Fraction:
        return dyadic.to_fraction(forms.right_stop(self.id))

    @property
    def mean(self) -> Fraction:
        return thermography.mean(self.id)

    @property
    def temperature(self) -> Fraction:
        """CGSuite's: -1/2^e for a number m/2^e, 0 for number + infinitesimal NUS values."""
        return thermography.temperature(self.id)

    @property
    def thermograph(self) -> Thermograph:
        return thermography.thermograph(self.id)

    def cool(self, t: int | Fraction) -> Form:
        """Cooled by t >= 0 (dyadic)."""
        return Form(thermography.cool(self.id, Fraction(t)))

    def heat(self, t: Form | int | Fraction) -> Form:
        """Heated by t (a number, or any game)."""
        return Form(thermography.heat(self.id, _id(t)))

    # -- arithmetic and order --------------------------------------------------------------------

    def __add__(self, other: Form | int | Fraction) -> Form:
        return Form(forms.add(self.id, _id(other)))

    __radd__ = __add__

    def __sub__(self, other: Form | int | Fraction) -> Form:
        return Form(forms.subtract(self.id, _id(other)))

    def __rsub__(self, other: Form | int | Fraction) -> Form:
        return Form(forms.subtract(_id(other), self.id))

    def __neg__(self) -> Form:
        return Form(forms.negate(self.id))

    def __pos__(self) -> Form:
        return self

    def __eq__(self, other: object) -> bool:
        # Only forms compare equal to forms, so that equal objects hash alike; compare with a
        # number through Form.number(x) or an order test (g <= 0 <= g).
        if isinstance(other, Form):
            return self.id == other.id
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.id)

    def __le__(self, other: Form | int | Fraction) -> bool:
        return forms.leq(self.id, _id(other))

    def __ge__(self, other: Form | int | Fraction) -> bool:
        return forms.leq(_id(other), self.id)

    def __lt__(self, other: Form | int | Fraction) -> bool:
        h = _id(other)
        return forms.leq(self.id, h) and not forms.leq(h, self.id)

    def __gt__(self, other: Form | int | Fraction) -> bool:
        h = _id(other)
        return forms.leq(h, self.id) and not forms.leq(self.id, h)

    def confused_with(self, other: Form | int | Fraction) -> bool:
        """G || H: neither G <= H nor H <= G (G - H is a first-player win)."""
        h = _id(other)
        return not forms.leq(self.id, h) and not forms.leq(h, self.id)

    # -- text ------------------------------------------------------------------------------------

    def __str__(self) -> str:
        return notation.text(self.id)

    def __repr__(self) -> str:
        return f"Form.parse({str(self)!r})"


def _id(x: Form | int | Fraction) -> int:
    if isinstance(x, Form):
        return x.id
    if isinstance(x, int | Fraction):
        return forms.number(dyadic.from_fraction(x))
    raise TypeError(f"expected a Form, int or Fraction, not {type(x).__name__}")


ZERO: Final = Form(forms.ZERO)
ONE: Final = Form(forms.ONE)
STAR: Final = Form(forms.STAR)
UP: Final = Form(forms.UP)
DOWN: Final = Form(forms.DOWN)
