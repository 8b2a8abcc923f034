"""Numba kernels for Amazons: move generation, counting, make/unmake, hashing, playouts, perft.

A position lives in five flat arrays (see `engine.amazons.board`): `board` (one int8 per square of a
grid padded with a ring of burnt squares), `mob` (for every empty square, how many empty squares a
queen on it sees), `amazons` (square indices by side), `meta` (side to move, hash, ply, stride,
amazon counts) and `zob` (Zobrist keys). Moves are ints: origin | target << 10 | arrow << 20.
"""

from __future__ import annotations

import numpy as np

from engine.jit import bit_scans, njit

trailing_zeros, leading_zeros = bit_scans()

EMPTY = 0
WHITE = 1
BLACK = 2
ARROW = 3

SIDE = 0
HASH = 1
PLY = 2
STRIDE = 3
COUNT = 4  # meta[COUNT + side] is the number of amazons of that side

SQUARE_BITS = 10
SQUARE_MASK = (1 << SQUARE_BITS) - 1


@njit(cache=True, inline="always")
def encode(origin: int, target: int, arrow: int) -> int:
    return origin | (target << 10) | (arrow << 20)


@njit(cache=True, inline="always")
def directions(stride: int) -> tuple[int, int, int, int, int, int, int, int]:
    # Pairs (2k, 2k + 1) are opposite; the even ones are the four axes.
    return (1, -1, stride, -stride, stride + 1, -stride - 1, stride - 1, 1 - stride)


@njit(cache=True, inline="always")
def _relink_line(board: np.ndarray, mob: np.ndarray, sq: int, step: int, sign: int) -> int:
    """The empty runs either side of sq along `step` join through it (sign +1: sq was just
    emptied) or split apart (sign -1: sq is about to be filled); each side gains or loses the
    other side and sq. Return how many squares of this line sq sees."""
    right = 0
    p = sq + step
    while board[p] == EMPTY:
        right += 1
        p += step
    left = 0
    p = sq - step
    while board[p] == EMPTY:
        mob[p] += sign * (right + 1)
        left += 1
        p -= step
    p = sq + step
    for _ in range(right):
        mob[p] += sign * (left + 1)
        p += step
    return left + right


@njit(cache=True, inline="always")
def _occupy(board: np.ndarray, mob: np.ndarray, sq: int, piece: int, stride: int) -> None:
    """Put `piece` on the empty square `sq`, cutting the empty lines through it."""
    for step in (1, stride, stride + 1, stride - 1):
        _relink_line(board, mob, sq, step, -1)
    board[sq] = piece
    mob[sq] = 0


@njit(cache=True, inline="always")
def _vacate(board: np.ndarray, mob: np.ndarray, sq: int, stride: int) -> None:
    """Empty the square `sq`, joining the empty lines through it."""
    board[sq] = EMPTY
    seen = 0
    for step in (1, stride, stride + 1, stride - 1):
        seen += _relink_line(board, mob, sq, step, 1)
    mob[sq] = seen


@njit(cache=True)
def queen_sight(board: np.ndarray, dirs: tuple[int, ...], sq: int, empty: int) -> int:
    """How many squares coded `empty` a queen on `sq` sees."""
    seen = 0
    for d in range(8):
        p = sq + dirs[d]
        while board[p] == empty:
            seen += 1
            p += dirs[d]
    return seen


@njit(cache=True)
def amazon_moves(
    board: np.ndarray, dirs: tuple[int, ...], origin: int, empty: int, out: np.ndarray, n: int
) -> int:
    """Write to out[n:] the moves of the amazon on `origin`, a square the caller has emptied
    (the arrow may cross it or land on it), and return where they end. Squares coded `empty`
    are free: the engine's boards and the region solver's (engine.cgt.amazons_search) code
    them differently. Order: directions, then distance; arrows likewise."""
    for d in range(8):
        target = origin + dirs[d]
        while board[target] == empty:
            for e in range(8):
                arrow = target + dirs[e]
                while board[arrow] == empty:
                    out[n] = encode(origin, target, arrow)
                    n += 1
                    arrow += dirs[e]
            target += dirs[d]
    return n


@njit(cache=True)
def amazon_move_count(board: np.ndarray, dirs: tuple[int, ...], origin: int, empty: int) -> int:
    """How many moves amazon_moves writes, counted without a mobility map."""
    n = 0
    for d in range(8):
        target = origin + dirs[d]
        while board[target] == empty:
            n += queen_sight(board, dirs, target, empty)
            target += dirs[d]
    return n


@njit(cache=True)
def compute_mobility(board: np.ndarray, mob: np.ndarray, stride: int) -> None:
    """Fill `mob` from scratch: for each empty square, the empty squares a queen there sees."""
    dirs = directions(stride)
    for sq in range(board.shape[0]):
        mob[sq] = queen_sight(board, dirs, sq, EMPTY) if board[sq] == EMPTY else 0


@njit(cache=True)
def zobrist_hash(board: np.ndarray, side: int, zob: np.ndarray) -> int:
    h = 0
    for sq in range(board.shape[0]):
        piece = board[sq]
        if piece != EMPTY:
            h ^= zob[piece, sq]
    if side == 1:
        h ^= zob[EMPTY, 0]
    return h


@njit(cache=True)
def make_move(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    move: int,
) -> None:
    """Play a legal move for the side to move (no checks: callers validate)."""
    side = meta[SIDE]
    stride = meta[STRIDE]
    piece = side + 1
    origin = move & SQUARE_MASK
    target = (move >> 10) & SQUARE_MASK
    arrow = move >> 20
    for i in range(meta[COUNT + side]):
        if amazons[side, i] == origin:
            amazons[side, i] = target
            break
    _vacate(board, mob, origin, stride)
    _occupy(board, mob, target, piece, stride)
    _occupy(board, mob, arrow, ARROW, stride)
    meta[HASH] ^= zob[piece, origin] ^ zob[piece, target] ^ zob[ARROW, arrow] ^ zob[EMPTY, 0]
    meta[SIDE] = 1 - side
    meta[PLY] += 1


@njit(cache=True)
def unmake_move(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    move: int,
) -> None:
    """Take back `move`, the last move played."""
    side = 1 - meta[SIDE]
    stride = meta[STRIDE]
    piece = side + 1
    origin = move & SQUARE_MASK
    target = (move >> 10) & SQUARE_MASK
    arrow = move >> 20
    for i in range(meta[COUNT + side]):
        if amazons[side, i] == target:
            amazons[side, i] = origin
            break
    _vacate(board, mob, arrow, stride)
    _vacate(board, mob, target, stride)
    _occupy(board, mob, origin, piece, stride)
    meta[HASH] ^= zob[piece, origin] ^ zob[piece, target] ^ zob[ARROW, arrow] ^ zob[EMPTY, 0]
    meta[SIDE] = side
    meta[PLY] -= 1


@njit(cache=True, inline="always")
def _line_moves(board: np.ndarray, mob: np.ndarray, a: int, step: int) -> tuple[int, int]:
    """Moves of the amazon on `a` whose queen step goes along +step, and along -step.
    After a->d on this line the arrow sees mob[d] + 1 + (the empties behind a): d's run on this
    line gains a and what lies beyond it; d's other lines are unchanged."""
    k_fwd = 0
    s_fwd = 0
    p = a + step
    while board[p] == EMPTY:
        s_fwd += mob[p]
        k_fwd += 1
        p += step
    k_back = 0
    s_back = 0
    p = a - step
    while board[p] == EMPTY:
        s_back += mob[p]
        k_back += 1
        p -= step
    return s_fwd + k_fwd * (1 + k_back), s_back + k_back * (1 + k_fwd)


@njit(cache=True, inline="always")
def _amazon_move_count(board: np.ndarray, mob: np.ndarray, a: int, stride: int) -> int:
    """Moves of the amazon on `a`."""
    total = 0
    for step in (1, stride, stride + 1, stride - 1):
        fwd, back = _line_moves(board, mob, a, step)
        total += fwd + back
    return total


@njit(cache=True)
def count_moves(board: np.ndarray, mob: np.ndarray, amazons: np.ndarray, meta: np.ndarray) -> int:
    """Number of legal moves of the side to move, without listing them."""
    side = meta[SIDE]
    stride = meta[STRIDE]
    total = 0
    for i in range(meta[COUNT + side]):
        total += _amazon_move_count(board, mob, amazons[side, i], stride)
    return total


@njit(cache=True)
def generate_moves(
    board: np.ndarray, amazons: np.ndarray, meta: np.ndarray, out: np.ndarray
) -> int:
    """Write the legal moves of the side to move into `out` (sized by count_moves); return n.
    Order: amazons in list order, then directions, then distance; arrows likewise."""
    side = meta[SIDE]
    dirs = directions(meta[STRIDE])
    n = 0
    for i in range(meta[COUNT + side]):
        origin = amazons[side, i]
        piece = board[origin]
        board[origin] = EMPTY
        n = amazon_moves(board, dirs, origin, EMPTY, out, n)
        board[origin] = piece
    return n


@njit(cache=True, inline="always")
def _sign(x: int) -> int:
    if x > 0:
        return 1
    return -1 if x < 0 else 0


@njit(cache=True, inline="always")
def _line_is_clear(board: np.ndarray, stride: int, start: int, end: int, vacated: int) -> bool:
    """Whether a queen goes from `start` to `end` (padded indices of on-board squares) over
    empty squares, `vacated` counting as empty, and lands on an empty one."""
    rank_step = end // stride - start // stride
    file_step = end % stride - start % stride
    if rank_step == 0 and file_step == 0:
        return False
    if rank_step != 0 and file_step != 0 and abs(rank_step) != abs(file_step):
        return False
    step = _sign(rank_step) * stride + _sign(file_step)
    p = start
    while p != end:
        p += step
        if board[p] != EMPTY and p != vacated:
            return False
    return True


@njit(cache=True)
def is_legal(board: np.ndarray, meta: np.ndarray, origin: int, target: int, arrow: int) -> bool:
    """Whether the side to move may play origin-target/arrow (padded indices of on-board
    squares)."""
    stride = meta[STRIDE]
    return (
        board[origin] == meta[SIDE] + 1
        and _line_is_clear(board, stride, origin, target, -1)
        and _line_is_clear(board, stride, target, arrow, origin)
    )


@njit(cache=True)
def has_moves(board: np.ndarray, amazons: np.ndarray, meta: np.ndarray) -> bool:
    """True when the side to move has a legal move (an amazon with an empty neighbour)."""
    side = meta[SIDE]
    dirs = directions(meta[STRIDE])
    for i in range(meta[COUNT + side]):
        a = amazons[side, i]
        for d in range(8):
            if board[a + dirs[d]] == EMPTY:
                return True
    return False


@njit(cache=True)
def perft(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    depth: int,
) -> int:
    """Leaves of the move tree `depth` moves deep; games that end earlier add nothing."""
    if depth == 0:
        return 1
    if depth == 1:
        return count_moves(board, mob, amazons, meta)
    moves = np.empty(count_moves(board, mob, amazons, meta), dtype=np.int64)
    generate_moves(board, amazons, meta, moves)
    total = 0
    for i in range(moves.shape[0]):
        m = int(moves[i])
        make_move(board, mob, amazons, meta, zob, m)
        total += perft(board, mob, amazons, meta, zob, depth - 1)
        unmake_move(board, mob, amazons, meta, zob, m)
    return total


# Random numbers: xorshift64* over a one-element uint64 array, so that kernels are reproducible
# from a seed and independent of numpy's global generator.


@njit(cache=True, inline="always")
def next_random(rng: np.ndarray) -> np.uint64:
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return np.uint64(x * np.uint64(0x2545F4914F6CDD1D))


@njit(cache=True, inline="always")
def random_below(rng: np.ndarray, n: int) -> int:
    """Uniform integer in [0, n) (n < 2**40, so the modulo bias is below 2**-23)."""
    return int((next_random(rng) >> np.uint64(24)) % np.uint64(n))


@njit(cache=True)
def ray_weights(
    board: np.ndarray, mob: np.ndarray, amazons: np.ndarray, meta: np.ndarray, weights: np.ndarray
) -> int:
    """Fill weights[8 * i + d] with the number of legal moves of the side to move's amazon i
    whose queen step goes in direction d; return the total (= count_moves)."""
    side = meta[SIDE]
    dirs = directions(meta[STRIDE])
    total = 0
    for i in range(meta[COUNT + side]):
        a = amazons[side, i]
        for axis in range(4):
            fwd, back = _line_moves(board, mob, a, dirs[2 * axis])
            weights[8 * i + 2 * axis] = fwd
            weights[8 * i + 2 * axis + 1] = back
            total += fwd + back
    return total


@njit(cache=True)
def nth_move(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    weights: np.ndarray,
    r: int,
) -> int:
    """The move of index `r` in [0, count_moves) in generation order, found without a move
    list from the weights that ray_weights just filled."""
    side = meta[SIDE]
    dirs = directions(meta[STRIDE])
    ray = 0
    while r >= weights[ray]:
        r -= weights[ray]
        ray += 1
    origin = amazons[side, ray // 8]
    step = dirs[ray % 8]
    behind = 0
    p = origin - step
    while board[p] == EMPTY:
        behind += 1
        p -= step
    target = origin + step
    while r >= mob[target] + 1 + behind:
        r -= mob[target] + 1 + behind
        target += step
    board[origin] = EMPTY
    for e in range(8):
        arrow = target + dirs[e]
        while board[arrow] == EMPTY:
            if r == 0:
                board[origin] = side + 1
                return encode(origin, target, arrow)
            r -= 1
            arrow += dirs[e]
    board[origin] = side + 1
    return -1  # unreachable while mob is consistent with the board


@njit(cache=True)
def random_move(
    board: np.ndarray, mob: np.ndarray, amazons: np.ndarray, meta: np.ndarray, rng: np.ndarray
) -> int:
    """A move drawn uniformly from the legal moves, or -1 when there is none."""
    weights = np.empty(8 * amazons.shape[1], dtype=np.int64)
    return draw_move(board, mob, amazons, meta, rng, weights)


@njit(cache=True, inline="always")
def draw_move(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    rng: np.ndarray,
    weights: np.ndarray,
) -> int:
    """As random_move, with the caller's scratch `weights` (8 per amazon slot)."""
    total = ray_weights(board, mob, amazons, meta, weights)
    if total == 0:
        return -1
    return nth_move(board, mob, amazons, meta, weights, random_below(rng, total))


# Random games. A playout needs neither the mobility map nor a move list: each line of the
# board (ranks, files and both diagonals, a wall bit either end) is one int64 of occupied bits,
# so the empty run either side of a square along a line is one bit scan. A move is drawn by
# rejection: an (amazon, queen step) pair uniformly, then an index below `bound` (at least any
# square's arrow count), kept when it is below the step's arrow count; the kept index is the
# arrow. Every move is then equally likely, as with draw_move, at a fraction of its cost: the
# mobility map's upkeep on each make_move was the larger part of a playout (docs/experiments.md).


@njit(cache=True)
def line_masks(
    board: np.ndarray, stride: int, line_of: np.ndarray, bit_of: np.ndarray, lines: np.ndarray
) -> None:
    """Fill line_of[sq, k] and bit_of[sq, k] (1, 2, ... along +step) with the line of each
    on-board square along axis k (steps 1, stride, stride + 1, stride - 1), and lines[line]
    with its occupied squares' bits and the two walls'. lines needs 4 * board.shape[0] slots."""
    height = board.shape[0] // stride - 2
    width = stride - 2
    n = 0
    for k, step in enumerate((1, stride, stride + 1, stride - 1)):
        for start in range(board.shape[0]):
            if not _on_board(start, stride, width, height) or _on_board(
                start - step, stride, width, height
            ):
                continue
            mask = 1
            bit = 1
            sq = start
            while _on_board(sq, stride, width, height):
                line_of[sq, k] = n
                bit_of[sq, k] = bit
                if board[sq] != EMPTY:
                    mask |= 1 << bit
                bit += 1
                sq += step
            lines[n] = mask | (1 << bit)
            n += 1


@njit(cache=True, inline="always")
def _on_board(sq: int, stride: int, width: int, height: int) -> bool:
    rank = sq // stride
    file = sq % stride
    return 1 <= rank <= height and 1 <= file <= width


@njit(cache=True, inline="always")
def _runs(
    lines: np.ndarray, line_of: np.ndarray, bit_of: np.ndarray, sq: int, k: int
) -> tuple[int, int]:
    """The empty squares next to sq along axis k: (towards +step, towards -step)."""
    mask = lines[line_of[sq, k]]
    bit = bit_of[sq, k]
    ahead = int(trailing_zeros(mask >> (bit + 1)))
    behind = bit - 64 + int(leading_zeros(mask & ((1 << bit) - 1)))
    return ahead, behind


@njit(cache=True, inline="always")
def flip_square(lines: np.ndarray, line_of: np.ndarray, bit_of: np.ndarray, sq: int) -> None:
    """Fill the empty square sq in its four lines, or empty the filled one."""
    for k in range(4):
        lines[line_of[sq, k]] ^= 1 << bit_of[sq, k]


@njit(cache=True, inline="always")
def _sight(
    lines: np.ndarray, line_of: np.ndarray, bit_of: np.ndarray, sq: int, rays: np.ndarray
) -> int:
    """Fill rays[2k], rays[2k + 1] with the empty runs from sq along axis k; return their sum
    (the empty squares a queen on sq sees)."""
    seen = 0
    for k in range(4):
        ahead, behind = _runs(lines, line_of, bit_of, sq, k)
        rays[2 * k] = ahead
        rays[2 * k + 1] = behind
        seen += ahead + behind
    return seen


@njit(cache=True, inline="always")
def _signed_step(steps: tuple[int, int, int, int], ray: int) -> int:
    """The step of ray 2k (+) or 2k + 1 (-) along axis k."""
    return steps[ray // 2] if ray % 2 == 0 else -steps[ray // 2]


@njit(cache=True, inline="always")
def _ray_square(sq: int, rays: np.ndarray, steps: tuple[int, int, int, int], r: int) -> int:
    """Square number r (from 0) of the runs from sq whose lengths rays holds, in ray order."""
    ray = 0
    while r >= rays[ray]:
        r -= rays[ray]
        ray += 1
    return int(sq + _signed_step(steps, ray) * (r + 1))


@njit(cache=True)
def sample_move(
    amazons: np.ndarray,
    meta: np.ndarray,
    rng: np.ndarray,
    lines: np.ndarray,
    line_of: np.ndarray,
    bit_of: np.ndarray,
    steps_of: np.ndarray,
    rays: np.ndarray,
    bound: int,
) -> int:
    """A move drawn uniformly from the legal moves of the side to move, or -1 when there is
    none, from the line masks; `bound` is at least the arrow count of any queen step,
    steps_of is scratch for 8 per amazon slot and rays for 8."""
    side = meta[SIDE]
    stride = meta[STRIDE]
    steps = (1, stride, stride + 1, stride - 1)
    count = meta[COUNT + side]
    total = 0
    for i in range(count):
        a = amazons[side, i]
        for k in range(4):
            ahead, behind = _runs(lines, line_of, bit_of, a, k)
            steps_of[8 * i + 2 * k] = ahead
            steps_of[8 * i + 2 * k + 1] = behind
            total += ahead + behind
    if total == 0:
        return -1
    # Up to `total` rejections (about what the exact count costs), then the exact count:
    # either way each move has the same chance.
    for _ in range(total):
        x = random_below(rng, total * bound)
        r = x // total
        j = x % total
        ray = 0
        while j >= steps_of[ray]:
            j -= steps_of[ray]
            ray += 1
        origin = amazons[side, ray // 8]
        target = origin + _signed_step(steps, ray % 8) * (j + 1)
        flip_square(lines, line_of, bit_of, origin)
        seen = _sight(lines, line_of, bit_of, target, rays)
        flip_square(lines, line_of, bit_of, origin)
        if r < seen:
            return encode(origin, target, _ray_square(target, rays, steps, r))
    total = 0
    r = -1
    for _ in range(2):  # count the moves, then find the drawn one
        for i in range(count):
            origin = amazons[side, i]
            flip_square(lines, line_of, bit_of, origin)
            for ray in range(8):
                step = _signed_step(steps, ray)
                for j in range(steps_of[8 * i + ray]):
                    target = origin + step * (j + 1)
                    seen = _sight(lines, line_of, bit_of, target, rays)
                    if r < 0:
                        total += seen
                    elif r < seen:
                        flip_square(lines, line_of, bit_of, origin)
                        return encode(origin, target, _ray_square(target, rays, steps, r))
                    else:
                        r -= seen
            flip_square(lines, line_of, bit_of, origin)
        r = random_below(rng, total)
    return -1  # unreachable: the second pass finds the move


@njit(cache=True, inline="always")
def play_on_lines(
    board: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    lines: np.ndarray,
    line_of: np.ndarray,
    bit_of: np.ndarray,
    move: int,
) -> None:
    """make_move for the line masks instead of the mobility map (left stale)."""
    side = meta[SIDE]
    piece = side + 1
    origin = move & SQUARE_MASK
    target = (move >> 10) & SQUARE_MASK
    arrow = move >> 20
    for i in range(meta[COUNT + side]):
        if amazons[side, i] == origin:
            amazons[side, i] = target
            break
    board[origin] = EMPTY
    board[target] = piece
    board[arrow] = ARROW
    flip_square(lines, line_of, bit_of, origin)
    flip_square(lines, line_of, bit_of, target)
    flip_square(lines, line_of, bit_of, arrow)
    meta[HASH] ^= zob[piece, origin] ^ zob[piece, target] ^ zob[ARROW, arrow] ^ zob[EMPTY, 0]
    meta[SIDE] = 1 - side
    meta[PLY] += 1


@njit(cache=True, inline="always")
def empty_sight(board: np.ndarray, stride: int) -> int:
    """The most squares a queen sees on this board emptied."""
    width = stride - 2
    height = len(board) // stride - 2
    return width + height - 2 + 2 * (min(width, height) - 1)


@njit(cache=True, inline="always")
def empty_squares(board: np.ndarray) -> int:
    empty = 0
    for sq in range(board.shape[0]):
        if board[sq] == EMPTY:
            empty += 1
    return empty


@njit(cache=True, inline="always")
def _playout_on_lines(
    board: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    lines: np.ndarray,
    line_of: np.ndarray,
    bit_of: np.ndarray,
    steps_of: np.ndarray,
    rays: np.ndarray,
) -> int:
    """random_playout on line masks that match the board, leaving the mobility map stale."""
    # A queen step has at most as many arrows as a queen sees on the empty board, and at
    # most the empty squares (a step keeps their number: origin emptied, target filled).
    sight = empty_sight(board, meta[STRIDE])
    empty = empty_squares(board)
    while True:
        bound = min(sight, empty)
        move = sample_move(amazons, meta, rng, lines, line_of, bit_of, steps_of, rays, bound)
        if move < 0:
            return int(1 - meta[SIDE])
        play_on_lines(board, amazons, meta, zob, lines, line_of, bit_of, move)
        empty -= 1


@njit(cache=True)
def random_playout(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
) -> int:
    """Play uniformly random moves to the end (in place); return the winner's side (0 or 1)."""
    line_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    bit_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    lines = np.zeros(4 * board.shape[0], dtype=np.int64)
    line_masks(board, meta[STRIDE], line_of, bit_of, lines)
    steps_of = np.empty(8 * amazons.shape[1], dtype=np.int64)
    rays = np.empty(8, dtype=np.int64)
    winner = _playout_on_lines(
        board, amazons, meta, zob, rng, lines, line_of, bit_of, steps_of, rays
    )
    compute_mobility(board, mob, meta[STRIDE])
    return winner


@njit(cache=True)
def random_games(
    board: np.ndarray,
    mob: np.ndarray,
    amazons: np.ndarray,
    meta: np.ndarray,
    zob: np.ndarray,
    rng: np.ndarray,
    games: int,
) -> tuple[int, int]:
    """Play `games` random games from this position (left unchanged); return (first side's
    wins, total moves played)."""
    line_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    bit_of = np.zeros((board.shape[0], 4), dtype=np.int64)
    start = np.zeros(4 * board.shape[0], dtype=np.int64)
    line_masks(board, meta[STRIDE], line_of, bit_of, start)
    lines = start.copy()
    steps_of = np.empty(8 * amazons.shape[1], dtype=np.int64)
    rays = np.empty(8, dtype=np.int64)
    b = board.copy()
    a = amazons.copy()
    t = meta.copy()
    wins = 0
    moves = 0
    for _ in range(games):
        b[:] = board
        a[:] = amazons
        t[:] = meta
        lines[:] = start
        first = t[SIDE]
        if _playout_on_lines(b, a, t, zob, rng, lines, line_of, bit_of, steps_of, rays) == first:
            wins += 1
        moves += t[PLY] - meta[PLY]
    return wins, moves


@njit(cache=True)
def label_regions(board: np.ndarray, stride: int, labels: np.ndarray) -> int:
    """Label the 8-connected components of non-burnt squares 0, 1, ... in square order (burnt
    squares get -1); return how many there are."""
    dirs = directions(stride)
    labels[:] = -1
    stack = np.empty(board.shape[0], dtype=np.int64)
    count = 0
    for start in range(board.shape[0]):
        if board[start] == ARROW or labels[start] >= 0:
            continue
        labels[start] = count
        top = 0
        stack[top] = start
        top += 1
        while top > 0:
            top -= 1
            sq = stack[top]
            for d in range(8):
                nb = sq + dirs[d]
                if board[nb] != ARROW and labels[nb] < 0:
                    labels[nb] = count
                    stack[top] = nb
                    top += 1
        count += 1
    return count
