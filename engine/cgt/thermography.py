"""What a game is worth at each temperature: trajectories, thermographs, mean and temperature,
cooling and heating.

Thermographs follow CGSuite's construction (as cgt-py computes it too): walls are continuous
piecewise-linear functions of the temperature t on -1 <= t < oo; an integer's thermograph is a
bare mast, and any other game's is the thermographic intersection of its left scaffold (the
largest right wall of its left options, tilted by -t) with its right scaffold (the smallest left
wall of its right options, tilted by +t). Walls reach down to t = -1, which is why a number
m/2^e has temperature -1/2^e.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from engine.cgt import dyadic, forms

__all__ = ["Thermograph", "Trajectory", "cool", "heat", "mean", "temperature", "thermograph"]

_BASE = Fraction(-1)

Point = tuple[Fraction, Fraction]


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A continuous piecewise-linear function of t on [-1, oo): its knots (t, value) from t = -1
    upwards, and its slope above the last knot. Knots where the slope does not change are
    dropped, so equal functions are equal trajectories."""

    points: tuple[Point, ...]
    top_slope: Fraction

    @property
    def mast(self) -> Fraction:
        """The value far up (a wall ends in a vertical mast). For a sloping top, where that
        top segment crosses t = 0, as CGSuite reports it."""
        t, v = self.points[-1]
        return v - self.top_slope * t

    @property
    def critical_temperatures(self) -> tuple[Fraction, ...]:
        """Where the slope changes, highest first (CGSuite's order)."""
        return tuple(t for t, _ in reversed(self.points[1:]))

    @property
    def slopes(self) -> tuple[Fraction, ...]:
        """Slope of each segment from the top down: slopes[0] above the highest critical
        temperature, the last one just above t = -1. A value moves by slope * dt."""
        below = [(v1 - v0) / (t1 - t0) for (t0, v0), (t1, v1) in pairwise(self.points)]
        return (self.top_slope, *reversed(below))

    def value_at(self, t: Fraction | int) -> Fraction:
        t = Fraction(t)
        if t < _BASE:
            raise ValueError(f"trajectories start at t = -1, not {t}")
        points = self.points
        last_t, last_v = points[-1]
        if t >= last_t:
            return last_v + self.top_slope * (t - last_t)
        for (t0, v0), (t1, v1) in pairwise(points):
            if t <= t1:
                return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
        raise AssertionError("unreachable: t lies below the last knot")

    def __str__(self) -> str:
        return (
            f"{_text(self.mast)},[{','.join(map(_text, self.critical_temperatures))}],"
            f"[{','.join(map(_text, self.slopes))}]"
        )


@dataclass(frozen=True, slots=True)
class Thermograph:
    """The left and right walls of a game's thermograph. They meet at `temperature` and run up
    together as the mast at `mean`."""

    left_wall: Trajectory
    right_wall: Trajectory
    temperature: Fraction

    @property
    def mean(self) -> Fraction:
        return self.left_wall.mast

    def __str__(self) -> str:
        """CGSuite's text: mast, critical temperatures and slopes of the left wall, then of the
        right wall, e.g. `Thermograph(0,[1],[0,-1],0,[1],[0,1])` for +-1."""
        return f"Thermograph({self.left_wall},{self.right_wall})"


def _text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _mast(value: Fraction) -> Trajectory:
    return Trajectory(((_BASE, value),), Fraction(0))


def _trajectory(points: list[Point], top_slope: Fraction) -> Trajectory:
    """A trajectory through `points` (ascending t), dropping knots that do not bend it."""
    kept = [points[0]]
    for i in range(1, len(points)):
        t, v = points[i]
        if t == kept[-1][0]:
            continue
        if i + 1 < len(points):
            t1, v1 = points[i + 1]
            after = (v1 - v) / (t1 - t)
        else:
            after = top_slope
        t0, v0 = kept[-1]
        if (v - v0) / (t - t0) != after:
            kept.append((t, v))
    return Trajectory(tuple(kept), top_slope)


def _tilt(trajectory: Trajectory, slope: int) -> Trajectory:
    return Trajectory(
        tuple((t, v + slope * t) for t, v in trajectory.points), trajectory.top_slope + slope
    )


def _knots(a: Trajectory, b: Trajectory) -> list[Fraction]:
    return sorted({t for t, _ in a.points} | {t for t, _ in b.points})


def _crossings(a: Trajectory, b: Trajectory) -> list[Fraction]:
    """The knots of both, plus every t where a - b changes sign between them."""
    knots = _knots(a, b)
    found = []
    for i, t in enumerate(knots):
        found.append(t)
        d0 = a.value_at(t) - b.value_at(t)
        if i + 1 < len(knots):
            t1 = knots[i + 1]
            d1 = a.value_at(t1) - b.value_at(t1)
            if d0 * d1 < 0:
                found.append(t + (t1 - t) * d0 / (d0 - d1))
        else:
            rate = a.top_slope - b.top_slope
            if rate and d0 * rate < 0:
                found.append(t - d0 / rate)
    return found


def _envelope(trajectories: list[Trajectory], upper: bool) -> Trajectory:
    """The pointwise maximum (upper) or minimum of the trajectories."""
    result = trajectories[0]
    for other in trajectories[1:]:
        knots = _crossings(result, other)
        pick = max if upper else min
        points = [(t, pick(result.value_at(t), other.value_at(t))) for t in knots]
        # Above the last knot the two no longer cross: the one ahead one step up stays ahead.
        probe = knots[-1] + 1
        ahead = result.value_at(probe) - other.value_at(probe)
        if ahead == 0:
            top = pick(result.top_slope, other.top_slope)
        else:
            top = result.top_slope if (ahead > 0) == upper else other.top_slope
        result = _trajectory(points, top)
    return result


def _intersection(left: Trajectory, right: Trajectory) -> Thermograph:
    """The thermograph whose walls follow the scaffolds up to where they meet."""
    gap_at_base = left.value_at(_BASE) - right.value_at(_BASE)
    if gap_at_base <= 0:
        # The scaffolds never enclose a hill (the left one falls and the right one rises):
        # a mast from the base, at 0 if 0 lies between them, else at the one nearer 0.
        low, high = left.value_at(_BASE), right.value_at(_BASE)
        value = low if low > 0 else high if high < 0 else Fraction(0)
        return Thermograph(_mast(value), _mast(value), _BASE)
    knots = _knots(left, right)
    meet = None
    for t0, t1 in pairwise(knots):
        d0 = left.value_at(t0) - right.value_at(t0)
        d1 = left.value_at(t1) - right.value_at(t1)
        if d1 <= 0 < d0:
            meet = t0 + (t1 - t0) * d0 / (d0 - d1)
            break
    if meet is None:
        last = knots[-1]
        gap = left.value_at(last) - right.value_at(last)
        meet = last + gap / (right.top_slope - left.top_slope)
    value = left.value_at(meet)
    walls = []
    for scaffold in (left, right):
        points = [(t, v) for t, v in scaffold.points if t < meet]
        points.append((meet, value))
        walls.append(_trajectory(points, Fraction(0)))
    return Thermograph(walls[0], walls[1], meet)


_thermographs: dict[int, Thermograph] = {}


def thermograph(g: int) -> Thermograph:
    found = _thermographs.get(g)
    if found is not None:
        return found
    value = forms.nus_of(g)
    stand_in = g if value is None or forms.is_number(g) else _stand_in(value)
    if forms.is_integer(g):
        x = dyadic.to_fraction(forms.left_stop(g))
        result = Thermograph(_mast(x), _mast(x), _BASE)
    elif stand_in != g:
        result = thermograph(stand_in)
    else:
        left = _envelope([thermograph(x).right_wall for x in forms.left_options(g)], True)
        right = _envelope([thermograph(x).left_wall for x in forms.right_options(g)], False)
        result = _intersection(_tilt(left, -1), _tilt(right, 1))
    _thermographs[g] = result
    return result


def _stand_in(value: forms.Nus) -> int:
    """The game with the same thermograph as x + n.^ + *k, as in CGSuite: x + * when n = 0 or
    for x + ^* and x + v*, else x + ^ or x + v. Its options are few, where x + *k or x + n.^
    may have a long chain of them."""
    x = value[:2]
    ups, nim = value[2], value[3]
    if ups == 0 or (abs(ups) == 1 and nim == 1):
        return forms.nus(x, 0, 1)
    return forms.nus(x, 1 if ups > 0 else -1, 0)


def mean(g: int) -> Fraction:
    value = forms.nus_of(g)
    if value is not None:
        return dyadic.to_fraction(value[:2])
    return thermograph(g).mean


def temperature(g: int) -> Fraction:
    """CGSuite's temperature: -1/2^e for a number m/2^e (so -1 for integers), 0 for any other
    number + infinitesimal x + n.^ + *k, else where the thermograph's walls meet."""
    value = forms.nus_of(g)
    if value is not None:
        if forms.is_number(g):
            return Fraction(-1, 1 << value[1])
        return Fraction(0)
    return thermograph(g).temperature


_cooled: dict[tuple[int, Fraction], int] = {}


def cool(g: int, t: Fraction) -> int:
    """g cooled by t >= 0 (dyadic): {g^L cooled - t | g^R cooled + t} up to the game's
    temperature, the mean above it; numbers do not cool."""
    if t < 0:
        raise ValueError(f"cooling by {t}: the temperature must be >= 0")
    if t == 0 or forms.is_number(g):
        return g
    found = _cooled.get((g, t))
    if found is not None:
        return found
    if t > temperature(g):
        result = forms.number(dyadic.from_fraction(mean(g)))
    else:
        step = forms.number(dyadic.from_fraction(t))
        back = forms.negate(step)
        result = forms.construct(
            [forms.add(cool(x, t), back) for x in forms.left_options(g)],
            [forms.add(cool(x, t), step) for x in forms.right_options(g)],
        )
    _cooled[g, t] = result
    return result


_heated: dict[tuple[int, int], int] = {}


def heat(g: int, t: int) -> int:
    """g heated by the game t: {g^L heated + t | g^R heated - t}; numbers do not heat."""
    if forms.is_number(g):
        return g
    found = _heated.get((g, t))
    if found is not None:
        return found
    back = forms.negate(t)
    result = forms.construct(
        [forms.add(heat(x, t), t) for x in forms.left_options(g)],
        [forms.add(heat(x, t), back) for x in forms.right_options(g)],
    )
    _heated[g, t] = result
    return result
