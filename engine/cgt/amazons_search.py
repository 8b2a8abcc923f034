"""Numba kernels behind the Amazons region solver: region keys, moves and their followers, and
the depth-first search that lists every region position reachable from a region.

A region position is stored once, under its canonical key (engine.amazons.regions: `width,
height`, then one byte a cell of the bounding box, 0 burnt, 1 empty, 2 white, 3 black, least
over the 8 symmetries), or rather under the lesser of that key and the key of the region with
its colours swapped, which is worth minus as much. Every reference to a stored position says
which of the two it means.

The search keeps its state in plain arrays owned by the caller (`engine.cgt.amazons`), so it
can stop to ask for bigger arrays, to hand over finished positions or to let the caller look at
the clock, and then carry on where it stopped:

- `nodes[n]`: one row per stored position: where its key sits in `arena`, its kind (contested,
  or settled: amazons of one colour only), its state (new, open on the stack, done), a settled
  position's integer value, and where its options sit in `options`.
- `options[f]`: one row per option of a contested position: the integer part of its value and
  where the list of its contested components sits in `parts` (each part a node n, as 2n, or as
  2n + 1 for the negative of n). The value of the option is the integer plus the parts.
- `slots`: an open-addressing hash table from keys to nodes.
- `frames`, `boards`, `moves`: the search stack.
- `finished`: contested positions whose options are complete, children before parents, for the
  caller to turn into canonical forms.

Settled positions are valued here: an integer, the most moves their owner can make there (each
move fills exactly one more square, so the search of a settled position stops as soon as one
line of play fills every empty square).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Cell codes, as in keys.
BURNT = 0
EMPTY = 1
WHITE = 2
BLACK = 3

# Kinds of node.
CONTESTED = 0
SETTLED_BLACK = 1
SETTLED_WHITE = 2

# Node states.
NEW = 0
OPEN = 1
DONE = 2

# Columns of `nodes`.
N_KEY = 0  # offset of the key in the arena
N_LEN = 1  # key length
N_KIND = 2
N_STATE = 3
N_INT = 4  # a settled position's value (positive for black)
N_OPTIONS = 5  # first option
N_LEFT = 6  # how many left options
N_RIGHT = 7  # how many right options
N_EMPTY = 8  # empty squares
N_COLUMNS = 9

# Columns of `options`.
O_PARTS = 0  # offset in `parts`
O_COUNT = 1  # how many parts
O_INT = 2  # integer part of the value
O_COLUMNS = 3

# Columns of `frames`.
F_NODE = 0
F_PHASE = 1  # 0: moves to generate; 1: moves to play; 2: children to search
F_MOVES = 2  # first move in `moves`
F_SPLIT = 3  # first right move (contested)
F_END = 4  # one past the last move
F_NEXT = 5  # next move to play
F_BEST = 6  # settled: most moves found so far
F_OPTION = 7  # phase 2: next option to look at
F_PART = 8  # phase 2: next part of that option
F_STRIDE = 9
F_ROWS = 10
F_SWITCHED = 11  # contested: the right moves have begun
F_COLUMNS = 12

# Fields of `meta`.
M_NODES = 0
M_ARENA = 1
M_OPTIONS = 2
M_PARTS = 3
M_DEPTH = 4
M_FINISHED = 5
M_MOVES = 6
M_GENERATION = 7
M_STEPS = 8  # moves played by the search, ever
M_NEED_NODES = 9  # capacities asked for by NEED_ROOM
M_NEED_ARENA = 10
M_NEED_OPTIONS = 11
M_NEED_PARTS = 12
M_NEED_MOVES = 13
M_NEED_DEDUP = 14
M_NEED_FRAMES = 15
M_NEED_SLOTS = 16
M_SETTLED_DONE = 17  # settled positions valued, ever
META_SIZE = 18

# What `search` stopped for.
STACK_EMPTY = 0
NEED_ROOM = 1
FINISHED_FULL = 2
STEP_LIMIT = 3

# The 8 symmetries of the square, (x, y) -> (xx*x + xy*y, yx*x + yy*y), as in
# engine.amazons.regions.SYMMETRIES.
SYMMETRIES = np.array(
    [
        [1, 0, 0, 1],
        [0, -1, 1, 0],
        [-1, 0, 0, -1],
        [0, 1, -1, 0],
        [-1, 0, 0, 1],
        [1, 0, 0, -1],
        [0, 1, 1, 0],
        [0, -1, -1, 0],
    ],
    dtype=np.int64,
)

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True, inline="always")
def directions(stride: int) -> tuple[int, int, int, int, int, int, int, int]:
    return (1, -1, stride, -stride, stride + 1, -stride - 1, stride - 1, 1 - stride)


@njit(cache=True, inline="always")
def encode(origin: int, target: int, arrow: int) -> int:
    """As engine.amazons.kernels.encode, so moves on a position's board decode the same way."""
    return origin | (target << 10) | (arrow << 20)


@njit(cache=True)
def load_key(key: np.ndarray, offset: int, board: np.ndarray) -> tuple[int, int]:
    """Lay the region keyed at key[offset:] on a padded board (a ring of burnt squares);
    return its stride and number of rows."""
    width = int(key[offset])
    height = int(key[offset + 1])
    stride = width + 2
    rows = height + 2
    for i in range(stride * rows):
        board[i] = BURNT
    for y in range(height):
        for x in range(width):
            board[(y + 1) * stride + x + 1] = key[offset + 2 + y * width + x]
    return stride, rows


@njit(cache=True)
def count_moves(board: np.ndarray, stride: int, rows: int, piece: int) -> int:
    """Moves of the amazons coded `piece` (the arrow may cross or land on the vacated square)."""
    dirs = directions(stride)
    n = 0
    for origin in range(stride * rows):
        if board[origin] != piece:
            continue
        board[origin] = EMPTY
        for d in range(8):
            target = origin + dirs[d]
            while board[target] == EMPTY:
                for e in range(8):
                    arrow = target + dirs[e]
                    while board[arrow] == EMPTY:
                        n += 1
                        arrow += dirs[e]
                target += dirs[d]
        board[origin] = piece
    return n


@njit(cache=True)
def generate_moves(
    board: np.ndarray, stride: int, rows: int, piece: int, out: np.ndarray, at: int
) -> int:
    """Write the moves of the amazons coded `piece` to out[at:]; return where they end."""
    dirs = directions(stride)
    n = at
    for origin in range(stride * rows):
        if board[origin] != piece:
            continue
        board[origin] = EMPTY
        for d in range(8):
            target = origin + dirs[d]
            while board[target] == EMPTY:
                for e in range(8):
                    arrow = target + dirs[e]
                    while board[arrow] == EMPTY:
                        out[n] = encode(origin, target, arrow)
                        n += 1
                        arrow += dirs[e]
                target += dirs[d]
        board[origin] = piece
    return n


@njit(cache=True, inline="always")
def play(board: np.ndarray, move: int) -> None:
    origin = move & 1023
    target = (move >> 10) & 1023
    arrow = move >> 20
    piece = board[origin]
    board[origin] = EMPTY
    board[target] = piece
    board[arrow] = BURNT


@njit(cache=True)
def split(
    board: np.ndarray,
    stride: int,
    rows: int,
    labels: np.ndarray,
    cells: np.ndarray,
    starts: np.ndarray,
) -> int:
    """The 8-connected components of the board's unburnt squares: component i is
    cells[starts[i]:starts[i + 1]]; return how many there are."""
    dirs = directions(stride)
    size = stride * rows
    for i in range(size):
        labels[i] = -1
    count = 0
    top = 0
    for start in range(size):
        if board[start] == BURNT or labels[start] >= 0:
            continue
        starts[count] = top
        labels[start] = count
        cells[top] = start
        top += 1
        read = starts[count]
        while read < top:
            sq = cells[read]
            read += 1
            for d in range(8):
                nb = sq + dirs[d]
                if board[nb] != BURNT and labels[nb] < 0:
                    labels[nb] = count
                    cells[top] = nb
                    top += 1
        count += 1
    starts[count] = top
    return count


@njit(cache=True)
def region_key(
    board: np.ndarray,
    stride: int,
    cells: np.ndarray,
    first: int,
    last: int,
    grid: np.ndarray,
    candidate: np.ndarray,
    out: np.ndarray,
    at: int,
    swaps: bool,
) -> tuple[int, bool]:
    """Write the canonical key of the region made of cells[first:last] to out[at:]: the least
    over the 8 symmetries, and, when `swaps`, also over the colour swap. Return its length and
    whether the least key is the swapped one (strictly less than every unswapped one)."""
    x0 = 1 << 30
    y0 = 1 << 30
    x1 = -1
    y1 = -1
    for k in range(first, last):
        y = cells[k] // stride
        x = cells[k] % stride
        x0 = min(x0, x)
        x1 = max(x1, x)
        y0 = min(y0, y)
        y1 = max(y1, y)
    width = x1 - x0 + 1
    height = y1 - y0 + 1
    area = width * height
    for i in range(area):
        grid[i] = BURNT
    for k in range(first, last):
        y = cells[k] // stride
        x = cells[k] % stride
        grid[(y - y0) * width + x - x0] = board[cells[k]]
    length = 2 + area
    have = False
    swapped = False
    for s in range(8):
        xx = SYMMETRIES[s, 0]
        xy = SYMMETRIES[s, 1]
        yx = SYMMETRIES[s, 2]
        yy = SYMMETRIES[s, 3]
        w2 = width if xy == 0 else height
        h2 = height if xy == 0 else width
        if have and w2 > out[at]:
            continue  # wider than the best key: greater from its first byte
        mx = min(0, xx * (width - 1)) + min(0, xy * (height - 1))
        my = min(0, yx * (width - 1)) + min(0, yy * (height - 1))
        candidate[0] = w2
        candidate[1] = h2
        for y in range(height):
            for x in range(width):
                tx = xx * x + xy * y - mx
                ty = yx * x + yy * y - my
                candidate[2 + ty * w2 + tx] = grid[y * width + x]
        for colours in range(2 if swaps else 1):
            order = 0
            if have:
                for i in range(length):
                    c = candidate[i]
                    if colours == 1 and i >= 2 and c >= WHITE:
                        c = 5 - c
                    b = out[at + i]
                    if c != b:
                        order = -1 if c < b else 1
                        break
            # On a tie an unswapped key wins, so `swapped` means strictly less.
            if not have or order < 0 or (order == 0 and swapped and colours == 0):
                for i in range(length):
                    c = candidate[i]
                    if colours == 1 and i >= 2 and c >= WHITE:
                        c = 5 - c
                    out[at + i] = c
                swapped = colours == 1
                have = True
    return length, swapped


@njit(cache=True)
def hash_bytes(data: np.ndarray, at: int, length: int) -> np.uint64:
    h = _FNV_OFFSET
    for i in range(at, at + length):
        h = (h ^ np.uint64(data[i])) * _FNV_PRIME
    return h


@njit(cache=True)
def find(
    key: np.ndarray,
    at: int,
    length: int,
    nodes: np.ndarray,
    arena: np.ndarray,
    slots: np.ndarray,
) -> tuple[int, int]:
    """(node, -1) for the stored key at key[at:at + length], or (-1, slot) with the free slot
    where it belongs."""
    mask = np.uint64(slots.shape[0] - 1)
    i = int(np.int64(hash_bytes(key, at, length) & mask))
    while True:
        n = int(slots[i]) - 1
        if n < 0:
            return -1, i
        if nodes[n, N_LEN] == length:
            offset = nodes[n, N_KEY]
            same = True
            for k in range(length):
                if arena[offset + k] != key[at + k]:
                    same = False
                    break
            if same:
                return n, -1
        i = (i + 1) & (slots.shape[0] - 1)


@njit(cache=True)
def add_node(
    key: np.ndarray,
    at: int,
    length: int,
    slot: int,
    meta: np.ndarray,
    nodes: np.ndarray,
    arena: np.ndarray,
    slots: np.ndarray,
) -> int:
    """Store a new key (its free slot found by `find`); return its node."""
    n = int(meta[M_NODES])
    offset = meta[M_ARENA]
    whites = 0
    blacks = 0
    empties = 0
    for k in range(length):
        c = key[at + k]
        arena[offset + k] = c
        if k >= 2:
            if c == WHITE:
                whites += 1
            elif c == BLACK:
                blacks += 1
            elif c == EMPTY:
                empties += 1
    nodes[n, N_KEY] = offset
    nodes[n, N_LEN] = length
    if whites and blacks:
        nodes[n, N_KIND] = CONTESTED
    elif blacks:
        nodes[n, N_KIND] = SETTLED_BLACK
    else:
        nodes[n, N_KIND] = SETTLED_WHITE
    nodes[n, N_STATE] = NEW
    nodes[n, N_INT] = 0
    nodes[n, N_OPTIONS] = 0
    nodes[n, N_LEFT] = 0
    nodes[n, N_RIGHT] = 0
    nodes[n, N_EMPTY] = empties
    slots[slot] = n + 1
    meta[M_NODES] = n + 1
    meta[M_ARENA] = offset + length
    return n


@njit(cache=True)
def intern(
    key: np.ndarray,
    meta: np.ndarray,
    nodes: np.ndarray,
    arena: np.ndarray,
    slots: np.ndarray,
) -> int:
    """The node of a stored key (the whole of `key`), added if new. The caller makes room."""
    n, slot = find(key, 0, key.shape[0], nodes, arena, slots)
    if n >= 0:
        return n
    return add_node(key, 0, key.shape[0], slot, meta, nodes, arena, slots)


@njit(cache=True)
def rehash(nodes: np.ndarray, count: int, arena: np.ndarray, slots: np.ndarray) -> None:
    """Fill an empty, bigger `slots` with the first `count` nodes."""
    mask = np.uint64(slots.shape[0] - 1)
    for n in range(count):
        i = np.int64(hash_bytes(arena, nodes[n, N_KEY], nodes[n, N_LEN]) & mask)
        while slots[i] != 0:
            i = (i + 1) & (slots.shape[0] - 1)
        slots[i] = n + 1


@njit(cache=True)
def components(
    board: np.ndarray,
    stride: int,
    rows: int,
    labels: np.ndarray,
    cells: np.ndarray,
    starts: np.ndarray,
    grid: np.ndarray,
    candidate: np.ndarray,
    keys: np.ndarray,
    found: np.ndarray,
) -> int:
    """The regions of a board that can still matter (an amazon and an empty square): for each,
    found[i] = (offset of its stored key in `keys`, length, 1 if that key is the colour-swapped
    one, first cell index in `cells`, one past the last). Return how many."""
    count = split(board, stride, rows, labels, cells, starts)
    n = 0
    at = 0
    for c in range(count):
        amazons = 0
        empties = 0
        for k in range(starts[c], starts[c + 1]):
            v = board[cells[k]]
            if v == EMPTY:
                empties += 1
            elif v != BURNT:
                amazons += 1
        if amazons == 0 or empties == 0:
            continue
        length, swapped = region_key(
            board, stride, cells, starts[c], starts[c + 1], grid, candidate, keys, at, True
        )
        found[n, 0] = at
        found[n, 1] = length
        found[n, 2] = 1 if swapped else 0
        found[n, 3] = starts[c]
        found[n, 4] = starts[c + 1]
        at += length
        n += 1
    return n


@njit(cache=True)
def _push(
    node: int,
    meta: np.ndarray,
    nodes: np.ndarray,
    arena: np.ndarray,
    frames: np.ndarray,
    boards: np.ndarray,
) -> None:
    d = meta[M_DEPTH]
    stride, rows = load_key(arena, nodes[node, N_KEY], boards[d])
    for k in range(F_COLUMNS):
        frames[d, k] = 0
    frames[d, F_NODE] = node
    frames[d, F_STRIDE] = stride
    frames[d, F_ROWS] = rows
    nodes[node, N_STATE] = OPEN
    meta[M_DEPTH] = d + 1


@njit(cache=True)
def push(
    node: int,
    meta: np.ndarray,
    nodes: np.ndarray,
    arena: np.ndarray,
    frames: np.ndarray,
    boards: np.ndarray,
) -> None:
    """Put a new node on the empty search stack."""
    _push(node, meta, nodes, arena, frames, boards)


@njit(cache=True)
def _same_parts(parts: np.ndarray, at: int, mine: np.ndarray, count: int) -> bool:
    k = 0
    while k < count and parts[at + k] == mine[k]:
        k += 1
    return k == count


@njit(cache=True)
def search(
    meta: np.ndarray,
    nodes: np.ndarray,
    arena: np.ndarray,
    slots: np.ndarray,
    options: np.ndarray,
    parts: np.ndarray,
    frames: np.ndarray,
    boards: np.ndarray,
    moves: np.ndarray,
    dedup: np.ndarray,
    finished: np.ndarray,
    work: np.ndarray,
    scratch: np.ndarray,
    keys: np.ndarray,
    found: np.ndarray,
    max_steps: int,
) -> int:
    """Run the search on the stack until it is empty (STACK_EMPTY) or it must stop: for more
    room (NEED_ROOM, with the capacities it needs in meta), because `finished` is full
    (FINISHED_FULL) or after `max_steps` moves (STEP_LIMIT). Calling again carries on.

    `dedup` (two rows: option, generation) finds a contested position's options with the same
    parts, of which only the best integer is kept: for Left the largest, for Right the least.
    `work` is a board; `scratch` rows are labels, cells, starts, grid, candidate and parts."""
    labels = scratch[0]
    cells = scratch[1]
    starts = scratch[2]
    grid = scratch[3]
    candidate = scratch[4]
    mine = scratch[5]
    steps = 0
    # Room one move may need: a node per square, each with a key of the board's size.
    board_size = boards.shape[1]
    while meta[M_DEPTH] > 0:
        if steps >= max_steps:
            return STEP_LIMIT
        d = meta[M_DEPTH] - 1
        node = frames[d, F_NODE]
        kind = nodes[node, N_KIND]
        stride = frames[d, F_STRIDE]
        rows = frames[d, F_ROWS]
        board = boards[d]
        phase = frames[d, F_PHASE]
        if phase == 0:
            if kind == CONTESTED:
                n_left = count_moves(board, stride, rows, BLACK)
                n_right = count_moves(board, stride, rows, WHITE)
            elif kind == SETTLED_BLACK:
                n_left = count_moves(board, stride, rows, BLACK)
                n_right = 0
            else:
                n_left = 0
                n_right = count_moves(board, stride, rows, WHITE)
            total = n_left + n_right
            # An option has at most one contested part per amazon of the scarcer colour.
            most_parts = 1
            if kind == CONTESTED:
                whites = 0
                blacks = 0
                for k in range(stride * rows):
                    if board[k] == WHITE:
                        whites += 1
                    elif board[k] == BLACK:
                        blacks += 1
                most_parts = min(whites, blacks)
            top = meta[M_MOVES]
            need = False
            if top + total > moves.shape[0]:
                meta[M_NEED_MOVES] = top + total
                need = True
            if kind == CONTESTED:
                if meta[M_OPTIONS] + total > options.shape[0]:
                    meta[M_NEED_OPTIONS] = meta[M_OPTIONS] + total
                    need = True
                if meta[M_PARTS] + total * most_parts > parts.shape[0]:
                    meta[M_NEED_PARTS] = meta[M_PARTS] + total * most_parts
                    need = True
                if 2 * max(n_left, n_right) > dedup.shape[1]:
                    meta[M_NEED_DEDUP] = 2 * max(n_left, n_right)
                    need = True
            if need:
                return NEED_ROOM
            end = top
            if kind != SETTLED_WHITE:
                end = generate_moves(board, stride, rows, BLACK, moves, end)
            split_at = end
            if kind != SETTLED_BLACK:
                end = generate_moves(board, stride, rows, WHITE, moves, end)
            meta[M_MOVES] = end
            frames[d, F_MOVES] = top
            frames[d, F_SPLIT] = split_at
            frames[d, F_END] = end
            frames[d, F_NEXT] = top
            frames[d, F_BEST] = 0
            if kind == CONTESTED:
                nodes[node, N_OPTIONS] = meta[M_OPTIONS]
                meta[M_GENERATION] += 1
            frames[d, F_PHASE] = 1
            continue
        if phase == 1:
            i = frames[d, F_NEXT]
            end = frames[d, F_END]
            if kind != CONTESTED:
                if i == end or frames[d, F_BEST] == nodes[node, N_EMPTY]:
                    best = frames[d, F_BEST]
                    nodes[node, N_INT] = best if kind == SETTLED_BLACK else -best
                    nodes[node, N_STATE] = DONE
                    meta[M_SETTLED_DONE] += 1
                    meta[M_MOVES] = frames[d, F_MOVES]
                    meta[M_DEPTH] = d
                    continue
            elif i == end:
                first = nodes[node, N_OPTIONS]
                if frames[d, F_SWITCHED] == 0:
                    nodes[node, N_LEFT] = meta[M_OPTIONS] - first
                nodes[node, N_RIGHT] = meta[M_OPTIONS] - first - nodes[node, N_LEFT]
                meta[M_MOVES] = frames[d, F_MOVES]
                frames[d, F_PHASE] = 2
                frames[d, F_OPTION] = first
                frames[d, F_PART] = 0
                continue
            elif i >= frames[d, F_SPLIT] and frames[d, F_SWITCHED] == 0:
                nodes[node, N_LEFT] = meta[M_OPTIONS] - nodes[node, N_OPTIONS]
                frames[d, F_SWITCHED] = 1
                meta[M_GENERATION] += 1
            # Room for the positions this move may add.
            squares = nodes[node, N_LEN] - 2
            if meta[M_NODES] + squares > nodes.shape[0]:
                meta[M_NEED_NODES] = meta[M_NODES] + squares
                return NEED_ROOM
            if 2 * (meta[M_NODES] + squares) > slots.shape[0]:
                meta[M_NEED_SLOTS] = 2 * (meta[M_NODES] + squares)
                return NEED_ROOM
            if meta[M_ARENA] + squares * (board_size + 2) > arena.shape[0]:
                meta[M_NEED_ARENA] = meta[M_ARENA] + squares * (board_size + 2)
                return NEED_ROOM
            if d + 2 > frames.shape[0]:
                meta[M_NEED_FRAMES] = d + 2
                return NEED_ROOM
            move = moves[i]
            size = stride * rows
            for k in range(size):
                work[k] = board[k]
            play(work, move)
            count = components(
                work, stride, rows, labels, cells, starts, grid, candidate, keys, found
            )
            integer = 0
            n_parts = 0
            suspended = False
            for c in range(count):
                at = found[c, 0]
                length = found[c, 1]
                child, slot = find(keys, at, length, nodes, arena, slots)
                if child < 0:
                    child = add_node(keys, at, length, slot, meta, nodes, arena, slots)
                negative = found[c, 2] == 1
                if nodes[child, N_KIND] == CONTESTED:
                    mine[n_parts] = 2 * child + (1 if negative else 0)
                    n_parts += 1
                elif nodes[child, N_STATE] == DONE:
                    integer += -nodes[child, N_INT] if negative else nodes[child, N_INT]
                else:
                    # Value the settled region first, then play this move again.
                    _push(child, meta, nodes, arena, frames, boards)
                    suspended = True
                    break
            if suspended:
                continue
            steps += 1
            meta[M_STEPS] += 1
            frames[d, F_NEXT] = i + 1
            if kind != CONTESTED:
                moved = 1 + (integer if kind == SETTLED_BLACK else -integer)
                if moved > frames[d, F_BEST]:
                    frames[d, F_BEST] = moved
                continue
            left = i < frames[d, F_SPLIT]
            # Parts in order, so equal sums look equal.
            for a in range(1, n_parts):
                v = mine[a]
                b = a - 1
                while b >= 0 and mine[b] > v:
                    mine[b + 1] = mine[b]
                    b -= 1
                mine[b + 1] = v
            h = np.uint64(n_parts)
            for a in range(n_parts):
                h = (h ^ np.uint64(mine[a])) * _FNV_PRIME
            mask = dedup.shape[1] - 1
            s = np.int64(h & np.uint64(mask))
            generation = meta[M_GENERATION]
            while True:
                if dedup[1, s] != generation:
                    f = meta[M_OPTIONS]
                    p = meta[M_PARTS]
                    options[f, O_PARTS] = p
                    options[f, O_COUNT] = n_parts
                    options[f, O_INT] = integer
                    for a in range(n_parts):
                        parts[p + a] = mine[a]
                    meta[M_OPTIONS] = f + 1
                    meta[M_PARTS] = p + n_parts
                    dedup[0, s] = f
                    dedup[1, s] = generation
                    break
                f = dedup[0, s]
                if options[f, O_COUNT] == n_parts and _same_parts(
                    parts, options[f, O_PARTS], mine, n_parts
                ):
                    if (integer > options[f, O_INT]) if left else (integer < options[f, O_INT]):
                        options[f, O_INT] = integer
                    break
                s = (s + 1) & mask
            continue
        # Phase 2: search the contested children not searched yet, then hand the node over.
        first = nodes[node, N_OPTIONS]
        last = first + nodes[node, N_LEFT] + nodes[node, N_RIGHT]
        f = frames[d, F_OPTION]
        k = frames[d, F_PART]
        pushed = False
        while f < last:
            at = options[f, O_PARTS]
            while k < options[f, O_COUNT]:
                child = parts[at + k] >> 1
                k += 1
                if nodes[child, N_STATE] == NEW:
                    if d + 2 > frames.shape[0]:
                        meta[M_NEED_FRAMES] = d + 2
                        return NEED_ROOM
                    frames[d, F_OPTION] = f
                    frames[d, F_PART] = k
                    _push(child, meta, nodes, arena, frames, boards)
                    pushed = True
                    break
            if pushed:
                break
            f += 1
            k = 0
        if pushed:
            continue
        if meta[M_FINISHED] >= finished.shape[0]:
            frames[d, F_OPTION] = f
            frames[d, F_PART] = 0
            return FINISHED_FULL
        finished[meta[M_FINISHED]] = node
        meta[M_FINISHED] += 1
        nodes[node, N_STATE] = DONE
        meta[M_DEPTH] = d
    return STACK_EMPTY


@njit(cache=True)
def move_followers(
    board: np.ndarray,
    stride: int,
    rows: int,
    moves: np.ndarray,
    start: int,
    work: np.ndarray,
    scratch: np.ndarray,
    keys: np.ndarray,
    found: np.ndarray,
    out_keys: np.ndarray,
    out_parts: np.ndarray,
) -> tuple[int, int]:
    """For moves[start:], while out_keys and out_parts have room: the regions that matter in
    the region the move is played in, after it. out_parts[j] = (offset of a key in out_keys,
    its length, 1 if it is the colour-swapped key, index of the move). Return the first move
    not done and how many parts were written."""
    labels = scratch[0]
    cells = scratch[1]
    starts = scratch[2]
    grid = scratch[3]
    candidate = scratch[4]
    region = scratch[5]
    size = stride * rows
    split(board, stride, rows, region, cells, starts)
    n_parts = 0
    at = 0
    for i in range(start, moves.shape[0]):
        move = moves[i]
        label = region[move & 1023]
        for k in range(size):
            work[k] = board[k] if region[k] == label else BURNT
        play(work, move)
        count = components(work, stride, rows, labels, cells, starts, grid, candidate, keys, found)
        room = 0
        for c in range(count):
            room += found[c, 1]
        if at + room > out_keys.shape[0] or n_parts + count > out_parts.shape[0]:
            return i, n_parts
        for c in range(count):
            length = found[c, 1]
            for b in range(length):
                out_keys[at + b] = keys[found[c, 0] + b]
            out_parts[n_parts, 0] = at
            out_parts[n_parts, 1] = length
            out_parts[n_parts, 2] = found[c, 2]
            out_parts[n_parts, 3] = i
            at += length
            n_parts += 1
    return moves.shape[0], n_parts


@njit(cache=True)
def successors(
    board: np.ndarray, stride: int, rows: int, moves: np.ndarray, out: np.ndarray
) -> int:
    """Every board one move away, for either player: out[j] is the j-th; return how many
    (out sized by count_moves of both colours)."""
    n = generate_moves(board, stride, rows, BLACK, moves, 0)
    n = generate_moves(board, stride, rows, WHITE, moves, n)
    size = stride * rows
    for i in range(n):
        for k in range(size):
            out[i, k] = board[k]
        play(out[i], moves[i])
    return n
