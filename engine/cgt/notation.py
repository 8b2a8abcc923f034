"""CGSuite's ASCII notation for canonical forms: writing a value as CGSuite prints it, and
reading that notation (plus cgt-py's spelling of it) back.

Written forms: numbers `0`, `5`, `-3/4`; infinitesimals `*`, `*3`, `^`, `v`, `^^`, `vv*`, `^3`,
`1/2v*2`; switches `+-1`, `+-{2|1}`, `+-{1,{2|0}}`, `+-(1*)`; and general forms with CGSuite's
slashes, `{3||2|1}`, `{4|0,{1|0,*}}`, a nested game that would need four slashes being braced
instead. Read forms add sums and differences (`^ + v`, `3+-1`, `-{1|0}`), parentheses, `^2`
and `v3` for multiples of up, `2.^`, and spaces anywhere.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from fractions import Fraction

from engine.cgt import dyadic, forms
from engine.errors import NotationError

__all__ = ["ordered", "parse", "text"]

# CGSuite braces a nested game rather than separate its sides by this many slashes.
_MOST_SLASHES = 4


# -- writing ---------------------------------------------------------------------------------


def text(g: int) -> str:
    return _write(g, True, False)[0]


def _nus_text(value: forms.Nus, parenthesise: bool) -> str:
    m, e, ups, nim = value
    parts = []
    if m or (ups == 0 and nim == 0):
        parts.append(dyadic.text((m, e)))
    if ups:
        arrow = "^" if ups > 0 else "v"
        count = abs(ups)
        parts.append(arrow * count if count <= 2 else f"{arrow}{count}")
    if nim:
        parts.append("*" if nim == 1 else f"*{nim}")
    written = "".join(parts)
    # After +- a mixture such as 1* or ^* is parenthesised; numbers, nimbers and multiples of
    # up are not.
    plain = (ups == 0 and nim == 0) or (m == 0 and ups == 0) or (m == 0 and nim == 0)
    return f"({written})" if parenthesise and not plain else written


def _write(g: int, braces: bool, parenthesise: bool) -> tuple[str, int]:
    """g's text, and how many slashes its outermost level used when written without braces
    (0 when braced or atomic), as CGSuite nests `{a||b|c}`."""
    value = forms.nus_of(g)
    if value is not None:
        return _nus_text(value, parenthesise), 0
    lefts = ordered(forms.left_options(g))
    rights = ordered(forms.right_options(g))
    if forms.negate(g) == g:
        if len(lefts) == 1:
            return "+-" + _write(lefts[0], True, True)[0], 0
        return "+-{" + ",".join(_write(x, True, False)[0] for x in lefts) + "}", 0
    left_text, left_slashes = _side(lefts)
    right_text, right_slashes = _side(rights)
    slashes = max(left_slashes, right_slashes)
    written = left_text + "|" * slashes + right_text
    if braces or slashes == _MOST_SLASHES:
        return "{" + written + "}", 0
    return written, slashes


def _side(options: list[int]) -> tuple[str, int]:
    """One side's options, and the slashes needed to separate it from the other side."""
    braces = len(options) > 1
    parts = [_write(x, braces, False) for x in options]
    return ",".join(p for p, _ in parts), 1 + max((n for _, n in parts), default=0)


@functools.cache
def _order(g: int, h: int) -> int:
    """CGSuite's printing order: numbers by value, then nimbers, then other number + up +
    star values, then the rest by their sorted left options, then their right options."""
    if g == h:
        return 0
    a, b = forms.nus_of(g), forms.nus_of(h)
    rank_g, rank_h = _rank(g), _rank(h)
    if rank_g != rank_h:
        return rank_g - rank_h
    if a is not None and b is not None:
        c = dyadic.compare(a[:2], b[:2])
        return c if c else (a[2] - b[2]) or (a[3] - b[3])
    c = _compare_lists(ordered(forms.left_options(g)), ordered(forms.left_options(h)))
    return (
        c if c else _compare_lists(ordered(forms.right_options(g)), ordered(forms.right_options(h)))
    )


def _rank(g: int) -> int:
    value = forms.nus_of(g)
    if value is None:
        return 3
    if forms.is_number(g):
        return 0
    return 1 if value[0] == 0 and value[2] == 0 else 2


def _compare_lists(xs: list[int], ys: list[int]) -> int:
    for x, y in zip(xs, ys, strict=False):
        c = _order(x, y)
        if c:
            return c
    return len(xs) - len(ys)


def ordered(games: Iterable[int]) -> list[int]:
    """The games in CGSuite's printing order (the same in every session, unlike ids)."""
    return sorted(games, key=functools.cmp_to_key(_order))


# -- reading ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(\d+(?:/\d+)?)|(\|+)|(\+-|±)|([{}(),+\-^v*.]))")
_END = "end of text"


class _Reader:
    """Recursive descent over the tokens of one text."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens: list[tuple[str, str, int]] = list(self._tokenise())
        self.at = 0

    def _tokenise(self) -> Iterator[tuple[str, str, int]]:
        position = 0
        stripped = self.source.rstrip()
        while position < len(stripped):
            match = _TOKEN.match(stripped, position)
            if match is None:
                column = position + len(stripped[position:]) - len(stripped[position:].lstrip())
                raise self._error(f"unexpected {stripped[column]!r}", column)
            number, slashes, plus_minus, symbol = match.groups()
            start = match.start(match.lastindex or 0)
            if number is not None:
                yield "number", number, start
            elif slashes is not None:
                yield "|", slashes, start
            elif plus_minus is not None:
                yield "+-", plus_minus, start
            else:
                yield symbol, symbol, start
            position = match.end()

    def _error(self, what: str, column: int) -> NotationError:
        return NotationError(f"{what} at column {column + 1} of game text {self.source!r}")

    def _peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.tokens[index][0] if index < len(self.tokens) else _END

    def _next(self) -> tuple[str, str, int]:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _expect(self, kind: str) -> None:
        if self._peek() != kind:
            raise self._unexpected(f"expected {kind!r}")
        self.at += 1

    def _unexpected(self, expectation: str) -> NotationError:
        if self.at >= len(self.tokens):
            return self._error(f"{expectation}, found the end", len(self.source))
        _, value, column = self.tokens[self.at]
        return self._error(f"{expectation}, found {value!r}", column)

    def game(self) -> int:
        if not self.tokens:
            raise NotationError("empty game text")
        g = self.expression()
        if self._peek() != _END:
            raise self._unexpected("expected the end of the game")
        return g

    def expression(self) -> int:
        """Terms joined by +, - and +- (a +- b is a + (+-b))."""
        g = self.term()
        while self._peek() in ("+", "-", "+-"):
            operator = self._next()[0]
            if operator == "+":
                g = forms.add(g, self.term())
            elif operator == "-":
                g = forms.subtract(g, self.term())
            else:
                g = forms.add(g, self.switch())
        return g

    def term(self) -> int:
        kind = self._peek()
        if kind == "-":
            if self._peek(1) == "number":
                self.at += 1
                return self.literal(-1)
            self.at += 1
            return forms.negate(self.term())
        if kind == "+":
            self.at += 1
            return self.term()
        if kind == "+-":
            self.at += 1
            return self.switch()
        if kind == "(":
            self.at += 1
            g = self.expression()
            self._expect(")")
            return g
        if kind == "{":
            column = self.tokens[self.at][2]
            options = self.braces()
            if isinstance(options, list):
                raise self._error("options without a slash ({a,b} needs +- before it)", column)
            return options
        if kind in ("number", "^", "v", "*"):
            return self.literal(1)
        raise self._unexpected("expected a game")

    def switch(self) -> int:
        """+-G = {G | -G}; +-{a,b} = {a,b | -a,-b}."""
        if self._peek() == "{":
            found = self.braces()
            options = found if isinstance(found, list) else [found]
            if not options:
                raise self._unexpected("expected options after +-")
        else:
            options = [self.term()]
        return forms.construct(options, [forms.negate(x) for x in options])

    def literal(self, sign: int) -> int:
        """[number][.][^ | ^^ | ^n | v | vv | vn][* | *n]"""
        start = self.at
        x: dyadic.Dyadic = (0, 0)
        if self._peek() == "number":
            _, digits, column = self._next()
            try:
                m, e = dyadic.from_fraction(_fraction(digits))
            except ValueError as error:
                raise self._error(str(error), column) from None
            x = (sign * m, e)
            if self._peek() == "." and self._peek(1) in ("^", "v", "*"):
                self.at += 1
        ups = 0
        if self._peek() in ("^", "v"):
            arrow = self._next()[0]
            count = 1
            if self._peek() == arrow:
                self.at += 1
                count = 2
            elif self._peek() == "number":
                count = self._count()
            ups = count if arrow == "^" else -count
        nim = 0
        if self._peek() == "*":
            self.at += 1
            nim = self._count() if self._peek() == "number" else 1
        if self.at == start:
            raise self._unexpected("expected a game")
        return forms.nus(x, ups, nim)

    def _count(self) -> int:
        _, digits, column = self._next()
        if not digits.isdigit():
            raise self._error(f"expected a whole number, found {digits!r}", column)
        return int(digits)

    def braces(self) -> int | list[int]:
        """{...}: a game when it holds a slash, else the bare list of options (after +-)."""
        self._expect("{")
        groups = [self.group()]
        slashes: list[tuple[int, int]] = []
        while self._peek() == "|":
            _, run, column = self._next()
            slashes.append((len(run), column))
            groups.append(self.group())
        self._expect("}")
        if not slashes:
            return groups[0]
        return self.assemble(groups, slashes)

    def group(self) -> list[int]:
        """Comma-separated games, possibly none."""
        if self._peek() in ("|", "}", _END):
            return []
        options = [self.expression()]
        while self._peek() == ",":
            self.at += 1
            options.append(self.expression())
        return options

    def assemble(self, groups: list[list[int]], slashes: list[tuple[int, int]]) -> int:
        """Split at the one separator with the most slashes: {a|b||c} = {{a|b}||c}."""
        most = max(n for n, _ in slashes)
        where = [i for i, (n, _) in enumerate(slashes) if n == most]
        if len(where) > 1:
            column = slashes[where[1]][1]
            raise self._error(f"ambiguous {'|' * most}: a second one at the same level", column)
        i = where[0]
        return forms.construct(
            self.side(groups[: i + 1], slashes[:i]),
            self.side(groups[i + 1 :], slashes[i + 1 :]),
        )

    def side(self, groups: list[list[int]], slashes: list[tuple[int, int]]) -> list[int]:
        return [self.assemble(groups, slashes)] if slashes else groups[0]


def _fraction(digits: str) -> Fraction:
    numerator, _, denominator = digits.partition("/")
    if denominator and int(denominator) == 0:
        raise ValueError(f"{digits} divides by zero")
    return Fraction(int(numerator), int(denominator or 1))


def parse(source: str) -> int:
    """The id of the game written in `source`; NotationError names what is wrong and where."""
    return _Reader(source).game()
