"""Dyadic rationals m/2^e, the numbers of short games, as (numerator, exponent) pairs of ints.

The canonical-form core keeps numbers in this form because int arithmetic is several times
cheaper than `Fraction`; the public API speaks `Fraction`.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = [
    "Dyadic",
    "add",
    "compare",
    "from_fraction",
    "half_sum",
    "normalise",
    "text",
    "to_fraction",
]

Dyadic = tuple[int, int]
"""m/2^e as (m, e) with e >= 0 and m odd whenever e > 0."""


def normalise(numerator: int, exponent: int) -> Dyadic:
    """The reduced pair for numerator/2^exponent."""
    while exponent > 0 and not numerator & 1:
        numerator >>= 1
        exponent -= 1
    return numerator, exponent


def from_fraction(value: Fraction | int) -> Dyadic:
    """The pair for `value`; ValueError unless its denominator is a power of two."""
    value = Fraction(value)
    denominator = value.denominator
    if denominator & (denominator - 1):
        raise ValueError(f"{value} is not a dyadic rational (its denominator is not a power of 2)")
    return value.numerator, denominator.bit_length() - 1


def to_fraction(value: Dyadic) -> Fraction:
    return Fraction(value[0], 1 << value[1])


def compare(a: Dyadic, b: Dyadic) -> int:
    """Negative, zero or positive as a < b, a == b, a > b."""
    (m, e), (n, f) = a, b
    if e == f:
        return m - n
    if e < f:
        return (m << (f - e)) - n
    return m - (n << (e - f))


def add(a: Dyadic, b: Dyadic) -> Dyadic:
    (m, e), (n, f) = a, b
    if e == f:
        return normalise(m + n, e)
    if e < f:
        return normalise((m << (f - e)) + n, f)
    return normalise(m + (n << (e - f)), e)


def half_sum(a: Dyadic, b: Dyadic) -> Dyadic:
    """(a + b) / 2."""
    m, e = add(a, b)
    return normalise(m, e + 1)


def text(value: Dyadic) -> str:
    """CGSuite's spelling: `3`, `-5`, `1/2`, `-3/4`, `25/16` (never mixed fractions)."""
    m, e = value
    return str(m) if e == 0 else f"{m}/{1 << e}"
