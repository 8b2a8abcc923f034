"""A plain second model of the recommended Bao rules, written straight from the rules note's
pseudocode (its section 10) and kept apart from engine/bao: rows as lists, the front row
summed at every drop, every sowing state of a move recorded. Slow; for checking the engine.

A state is (pits, stores, owned, mover, blocked, ply): `pits` two lists of 16 (ring order), the
`blocked` pit of the mover or -1. Moves are (pit, direction, safari)."""

from __future__ import annotations

import contextlib
from typing import NamedTuple

Move = tuple[int, int, bool]


class State(NamedTuple):
    pits: tuple[tuple[int, ...], tuple[int, ...]]
    stores: tuple[int, int]
    owned: tuple[bool, bool]
    mover: int
    blocked: int
    ply: int


class _IllegalError(Exception):
    pass


def _functional(pits: list[list[int]], owned: list[bool], p: int) -> bool:
    return owned[p] and pits[p][4] >= 6


def _mtaji_caps(pits: list[list[int]], p: int) -> list[tuple[int, int]]:
    o = 1 - p
    caps = []
    for i in range(16):
        n = pits[p][i]
        for d in (1, -1):
            e = (i + d * n) % 16
            if 2 <= n <= 15 and e < 8 and pits[p][e] >= 1 and pits[o][7 - e] >= 1:
                caps.append((i, d))
    return caps


def _starts(s: State) -> tuple[str, list[tuple[int, int]]]:
    pits = [list(s.pits[0]), list(s.pits[1])]
    p, o = s.mover, 1 - s.mover
    if s.stores[p] > 0:
        caps = [k for k in range(8) if pits[p][k] >= 1 and pits[o][7 - k] >= 1]
        if caps:
            pairs = []
            for k in caps:
                kichwas = [0] if k <= 1 else [7] if k >= 6 else [0, 7]
                pairs += [(k, 1 if kichwa == 0 else -1) for kichwa in kichwas]
            return "cap", pairs
        occ = [k for k in range(8) if pits[p][k] >= 1]
        if _functional(pits, list(s.owned), p):
            cand = [k for k in occ if k != 4]
            if not cand:
                return "tax", [(4, 1), (4, -1)]
        else:
            cand = [k for k in occ if pits[p][k] >= 2] or occ
        return "tak", [(k, d) for k in cand for d in (1, -1)]
    caps2 = _mtaji_caps(pits, p)
    if caps2:
        return "cap", caps2
    front = [i for i in range(8) if pits[p][i] >= 2 and i != s.blocked]
    chosen = front or [i for i in range(8, 16) if pits[p][i] >= 2]
    return "tak", [(i, d) for i in chosen for d in (1, -1)]


def _play(s: State, kind: str, k: int, d: int, stop: bool) -> tuple[State, bool]:
    pits = [list(s.pits[0]), list(s.pits[1])]
    stores = list(s.stores)
    owned = list(s.owned)
    p, o = s.mover, 1 - s.mover
    namua = stores[p] > 0
    capmove = kind == "cap"
    blk = s.blocked if not namua else -1
    asked = False

    def drop(x: int) -> None:
        pits[p][x] += 1
        if sum(pits[p][:8]) == 0:
            raise _IllegalError

    def sow(n: int, start: int, direction: int) -> int:
        x = start
        for _ in range(n):
            x = (x + direction) % 16
            drop(x)
        return x

    def sow_from_kichwa(n: int, kichwa: int, direction: int) -> int:
        drop(kichwa)
        return sow(n - 1, kichwa, direction)

    def lift(x: int) -> int:
        n = pits[p][x]
        pits[p][x] = 0
        if x == 4:
            owned[p] = False
        return n

    def take(t: int) -> int:
        n = pits[o][t]
        pits[o][t] = 0
        if t == 4:
            owned[o] = False
        return n

    def finish() -> tuple[State, bool]:
        after = State(
            (tuple(pits[0]), tuple(pits[1])), (stores[0], stores[1]),
            (owned[0], owned[1]), o, -1, s.ply + 1,
        )  # fmt: skip
        if not namua and not capmove and not over:
            after = after._replace(blocked=_takasia(after))
        return after, asked

    over = False
    if namua:
        stores[p] -= 1
        pits[p][k] += 1
        if kind == "cap":
            n = take(7 - k)
            if sum(pits[o][:8]) == 0:
                stores[p] += n
                over = True
                return finish()
            e = sow_from_kichwa(n, 0 if d == 1 else 7, d)
        elif kind == "tax":
            pits[p][4] -= 2
            e = sow(2, 4, d)
        else:
            e = sow(lift(k), k, d)
    else:
        e = sow(lift(k), k, d)
    seen = set()
    while True:
        if pits[p][e] == 1:
            break
        if capmove and e < 8 and pits[o][7 - e] > 0:
            n = take(7 - e)
            if sum(pits[o][:8]) == 0:
                stores[p] += n
                over = True
                break
            if e in (0, 1):
                kichwa, d = 0, 1
            elif e in (6, 7):
                kichwa, d = 7, -1
            else:
                kichwa = 0 if d == 1 else 7
            e = sow_from_kichwa(n, kichwa, d)
            continue
        if e == 4 and namua and _functional(pits, owned, p):
            if not capmove:
                break
            asked = True
            if stop:
                break
            owned[p] = False
        if not capmove and e == blk:
            break
        key = (tuple(pits[0]), tuple(pits[1]), tuple(owned), e, d)
        if key in seen:
            raise _IllegalError
        seen.add(key)
        e = sow(lift(e), e, d)
    return finish()


def _takasia(s: State) -> int:
    """The pit of the side to move blocked after the other side's mtaji takasa (section 7)."""
    pits = [list(s.pits[0]), list(s.pits[1])]
    o = s.mover
    p = 1 - o
    if sum(pits[o][:8]) == 0:
        return -1
    if s.stores[o] > 0:
        o_caps = any(pits[o][k] and pits[p][7 - k] for k in range(8))
    else:
        o_caps = bool(_mtaji_caps(pits, o))
    if o_caps:
        return -1
    targets = set()
    for i, d in _mtaji_caps(pits, p):
        targets.add(7 - (i + d * pits[p][i]) % 16)
    if len(targets) != 1:
        return -1
    t = targets.pop()
    if t == 4 and _functional(pits, list(s.owned), o):
        return -1
    occupied = [k for k in range(8) if pits[o][k] > 0]
    if occupied == [t]:
        return -1
    if [k for k in range(8) if pits[o][k] > 1] == [t]:
        return -1
    if pits[o][t] == 1:
        return -1
    return t


def legal(s: State) -> dict[Move, State]:
    """Every legal move and the state after it (empty when the game is over)."""
    p = s.mover
    if sum(s.pits[p][:8]) == 0 or sum(s.pits[1 - p][:8]) == 0:
        return {}
    kind, pairs = _starts(s)
    moves: dict[Move, State] = {}
    for k, d in pairs:
        try:
            after, asked = _play(s, kind, k, d, stop=True)
        except _IllegalError:
            continue
        moves[(k, d, False)] = after
        if asked:
            with contextlib.suppress(_IllegalError):
                moves[(k, d, True)] = _play(s, kind, k, d, stop=False)[0]
    return moves
