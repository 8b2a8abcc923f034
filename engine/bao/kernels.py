"""Numba kernels for Bao: the start pits of a move, sowing with its relays and captures, the
legal moves with the boards they leave, perft and random playouts.

A board is one flat int64 array (`STATE_SIZE`): both players' 16 pits in ring order (player p's
at p*16 .. p*16+15), the two stores, the two houses owned (0/1), the side to move, the pit of
the side to move takasia'd (-1 none), the plies played and the opponent pit the side to move
must capture first (-1 none). The rule flags travel as an int64 array (`RULE_SIZE`), built by
`engine.bao.board.rule_array`. Moves are rows (pit, direction, safari).
"""

from __future__ import annotations

import numpy as np

from engine.jit import njit

PITS = 16
FRONT = 8
HOUSE = 4  # the nyumba, A5, in ring order
NO_PIT = -1
CW = 1
CCW = -1

# The board array.
STORE = 32  # state[STORE + p] is player p's store
OWNED = 34  # state[OWNED + p] is 1 while player p owns the house
MOVER = 36
BLOCKED = 37
PLY = 38
DUTY = 39
STATE_SIZE = 40

# The rule array (BaoRules, field by field).
R_HOUSE_SEEDS = 0
R_HOUSE_KEPT = 1  # MtajiHouse.KEPT_UNTIL_FIRST_CAPTURE
R_TAKASA_START = 2  # one of the START_* below
R_TAX_NEEDS_FUNCTIONAL = 3
R_EMPTYING_ILLEGAL = 4
R_TAKASIA = 5
R_BINDS_BLOCKER = 6
R_TAKASIA_SINGLETONS = 7
R_TAKASIA_NEEDS_NO_CAPTURE = 8
R_KUJIFUNZA = 9
R_PLY_CAP = 10
RULE_SIZE = 11

START_PREFER_TWO = 0
START_ANY_WHILE_OWNED = 1
START_HOUSE_LAST = 2

# What kind of move the start pits make.
TAKASA = 0
CAPTURE = 1
TAX = 2

# What a sowing came to.
SOWN = 0
SOWN_TO_HOUSE = 1  # stopped in the functional house on a capture: safari is a choice
EMPTIES_FRONT_ROW = 2
NEVER_ENDS = 3
NO_END_IN_SIGHT = 4  # MAX_LAPS relay laps without an end or a repeat

# A capture move has at most 12 start pairs, each with a safari twin; a takasa at most 32.
MAX_MOVES = 32
# Relay laps before the sowing state is first kept for the cycle check: a short move costs
# nothing, and Brent's doubling still catches every cycle (a cycle repeats for ever).
CHECK_FROM_LAP = 16
# The rules note's safety net for never-ending moves whose cycle is too long to wait for (one
# found in random games repeats only after 403,759,088 laps): a move still sowing after this
# many relay laps counts as never-ending. In 20,000 random games the longest move that ended
# took 295 laps and 3 moves passed 20 million laps without a repeat.
MAX_LAPS = 100_000


@njit(cache=True)
def front_seeds(state: np.ndarray, player: int) -> int:
    base = player * PITS
    total = 0
    for k in range(FRONT):
        total += state[base + k]
    return total


@njit(cache=True)
def functional_house(state: np.ndarray, player: int, rules: np.ndarray) -> bool:
    """Owned and holding at least the functional count (A1), measured now (A2)."""
    return bool(state[OWNED + player] != 0 and state[player * PITS + HOUSE] >= rules[R_HOUSE_SEEDS])


@njit(cache=True)
def mtaji_captures(state: np.ndarray, player: int, pairs: np.ndarray) -> int:
    """Write the (pit, direction) pairs whose first lap ends on a marker (section 6.1) into
    `pairs`; return how many."""
    mine = player * PITS
    theirs = (1 - player) * PITS
    n = 0
    for pit in range(PITS):
        seeds = state[mine + pit]
        if 2 <= seeds <= 15:
            for direction in (CW, CCW):
                end = (pit + direction * seeds) % PITS
                if end < FRONT and state[mine + end] > 0 and state[theirs + 7 - end] > 0:
                    pairs[n, 0] = pit
                    pairs[n, 1] = direction
                    n += 1
    return n


@njit(cache=True)
def first_target(state: np.ndarray, player: int, pit: int, direction: int) -> int:
    """The opponent's pit (their ring index) that an mtaji capture from `pit` takes first."""
    return int(7 - (pit + direction * state[player * PITS + pit]) % PITS)


@njit(cache=True)
def _capture_targets(state: np.ndarray, player: int) -> tuple[int, int, bool]:
    """Of `player`'s mtaji captures: how many there are, the opponent pit the first one takes,
    and whether they all take that pit."""
    mine = player * PITS
    theirs = (1 - player) * PITS
    count = 0
    target = NO_PIT
    same = True
    for pit in range(PITS):
        seeds = state[mine + pit]
        if 2 <= seeds <= 15:
            for direction in (CW, CCW):
                end = (pit + direction * seeds) % PITS
                if end < FRONT and state[mine + end] > 0 and state[theirs + 7 - end] > 0:
                    if count == 0:
                        target = 7 - end
                    elif 7 - end != target:
                        same = False
                    count += 1
    return count, target, same


@njit(cache=True)
def _can_take(state: np.ndarray, player: int, wanted: int) -> bool:
    """Whether one of `player`'s mtaji captures takes the opponent pit `wanted` first."""
    mine = player * PITS
    theirs = (1 - player) * PITS
    found = False
    for pit in range(PITS):
        seeds = state[mine + pit]
        if 2 <= seeds <= 15:
            for direction in (CW, CCW):
                end = (pit + direction * seeds) % PITS
                if (
                    7 - end == wanted
                    and end < FRONT
                    and state[mine + end] > 0
                    and state[theirs + 7 - end] > 0
                ):
                    found = True
    return found


@njit(cache=True)
def _has_capture(state: np.ndarray, player: int) -> bool:
    mine = player * PITS
    theirs = (1 - player) * PITS
    if state[STORE + player] > 0:
        markers = 0
        for k in range(FRONT):
            if state[mine + k] > 0 and state[theirs + 7 - k] > 0:
                markers += 1
        return markers > 0
    count, _, _ = _capture_targets(state, player)
    return count > 0


@njit(cache=True)
def move_starts(state: np.ndarray, rules: np.ndarray, pairs: np.ndarray) -> tuple[int, int]:
    """Write every (pit, direction) the mover may start from into `pairs`, before the sowing
    is checked; return how many and the kind of move (TAKASA, CAPTURE or TAX)."""
    p = state[MOVER]
    mine = p * PITS
    theirs = (1 - p) * PITS
    n = 0
    if state[STORE + p] > 0:
        for k in range(FRONT):
            if state[mine + k] > 0 and state[theirs + 7 - k] > 0:
                # The arrow names the kichwa the captured seeds start in.
                if k >= 6:
                    pairs[n, 0] = k
                    pairs[n, 1] = CCW
                    n += 1
                else:
                    pairs[n, 0] = k
                    pairs[n, 1] = CW
                    n += 1
                    if k >= 2:
                        pairs[n, 0] = k
                        pairs[n, 1] = CCW
                        n += 1
        if n > 0:
            return n, CAPTURE
        owned = state[OWNED + p] != 0
        occupied = 0
        twos = 0
        other_twos = 0
        others = 0
        for k in range(FRONT):
            seeds = state[mine + k]
            if seeds > 0:
                occupied += 1
                if k != HOUSE:
                    others += 1
                if seeds >= 2:
                    twos += 1
                    if k != HOUSE:
                        other_twos += 1
        house_only = occupied == 1 and state[mine + HOUSE] > 0
        functional = functional_house(state, p, rules)
        tax = (functional and others == 0) or (
            rules[R_TAX_NEEDS_FUNCTIONAL] == 0 and not functional and owned and house_only
        )
        if tax:
            pairs[0, 0] = HOUSE
            pairs[0, 1] = CW
            pairs[1, 0] = HOUSE
            pairs[1, 1] = CCW
            return 2, TAX
        start = rules[R_TAKASA_START]
        least = 1
        skip_house = False
        if functional:
            skip_house = True
        elif start == START_ANY_WHILE_OWNED and owned:
            least = 1
        elif start == START_HOUSE_LAST and owned:
            if other_twos > 0:
                least = 2
                skip_house = True
            elif others > 0:
                skip_house = True
        elif twos > 0:
            least = 2
        for k in range(FRONT):
            if state[mine + k] >= least and not (skip_house and k == HOUSE):
                pairs[n, 0] = k
                pairs[n, 1] = CW
                pairs[n + 1, 0] = k
                pairs[n + 1, 1] = CCW
                n += 2
        return n, TAKASA
    n = mtaji_captures(state, p, pairs)
    duty = state[DUTY]
    if duty != NO_PIT and n > 0:
        kept = 0
        for i in range(n):
            if first_target(state, p, pairs[i, 0], pairs[i, 1]) == duty:
                kept += 1
        if kept > 0:
            kept = 0
            for i in range(n):
                if first_target(state, p, pairs[i, 0], pairs[i, 1]) == duty:
                    pairs[kept, 0] = pairs[i, 0]
                    pairs[kept, 1] = pairs[i, 1]
                    kept += 1
            n = kept
    if n > 0:
        return n, CAPTURE
    blocked = state[BLOCKED]
    front = 0
    house_in_front = False
    for k in range(FRONT):
        if state[mine + k] >= 2 and k != blocked:
            front += 1
            if k == HOUSE:
                house_in_front = True
    skip_house = (
        rules[R_HOUSE_KEPT] != 0
        and state[OWNED + p] != 0
        and house_in_front
        and not (front == 1 and house_in_front)
    )
    if skip_house:
        front -= 1
    first, last = (0, FRONT) if front > 0 else (FRONT, PITS)
    for k in range(first, last):
        if state[mine + k] >= 2 and (
            k >= FRONT or (k != blocked and not (skip_house and k == HOUSE))
        ):
            pairs[n, 0] = k
            pairs[n, 1] = CW
            pairs[n + 1, 0] = k
            pairs[n + 1, 1] = CCW
            n += 2
    return n, TAKASA


@njit(cache=True)
def _take(after: np.ndarray, player: int, target: int, ends_house: bool) -> int:
    """Capture the opponent's front pit `target` (their ring index); the seeds taken."""
    if ends_house:
        after[OWNED + player] = 0  # the owner's first mtaji capture ends the house (A3)
    theirs = (1 - player) * PITS
    seeds = after[theirs + target]
    after[theirs + target] = 0
    if target == HOUSE:
        after[OWNED + 1 - player] = 0
    return int(seeds)


@njit(cache=True)
def sow(
    state: np.ndarray,
    rules: np.ndarray,
    pit: int,
    direction: int,
    kind: int,
    safari: bool,
    after: np.ndarray,
    saved: np.ndarray,
    trace: np.ndarray,
    steps: np.ndarray,
) -> int:
    """Play one move from `state` into `after`: SOWN, SOWN_TO_HOUSE (a capture stopped in the
    functional house, or went on with `safari`), or why it is illegal, EMPTIES_FRONT_ROW (A6)
    or NEVER_ENDS (section 9). `saved` (STATE_SIZE) is scratch for the cycle check.

    With rows in `trace` (N x STATE_SIZE), the board after each step of the sowing is written
    into the next row and counted in `steps[0]`: the seeds lifted (or the namua seed laid and
    the capture taken), then each lap sown, and each capture; steps past N are counted only.
    An empty `trace` (0 rows) records nothing and leaves `steps` alone: the move generator
    passes a slice of no rows and its scratch, which costs nothing to make."""
    p = state[MOVER]
    o = 1 - p
    mine = p * PITS
    theirs = o * PITS
    for i in range(STATE_SIZE):
        after[i] = state[i]
    namua = state[STORE + p] > 0
    capture = kind == CAPTURE
    blocked = NO_PIT if namua or capture else state[BLOCKED]
    front = front_seeds(state, p)
    reached_house = False
    d = direction
    game_over = False
    house_counts = namua or rules[R_HOUSE_KEPT] != 0
    ends_house = not namua and house_counts
    house_seeds = rules[R_HOUSE_SEEDS]

    if namua:
        after[STORE + p] -= 1
        after[mine + pit] += 1
        front += 1
    if namua and capture:
        seeds = _take(after, p, 7 - pit, ends_house)
        # The captured seeds start in the kichwa itself: begin one pit before it.
        x = (0 if d == CW else 7) - d
        game_over = front_seeds(after, o) == 0
        if game_over:
            after[STORE + p] += seeds  # the winning capture stays in hand
    elif kind == TAX:
        after[mine + HOUSE] -= 2
        front -= 2
        seeds = 2
        x = HOUSE
        if after[mine + HOUSE] == 0:
            after[OWNED + p] = 0
    else:
        seeds = after[mine + pit]
        x = pit
        after[mine + pit] = 0
        if pit < FRONT:
            front -= seeds
        if pit == HOUSE:
            after[OWNED + p] = 0
    tracing = trace.shape[0] > 0
    if tracing:
        _step(after, trace, steps)
    laps = 0
    keep_at = CHECK_FROM_LAP
    have_saved = False
    while not game_over:
        for dropped in range(1, seeds + 1):
            x = (x + d) % PITS
            after[mine + x] += 1
            if x < FRONT:
                front += 1
            elif front == 0:
                if rules[R_EMPTYING_ILLEGAL] != 0:
                    return EMPTIES_FRONT_ROW
                # Bao hamna: the mover has emptied their own front row and lost; the seeds
                # still in hand go back to the store.
                after[STORE + p] += seeds - dropped
                game_over = True
                break
        if game_over:
            if tracing:
                _step(after, trace, steps)
            break
        end = x
        captures = after[mine + end] > 1 and capture and end < FRONT and after[theirs + 7 - end] > 0
        if tracing and not captures:
            _step(after, trace, steps)
        if after[mine + end] == 1:
            break
        if captures:
            seeds = _take(after, p, 7 - end, ends_house)
            if tracing:
                _step(after, trace, steps)
            if front_seeds(after, o) == 0:
                after[STORE + p] += seeds  # the winning capture stays in hand
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
            and after[OWNED + p] != 0
            and after[mine + HOUSE] >= house_seeds
        ):
            if not capture:
                break
            reached_house = True
            if not safari:
                break
        if end == blocked:
            break
        laps += 1
        if laps >= CHECK_FROM_LAP:
            if laps >= MAX_LAPS:
                return NO_END_IN_SIGHT
            # Brent: compare with the state kept at the last power of two, the mover's pits
            # first (the opponent's change only on a capture).
            if (
                have_saved
                and saved[PITS * 2 + 2] == end
                and saved[PITS * 2 + 3] == d
                and saved[PITS * 2] == after[OWNED]
                and saved[PITS * 2 + 1] == after[OWNED + 1]
            ):
                same = True
                for i in range(PITS * 2):
                    at = (mine + i) % (PITS * 2)
                    if saved[at] != after[at]:
                        same = False
                        break
                if same:
                    return NEVER_ENDS
            if laps == keep_at:
                for i in range(PITS * 2):
                    saved[i] = after[i]
                saved[PITS * 2] = after[OWNED]
                saved[PITS * 2 + 1] = after[OWNED + 1]
                saved[PITS * 2 + 2] = end
                saved[PITS * 2 + 3] = d
                have_saved = True
                keep_at *= 2
        seeds = after[mine + end]
        after[mine + end] = 0
        if end < FRONT:
            front -= seeds
        if end == HOUSE:
            after[OWNED + p] = 0
        x = end
    after[MOVER] = o
    after[BLOCKED] = NO_PIT
    after[PLY] = state[PLY] + 1
    after[DUTY] = NO_PIT
    if not namua and not capture and rules[R_TAKASIA] != 0 and rules[R_KUJIFUNZA] == 0:
        after[BLOCKED] = takasia(after, rules)
    if (
        rules[R_BINDS_BLOCKER] != 0
        and state[BLOCKED] != NO_PIT
        and after[BLOCKED] == NO_PIT
        and not game_over
        and _can_take(after, o, state[BLOCKED])
    ):
        after[DUTY] = state[BLOCKED]
    return SOWN_TO_HOUSE if reached_house else SOWN


@njit(cache=True)
def _step(after: np.ndarray, trace: np.ndarray, steps: np.ndarray) -> None:
    """Keep the board as it is now as the next step of a traced sowing."""
    k = steps[0]
    if k < trace.shape[0]:
        for i in range(STATE_SIZE):
            trace[k, i] = after[i]
    steps[0] = k + 1


@njit(cache=True)
def takasia(after: np.ndarray, rules: np.ndarray) -> int:
    """The pit of the side now to move that the takasa just played blocks (section 7)."""
    o = after[MOVER]
    p = 1 - o
    theirs = o * PITS
    if front_seeds(after, o) == 0 or front_seeds(after, p) == 0:
        return NO_PIT
    if rules[R_TAKASIA_NEEDS_NO_CAPTURE] != 0 and _has_capture(after, o):
        return NO_PIT
    count, target, same = _capture_targets(after, p)
    if count == 0 or not same:
        return NO_PIT
    if target == HOUSE and functional_house(after, o, rules):
        return NO_PIT
    occupied = 0
    twos = 0
    for k in range(FRONT):
        if after[theirs + k] > 0:
            occupied += 1
        if after[theirs + k] > 1:
            twos += 1
    seeds = after[theirs + target]
    if occupied == 1 and seeds > 0:
        return NO_PIT  # their only occupied front pit
    if twos == 1 and seeds > 1:
        return NO_PIT  # their only front pit of 2 or more
    if seeds == 1 and rules[R_TAKASIA_SINGLETONS] == 0:
        return NO_PIT
    return target


@njit(cache=True)
def legal_moves(
    state: np.ndarray,
    rules: np.ndarray,
    moves: np.ndarray,
    boards: np.ndarray,
    pairs: np.ndarray,
    saved: np.ndarray,
) -> int:
    """Write every legal move (pit, direction, safari) into `moves` and the board it leaves
    into `boards`, in a fixed order; return how many (0 when the game is over: a front row
    empty, no move, or the ply cap reached). `pairs` (MAX_MOVES x 2) and `saved`
    (STATE_SIZE) are scratch."""
    p = state[MOVER]
    if front_seeds(state, p) == 0 or front_seeds(state, 1 - p) == 0:
        return 0
    if state[PLY] >= rules[R_PLY_CAP]:
        return 0
    starts, kind = move_starts(state, rules, pairs)
    n = 0
    for i in range(starts):
        pit = pairs[i, 0]
        direction = pairs[i, 1]
        status = sow(state, rules, pit, direction, kind, False, boards[n], saved, boards[:0], saved)
        if status >= EMPTIES_FRONT_ROW:
            continue
        moves[n, 0] = pit
        moves[n, 1] = direction
        moves[n, 2] = 0
        n += 1
        if status == SOWN_TO_HOUSE:
            status = sow(
                state, rules, pit, direction, kind, True, boards[n], saved, boards[:0], saved
            )
            if status < EMPTIES_FRONT_ROW:
                moves[n, 0] = pit
                moves[n, 1] = direction
                moves[n, 2] = 1
                n += 1
    return n


@njit(cache=True)
def perft(state: np.ndarray, rules: np.ndarray, depth: int) -> int:
    """Leaves of the move tree `depth` plies deep; finished games add nothing."""
    if depth == 0:
        return 1
    moves = np.empty((depth, MAX_MOVES, 3), dtype=np.int64)
    boards = np.empty((depth, MAX_MOVES, STATE_SIZE), dtype=np.int64)
    counts = np.zeros(depth, dtype=np.int64)
    nexts = np.zeros(depth, dtype=np.int64)
    pairs = np.empty((MAX_MOVES, 2), dtype=np.int64)
    saved = np.empty(STATE_SIZE, dtype=np.int64)
    counts[0] = legal_moves(state, rules, moves[0], boards[0], pairs, saved)
    if depth == 1:
        return int(counts[0])
    total = 0
    level = 0
    while level >= 0:
        if nexts[level] == counts[level]:
            level -= 1
            continue
        child = boards[level, nexts[level]]
        nexts[level] += 1
        if level + 2 == depth:
            total += legal_moves(child, rules, moves[level + 1], boards[level + 1], pairs, saved)
        else:
            level += 1
            counts[level] = legal_moves(child, rules, moves[level], boards[level], pairs, saved)
            nexts[level] = 0
    return total


@njit(cache=True)
def random_game(state: np.ndarray, rules: np.ndarray, seed: int) -> int:
    """Play uniformly random moves from `state` (changed in place) to the end of the game;
    return the plies played. A small linear congruential generator keeps the game the same
    compiled or run as Python."""
    moves = np.empty((MAX_MOVES, 3), dtype=np.int64)
    boards = np.empty((MAX_MOVES, STATE_SIZE), dtype=np.int64)
    pairs = np.empty((MAX_MOVES, 2), dtype=np.int64)
    saved = np.empty(STATE_SIZE, dtype=np.int64)
    rng = seed % 2147483648
    plies = 0
    while True:
        n = legal_moves(state, rules, moves, boards, pairs, saved)
        if n == 0:
            return plies
        rng = (rng * 1103515245 + 12345) % 2147483648
        chosen = (rng >> 16) % n
        for i in range(STATE_SIZE):
            state[i] = boards[chosen, i]
        plies += 1
