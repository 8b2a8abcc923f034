"""An Amazons position: the board, the side to move and the move stack, with the rules.

`Position.parse(text)` / `position.text()` read and write position text; `apply(move)` /
`undo()` make and unmake moves on a snapshot stack. The arrays behind it are the ones the numba
kernels in `engine.amazons.kernels` work on, so search code can reach them directly.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from engine.amazons import kernels
from engine.amazons.notation import MAX_SIZE, Move, Side, Square
from engine.errors import GameOverError, IllegalMoveError, NotationError

if TYPE_CHECKING:
    from engine.amazons.regions import Region

__all__ = ["SETUPS", "LegalMoves", "Position"]

SETUPS: Final[dict[str, str]] = {
    "10x10": "3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3 w",
    "8x8": "2B2B2/8/B6B/8/8/W6W/8/2W2W2 w",
    "6x6": "1B2B1/B4B/6/6/W4W/1W2W1 w",
}

_PIECE_LETTERS = {"W": kernels.WHITE, "B": kernels.BLACK, "x": kernels.ARROW}
_LETTER_OF = {kernels.WHITE: "W", kernels.BLACK: "B", kernels.ARROW: "x"}
# Square codes to the bytes of position text, "." for empty ("." runs become counts).
_SYMBOLS: Final = bytes.maketrans(
    bytes((kernels.EMPTY, kernels.WHITE, kernels.BLACK, kernels.ARROW)), b".WBx"
)
# Runs of empty squares and their counts, longest first: replaced in this order, each
# whole run becomes its count (a run of n is untouched until n comes).
_EMPTY_RUNS: Final = [("." * n, str(n)) for n in range(MAX_SIZE, 0, -1)]


Int64Array = npt.NDArray[np.int64]


@functools.cache
def _zobrist_keys(size: int) -> Int64Array:
    """Keys by piece and padded square; row EMPTY is unused by pieces, and its first entry keys
    the side to move. Fixed per board size, so equal positions hash equally everywhere."""
    rng = np.random.default_rng(0x616D617A6F6E73 + size)
    info = np.iinfo(np.int64)
    return rng.integers(info.min, info.max, size=(4, size), dtype=np.int64, endpoint=True)


class Position:
    """A position of Amazons on a `width` x `height` board, with the moves that led to it."""

    __slots__ = ("_amazons", "_board", "_meta", "_mob", "_stack", "_zob", "height", "width")

    def __init__(self, width: int, height: int, pieces: dict[Square, str], side: Side) -> None:
        """Build a position from `pieces` (square -> `W`, `B` or `x`); use `parse` for text."""
        if not (1 <= width <= MAX_SIZE and 1 <= height <= MAX_SIZE):
            raise NotationError(
                f"a {width}x{height} board is not allowed: width and height run from 1 to "
                f"{MAX_SIZE}"
            )
        self.width = width
        self.height = height
        stride = width + 2
        board = np.full(stride * (height + 2), kernels.ARROW, dtype=np.int8)
        for rank in range(height):
            start = (rank + 1) * stride + 1
            board[start : start + width] = kernels.EMPTY
        for square, letter in pieces.items():
            if not (0 <= square.file < width and 0 <= square.rank < height):
                raise NotationError(f"{square} is off the {width}x{height} board")
            if letter not in _PIECE_LETTERS:
                raise NotationError(f"{letter!r} on {square} is not W, B or x")
            board[(square.rank + 1) * stride + square.file + 1] = _PIECE_LETTERS[letter]
        self._take(board, side)

    def _take(self, board: npt.NDArray[np.int8], side: int) -> None:
        """Make the padded `board` this position's, with `side` to move: the amazon lists (in
        board order), the mobility map, the hash and an empty move stack follow from it."""
        stride = self.width + 2
        placed = [np.flatnonzero(board == kernels.WHITE), np.flatnonzero(board == kernels.BLACK)]
        amazons = np.zeros((2, max(1, len(placed[0]), len(placed[1]))), dtype=np.int64)
        for s in (0, 1):
            amazons[s, : len(placed[s])] = placed[s]
        self._board = board
        self._amazons = amazons
        self._zob = _zobrist_keys(board.shape[0])
        self._mob = np.zeros(board.shape[0], dtype=np.int64)
        kernels.compute_mobility(board, self._mob, stride)
        self._meta = np.zeros(6, dtype=np.int64)
        self._meta[kernels.SIDE] = side
        self._meta[kernels.STRIDE] = stride
        self._meta[kernels.COUNT] = len(placed[0])
        self._meta[kernels.COUNT + 1] = len(placed[1])
        self._meta[kernels.HASH] = kernels.zobrist_hash(board, int(side), self._zob)
        self._stack: list[int] = []

    # -- reading and writing -----------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read position text: ranks from the top separated by `/`, `W` `B` `x` or a count of
        empty squares, then `w` or `b` for the side to move (White when omitted)."""
        fields = text.split()
        if not fields:
            raise NotationError("empty position text")
        if len(fields) > 2:
            raise NotationError(
                f"position text {text!r} has {len(fields)} fields: expected the board and "
                "the side to move"
            )
        side = Side.WHITE
        if len(fields) == 2:
            if fields[1] not in ("w", "b"):
                raise NotationError(f"side to move {fields[1]!r} is neither 'w' nor 'b'")
            side = Side.WHITE if fields[1] == "w" else Side.BLACK
        rows = fields[0].split("/")
        height = len(rows)
        if height > MAX_SIZE:
            raise NotationError(f"{height} ranks: boards have at most {MAX_SIZE}")
        pieces: dict[Square, str] = {}
        widths: list[int] = []
        for i, row in enumerate(rows):
            rank = height - 1 - i
            widths.append(_parse_row(row, rank, pieces))
            if widths[-1] != widths[0]:
                raise NotationError(
                    f"rows of unequal width: rank {height} has {widths[0]} squares, "
                    f"rank {rank + 1} has {widths[-1]}"
                )
        if widths[0] > MAX_SIZE:
            raise NotationError(f"{widths[0]} files: boards have at most {MAX_SIZE}")
        return cls(widths[0], height, pieces, side)

    @classmethod
    def setup(cls, name: str) -> Position:
        """A named start position: `10x10` (standard), `8x8` or `6x6`."""
        try:
            return cls.parse(SETUPS[name])
        except KeyError:
            raise NotationError(
                f"unknown setup {name!r}: known setups are {', '.join(SETUPS)}"
            ) from None

    def text(self) -> str:
        """Position text, as read by `parse` (multi-digit counts of empty squares)."""
        width = self.width
        stride = width + 2
        grid = self._board.reshape(self.height + 2, stride)[self.height : 0 : -1, 1 : stride - 1]
        # One letter per square, the top rank first.
        letters = grid.astype(np.uint8).tobytes().translate(_SYMBOLS).decode()
        text = "/".join([letters[i : i + width] for i in range(0, len(letters), width)])
        for run, count in _EMPTY_RUNS[MAX_SIZE - width :]:
            text = text.replace(run, count)
        return f"{text} {self.side_to_move.letter}"

    def to_bytes(self) -> bytes:
        """The board and side to move in a compact binary form that `from_bytes` reads back,
        for storage (no move stack): width, height and side (0 White, 1 Black) as one byte
        each, then one byte a square of the board padded by a ring of burnt squares, rank by
        rank from the bottom (0 empty, 1 White, 2 Black, 3 burnt). Much cheaper than `text`."""
        return bytes((self.width, self.height, self.current_player)) + self._board.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Position:
        """Read what `to_bytes` wrote; NotationError names what is wrong with other bytes."""
        if len(data) < 3:
            raise NotationError(f"position bytes too short: {len(data)} bytes")
        width, height, side = data[0], data[1], data[2]
        if not (1 <= width <= MAX_SIZE and 1 <= height <= MAX_SIZE):
            raise NotationError(f"position bytes: a {width}x{height} board is not allowed")
        if side > 1:
            raise NotationError(f"position bytes: side to move {side} is neither 0 nor 1")
        squares = (width + 2) * (height + 2)
        if len(data) != 3 + squares:
            raise NotationError(
                f"position bytes: a {width}x{height} board takes {3 + squares} bytes, "
                f"not {len(data)}"
            )
        board = np.frombuffer(data, dtype=np.int8, offset=3).copy()
        if board.min() < kernels.EMPTY or board.max() > kernels.ARROW:
            raise NotationError("position bytes: a square is not empty, W, B or burnt")
        grid = board.reshape(height + 2, width + 2)
        if not (
            (grid[[0, -1], :] == kernels.ARROW).all() and (grid[:, [0, -1]] == kernels.ARROW).all()
        ):
            raise NotationError("position bytes: the ring around the board is not burnt")
        position = cls.__new__(cls)
        position.width = width
        position.height = height
        position._take(board, side)
        return position

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Position.parse({self.text()!r})"

    def diagram(self) -> str:
        """The board as text with coordinates: `W`/`B` amazons, `x` arrows, `.` empty."""
        symbols = {kernels.EMPTY: ".", **_LETTER_OF}
        lines = []
        for rank in reversed(range(self.height)):
            cells = " ".join(
                symbols[int(self._board[self._index(Square(f, rank))])] for f in range(self.width)
            )
            lines.append(f"{rank + 1:>2} {cells}")
        lines.append("   " + " ".join("abcdefghijklmnopqrstuvwxyz"[: self.width]))
        return "\n".join(lines)

    # -- state -------------------------------------------------------------------------------

    @property
    def side_to_move(self) -> Side:
        return Side(int(self._meta[kernels.SIDE]))

    @property
    def current_player(self) -> int:
        """The player to move as an index: 0 for White, 1 for Black."""
        return int(self._meta[kernels.SIDE])

    @property
    def ply(self) -> int:
        """Moves played since this position was built."""
        return len(self._stack)

    @property
    def zobrist(self) -> int:
        """64-bit Zobrist hash of board and side to move, kept up to date move by move."""
        return int(self._meta[kernels.HASH]) & 0xFFFF_FFFF_FFFF_FFFF

    @property
    def move_stack(self) -> list[Move]:
        return [self._decode(m) for m in self._stack]

    def piece_at(self, square: Square) -> str | None:
        """`W`, `B` or `x` on `square`, or None when it is empty."""
        self._require_on_board(square)
        piece = int(self._board[self._index(square)])
        return None if piece == kernels.EMPTY else _LETTER_OF[piece]

    def amazons(self, side: Side) -> list[Square]:
        """Squares of `side`'s amazons, in board order."""
        count = int(self._meta[kernels.COUNT + side])
        return sorted((self._square(int(i)) for i in self._amazons[side, :count]), key=_order)

    def arrays(
        self,
    ) -> tuple[npt.NDArray[np.int8], Int64Array, Int64Array, Int64Array, Int64Array]:
        """(board, mob, amazons, meta, zob): the kernel arrays, shared, not copied."""
        return self._board, self._mob, self._amazons, self._meta, self._zob

    def index(self, square: Square) -> int:
        """The padded-array index of an on-board square."""
        self._require_on_board(square)
        return self._index(square)

    def square(self, index: int) -> Square:
        return self._square(index)

    def encode(self, move: Move) -> int:
        """The kernel's int for a move whose squares are on the board."""
        return kernels.encode(
            self.index(move.origin), self.index(move.target), self.index(move.arrow)
        )

    def decode(self, move: int) -> Move:
        return self._decode(move)

    # -- rules -------------------------------------------------------------------------------

    @property
    def legal_moves(self) -> LegalMoves:
        """A live view of the legal moves: `len`, `in`, iteration, `count()`."""
        return LegalMoves(self)

    def count_moves(self) -> int:
        """Legal moves of the side to move, counted without listing them."""
        return int(kernels.count_moves(self._board, self._mob, self._amazons, self._meta))

    def is_terminal(self) -> bool:
        """True when the side to move has no legal move, and so has lost."""
        return not kernels.has_moves(self._board, self._amazons, self._meta)

    @property
    def winner(self) -> Side | None:
        """The winner once the game is over (the side not to move), else None."""
        return self.side_to_move.other if self.is_terminal() else None

    def returns(self) -> tuple[float, float]:
        """(White's, Black's) result: +1 for a win, -1 for a loss, 0 while the game goes on."""
        winner = self.winner
        if winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if winner is Side.WHITE else (-1.0, 1.0)

    def check(self, move: Move) -> None:
        """Raise IllegalMoveError (GameOverError once the game is over) naming why `move`
        cannot be played here; return quietly when it can."""
        squares = (move.origin, move.target, move.arrow)
        if all(0 <= s.file < self.width and 0 <= s.rank < self.height for s in squares):
            origin, target, arrow = (self._index(s) for s in squares)
            if kernels.is_legal(self._board, self._meta, origin, target, arrow):
                return
        self._explain(move)
        raise AssertionError(f"the rules found no fault with {move}, the kernel did")

    def _explain(self, move: Move) -> None:
        """Raise the error that says why `move` cannot be played here (the rules step by step,
        in Python: `check` asks a kernel first and comes here for the words)."""
        if self.is_terminal():
            raise GameOverError(
                f"the game is over: {self.side_to_move} has no legal move and has lost"
            )
        for square in (move.origin, move.target, move.arrow):
            self._require_on_board(square)
        side = self.side_to_move
        if self._board[self._index(move.origin)] != side + 1:
            raise IllegalMoveError(f"no {side} amazon on {move.origin}")
        self._check_path("move", move.origin, move.target, vacated=None)
        self._check_path("arrow", move.target, move.arrow, vacated=move.origin)

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except IllegalMoveError:
            return False
        return True

    def apply(self, move: Move) -> None:
        """Play `move` for the side to move, after checking it is legal."""
        self.check(move)
        self.apply_index(self.encode(move))

    def apply_index(self, move: int) -> None:
        """Play a kernel move int known to be legal (from generation or a search)."""
        kernels.make_move(self._board, self._mob, self._amazons, self._meta, self._zob, move)
        self._stack.append(move)

    def undo(self) -> Move:
        """Take back the last move and return it."""
        if not self._stack:
            raise IndexError("no move to undo")
        move = self._stack.pop()
        kernels.unmake_move(self._board, self._mob, self._amazons, self._meta, self._zob, move)
        return self._decode(move)

    def parse_move(self, text: str) -> Move:
        """Read move text and check it is legal here."""
        move = Move.parse(text)
        self.check(move)
        return move

    def format_move(self, move: Move) -> str:
        return str(move)

    def clone(self) -> Position:
        """An independent copy, move stack included."""
        other = Position.__new__(Position)
        other.width = self.width
        other.height = self.height
        other._board = self._board.copy()
        other._mob = self._mob.copy()
        other._amazons = self._amazons.copy()
        other._meta = self._meta.copy()
        other._zob = self._zob
        other._stack = list(self._stack)
        return other

    def __eq__(self, other: object) -> bool:
        """Same board and side to move (the move history is not compared)."""
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.width == other.width
            and self.height == other.height
            and self.side_to_move == other.side_to_move
            and bool(np.array_equal(self._board, other._board))
        )

    __hash__ = None  # type: ignore[assignment]  # mutable; use .zobrist as a key

    # -- counting and random play ---------------------------------------------------------------

    def perft(self, depth: int) -> int:
        """Leaves of the legal move tree `depth` moves deep (finished games add nothing)."""
        if depth < 0:
            raise ValueError(f"perft depth must be 0 or more, not {depth}")
        b, m, a, t, z = self.clone().arrays()
        return int(kernels.perft(b, m, a, t, z, depth))

    def divide(self, depth: int) -> list[tuple[Move, int]]:
        """perft(depth - 1) below each legal move, in generation order."""
        if depth < 1:
            raise ValueError(f"divide needs a depth of 1 or more, not {depth}")
        work = self.clone()
        counts = []
        for move in self.move_indices():
            work.apply_index(int(move))
            counts.append((self._decode(int(move)), work.perft(depth - 1)))
            work.undo()
        return counts

    def random_move(self, rng: np.random.Generator | int | None = None) -> Move | None:
        """A move drawn uniformly from the legal moves, or None when there is none."""
        move = kernels.random_move(self._board, self._mob, self._amazons, self._meta, _rng(rng))
        return None if move < 0 else self._decode(int(move))

    def random_playout(self, rng: np.random.Generator | int | None = None) -> Side:
        """Play uniformly random moves to the end of the game on a copy; return the winner."""
        b, m, a, t, z = self.clone().arrays()
        return Side(int(kernels.random_playout(b, m, a, t, z, _rng(rng))))

    def regions(self) -> list[Region]:
        """The board's regions: 8-connected groups of non-burnt squares, in board order."""
        from engine.amazons.regions import regions

        return regions(self)

    # -- internals -------------------------------------------------------------------------------

    def move_indices(self) -> Int64Array:
        """The legal moves as kernel ints, in generation order."""
        moves = np.empty(self.count_moves(), dtype=np.int64)
        kernels.generate_moves(self._board, self._amazons, self._meta, moves)
        return moves

    def _index(self, square: Square) -> int:
        return (square.rank + 1) * (self.width + 2) + square.file + 1

    def _square(self, index: int) -> Square:
        rank, file = divmod(index, self.width + 2)
        return Square(file - 1, rank - 1)

    def _decode(self, move: int) -> Move:
        mask = kernels.SQUARE_MASK
        return Move(
            self._square(move & mask), self._square((move >> 10) & mask), self._square(move >> 20)
        )

    def _require_on_board(self, square: Square) -> None:
        if not (0 <= square.file < self.width and 0 <= square.rank < self.height):
            raise IllegalMoveError(f"{square} is off the {self.width}x{self.height} board")

    def _check_path(self, what: str, start: Square, end: Square, vacated: Square | None) -> None:
        df = end.file - start.file
        dr = end.rank - start.rank
        if (df, dr) == (0, 0) or not (df == 0 or dr == 0 or abs(df) == abs(dr)):
            raise IllegalMoveError(f"{what} {start}-{end} is not along a line (queen move)")
        step_f = (df > 0) - (df < 0)
        step_r = (dr > 0) - (dr < 0)
        square = start
        while square != end:
            square = Square(square.file + step_f, square.rank + step_r)
            if square != vacated and self._board[self._index(square)] != kernels.EMPTY:
                raise IllegalMoveError(f"{what} path {start}-{end} is blocked at {square}")


class LegalMoves:
    """The legal moves of a position as it is now (the view follows later moves)."""

    __slots__ = ("_position",)

    def __init__(self, position: Position) -> None:
        self._position = position

    def __len__(self) -> int:
        return self._position.count_moves()

    def count(self) -> int:
        return self._position.count_moves()

    def __iter__(self) -> Iterator[Move]:
        decode = self._position.decode
        return (decode(int(m)) for m in self._position.move_indices())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._position.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoves ({len(self)}) of {self._position.text()!r}>"


def _parse_row(row: str, rank: int, pieces: dict[Square, str]) -> int:
    """Add one rank's pieces to `pieces`; return its width."""
    if not row:
        raise NotationError(f"rank {rank + 1} is empty: write a count of empty squares")
    file = 0
    digits = ""
    for char in row + "/":
        if char.isdigit():
            digits += char
            continue
        if digits:
            if digits.startswith("0"):
                raise NotationError(f"rank {rank + 1}: bad empty-square count {digits!r}")
            file += int(digits)
            digits = ""
        if char == "/":
            break
        if char not in _PIECE_LETTERS:
            raise NotationError(
                f"rank {rank + 1}: unknown character {char!r} (expected W, B, x or a count)"
            )
        pieces[Square(file, rank)] = char
        file += 1
    return file


def _order(square: Square) -> tuple[int, int]:
    return (square.rank, square.file)


def _rng(rng: np.random.Generator | int | None) -> npt.NDArray[np.uint64]:
    """A kernel generator state (never zero) seeded from a numpy generator or an int."""
    source = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    state = np.zeros(1, dtype=np.uint64)
    while state[0] == 0:
        state[0] = source.integers(1, 2**64, dtype=np.uint64, endpoint=False)
    return state
