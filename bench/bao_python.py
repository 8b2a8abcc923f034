"""The rules of Bao la Kiswahili in plain Python, as engine/bao had them before its numba
kernels: the baseline that bench/bao.py measures the kernels against. `legal_moves(board,
rules)` gives what `engine.bao.board.legal_moves` gives (tests/bench/test_bao.py holds them
to it, under every rule flag).
"""

from __future__ import annotations

from typing import NamedTuple

from engine.bao.board import Board, front_seeds, functional_house
from engine.bao.notation import CCW, CW, PITS, Move
from engine.bao.rules import BaoRules, MtajiHouse, NamuaTakasaStart

__all__ = ["legal_moves"]

FRONT = 8
HOUSE = 4  # F5, the nyumba, in ring order
NO_PIT = -1
# A relay sowing can only repeat itself after many laps; recording the sowing state from this
# lap on keeps short moves cheap and still catches every cycle (a cycle repeats for ever).
RECORD_FROM_LAP = 24
# The kernels' safety net (engine.bao.kernels.MAX_LAPS): still sowing after this many laps
# counts as never-ending.
MAX_LAPS = 100_000


def _mtaji_captures(pits: tuple[int, ...] | list[int], player: int) -> list[tuple[int, int]]:
    """(start pit, direction) pairs whose first lap ends on a marker (section 6.1)."""
    mine, theirs = player * PITS, (1 - player) * PITS
    found = []
    for pit in range(PITS):
        seeds = pits[mine + pit]
        if 2 <= seeds <= 15:
            for direction in (CW, CCW):
                end = (pit + direction * seeds) % PITS
                if end < FRONT and pits[mine + end] and pits[theirs + 7 - end]:
                    found.append((pit, direction))
    return found


def _first_target(pits: tuple[int, ...] | list[int], player: int, pit: int, d: int) -> int:
    """The opponent's pit (their ring index) that an mtaji capture from `pit` takes first."""
    return 7 - (pit + d * pits[player * PITS + pit]) % PITS


def _namua_captures(pits: tuple[int, ...] | list[int], player: int) -> list[int]:
    """Occupied front pits facing an occupied pit (section 5.1)."""
    mine, theirs = player * PITS, (1 - player) * PITS
    return [k for k in range(FRONT) if pits[mine + k] and pits[theirs + 7 - k]]


def _house_kept_in_mtaji(rules: BaoRules) -> bool:
    return rules.mtaji_house is MtajiHouse.KEPT_UNTIL_FIRST_CAPTURE


def _has_capture(board: Board, pits: list[int], player: int) -> bool:
    if board.stores[player] > 0:
        return bool(_namua_captures(pits, player))
    return bool(_mtaji_captures(pits, player))


class Starts(NamedTuple):
    """The (pit, direction) pairs a move may start with, and what kind of move they make."""

    pairs: list[tuple[int, int]]
    capture: bool
    tax: bool


def move_starts(board: Board, rules: BaoRules) -> Starts:
    """Every (pit, direction) the mover may start from, before the sowing is checked."""
    p, pits = board.mover, board.pits
    base = p * PITS
    both = (CW, CCW)
    if board.in_namua():
        caps = _namua_captures(pits, p)
        if caps:
            pairs = [
                (k, d) for k in caps for d in ((CW,) if k <= 1 else (CCW,) if k >= 6 else both)
            ]
            return Starts(pairs, capture=True, tax=False)
        occupied = [k for k in range(FRONT) if pits[base + k]]
        owned = board.owned[p]
        if functional_house(board, p, rules):
            others = [k for k in occupied if k != HOUSE]
            if not others:
                return Starts([(HOUSE, d) for d in both], capture=False, tax=True)
            return Starts([(k, d) for k in others for d in both], capture=False, tax=False)
        if not rules.tax_needs_functional_house and owned and occupied == [HOUSE]:
            return Starts([(HOUSE, d) for d in both], capture=False, tax=True)
        start = rules.namua_takasa_start
        if start is NamuaTakasaStart.ANY_WHILE_OWNED and owned:
            candidates = occupied
        elif start is NamuaTakasaStart.HOUSE_LAST and owned:
            others = [k for k in occupied if k != HOUSE]
            candidates = (
                [k for k in others if pits[base + k] >= 2]
                or others
                or [k for k in occupied if k == HOUSE]
            )
        else:
            candidates = [k for k in occupied if pits[base + k] >= 2] or occupied
        return Starts([(k, d) for k in candidates for d in both], capture=False, tax=False)
    mtaji_caps = _mtaji_captures(pits, p)
    if board.duty != NO_PIT:
        mtaji_caps = [
            (pit, d) for pit, d in mtaji_caps if _first_target(pits, p, pit, d) == board.duty
        ] or mtaji_caps
    if mtaji_caps:
        return Starts(mtaji_caps, capture=True, tax=False)
    front = [k for k in range(FRONT) if pits[base + k] >= 2 and k != board.blocked]
    if _house_kept_in_mtaji(rules) and board.owned[p] and front != [HOUSE]:
        front = [k for k in front if k != HOUSE]
    chosen = front or [k for k in range(FRONT, PITS) if pits[base + k] >= 2]
    return Starts([(k, d) for k in chosen for d in both], capture=False, tax=False)


# Why a move that starts well is still illegal.
EMPTIES_FRONT_ROW = "it would empty your own front row (a lone kichwa sown toward the back row)"
NEVER_ENDS = "it never ends: the same sowing state comes round again within the move"


class _Sown(NamedTuple):
    board: Board
    # The move stopped in the functional house on a capture: a stop-or-safari choice.
    reached_house: bool


def _sow(
    board: Board, rules: BaoRules, pit: int, direction: int, kind: Starts, safari: bool
) -> _Sown | str:
    """Play one move; the reason it is illegal when it empties the mover's front row (A6) or
    never ends (section 9)."""
    p = board.mover
    o = 1 - p
    mine, theirs = p * PITS, o * PITS
    pits = list(board.pits)
    owned = list(board.owned)
    stores = list(board.stores)
    namua = stores[p] > 0
    capture = kind.capture
    blocked = NO_PIT if namua or capture else board.blocked
    front = sum(pits[mine : mine + FRONT])
    reached_house = False
    d = direction
    game_over = False

    house_counts = namua or _house_kept_in_mtaji(rules)

    def take(target: int) -> int:
        """Capture the opponent's front pit `target` (their ring index)."""
        if not namua and house_counts:
            owned[p] = False  # the owner's first mtaji capture ends the house (A3)
        seeds = pits[theirs + target]
        pits[theirs + target] = 0
        if target == HOUSE:
            owned[o] = False
        return seeds

    if namua:
        stores[p] -= 1
        pits[mine + pit] += 1
        front += 1
    if namua and capture:
        seeds = take(7 - pit)
        # The captured seeds start in the kichwa itself: begin one pit before it.
        x = (0 if d == CW else 7) - d
        game_over = not any(pits[theirs : theirs + FRONT])
        if game_over:
            stores[p] += seeds  # the winning capture stays in hand
    elif kind.tax:
        pits[mine + HOUSE] -= 2
        front -= 2
        seeds, x = 2, HOUSE
        if pits[mine + HOUSE] == 0:
            owned[p] = False
    else:
        seeds, x = pits[mine + pit], pit
        pits[mine + pit] = 0
        if pit < FRONT:
            front -= seeds
        if pit == HOUSE:
            owned[p] = False
    seen: set[tuple[object, ...]] = set()
    laps = 0
    while not game_over:
        for dropped in range(1, seeds + 1):
            x = (x + d) % PITS
            pits[mine + x] += 1
            if x < FRONT:
                front += 1
            elif front == 0:
                if rules.own_front_row_emptying_illegal:
                    return EMPTIES_FRONT_ROW
                # Bao hamna: the mover has emptied their own front row and lost; the seeds
                # still in hand go back to the store.
                stores[p] += seeds - dropped
                game_over = True
                break
        if game_over:
            break
        end = x
        if pits[mine + end] == 1:
            break
        if capture and end < FRONT and pits[theirs + 7 - end]:
            seeds = take(7 - end)
            if not any(pits[theirs : theirs + FRONT]):
                stores[p] += seeds  # the winning capture stays in hand
                break
            if end <= 1:
                d = CW
            elif end >= 6:
                d = CCW
            x = (0 if d == CW else 7) - d
            continue
        if (
            end == HOUSE
            and house_counts
            and owned[p]
            and pits[mine + HOUSE] >= rules.functional_house_seeds
        ):
            if not capture:
                break
            reached_house = True
            if not safari:
                break
        if end == blocked:
            break
        laps += 1
        if laps >= MAX_LAPS:
            return NEVER_ENDS
        if laps >= RECORD_FROM_LAP:
            state = (tuple(pits), owned[0], owned[1], end, d)
            if state in seen:
                return NEVER_ENDS
            seen.add(state)
        seeds = pits[mine + end]
        pits[mine + end] = 0
        if end < FRONT:
            front -= seeds
        if end == HOUSE:
            owned[p] = False
        x = end
    after = Board(
        tuple(pits), (stores[0], stores[1]), (owned[0], owned[1]), o, NO_PIT, board.ply + 1
    )
    if not namua and not capture and rules.takasia and not rules.kujifunza:
        after = after._replace(blocked=_takasia(after, pits, rules))
    if (
        rules.takasia_binds_blocker
        and board.blocked != NO_PIT
        and after.blocked == NO_PIT
        and not game_over
        and any(
            _first_target(pits, o, i, dd) == board.blocked for i, dd in _mtaji_captures(pits, o)
        )
    ):
        after = after._replace(duty=board.blocked)
    return _Sown(after, reached_house)


def _takasia(after: Board, pits: list[int], rules: BaoRules) -> int:
    """The pit of the side now to move that the takasa just played blocks (section 7)."""
    o = after.mover
    p = 1 - o
    theirs = o * PITS
    their_front = pits[theirs : theirs + FRONT]
    if not any(their_front) or not any(pits[p * PITS : p * PITS + FRONT]):
        return NO_PIT
    if rules.takasia_needs_no_capture and _has_capture(after, pits, o):
        return NO_PIT
    targets = {_first_target(pits, p, pit, d) for pit, d in _mtaji_captures(pits, p)}
    if len(targets) != 1:
        return NO_PIT
    (target,) = targets
    if target == HOUSE and functional_house(after, o, rules):
        return NO_PIT
    if [k for k, seeds in enumerate(their_front) if seeds] == [target]:
        return NO_PIT
    if [k for k, seeds in enumerate(their_front) if seeds > 1] == [target]:
        return NO_PIT
    if their_front[target] == 1 and not rules.takasia_of_singletons:
        return NO_PIT
    return target


def legal_moves(board: Board, rules: BaoRules) -> dict[Move, Board]:
    """Every legal move of the side to move and the board it leaves, in a fixed order; empty
    when the game is over (a front row empty, no move, or the ply cap reached)."""
    if not front_seeds(board, board.mover) or not front_seeds(board, 1 - board.mover):
        return {}
    if board.ply >= rules.ply_cap:
        return {}
    starts = move_starts(board, rules)
    moves: dict[Move, Board] = {}
    for pit, direction in starts.pairs:
        sown = _sow(board, rules, pit, direction, starts, safari=False)
        if isinstance(sown, str):
            continue
        moves[Move(pit, direction)] = sown.board
        if sown.reached_house:
            on_safari = _sow(board, rules, pit, direction, starts, safari=True)
            if not isinstance(on_safari, str):
                moves[Move(pit, direction, safari=True)] = on_safari.board
    return moves
