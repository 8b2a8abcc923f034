"""A Bao position as a game state: the board, the rules it is played by, and the boards and
moves that led to it; position text and bytes.

Position text is one line (docs/bao.md): the four rows as seen from South, top to bottom
(North back, North front, South front, South back), each pit's seeds from column a to h
separated by commas, then the stores (South-North), the houses still owned (`SN`, `S`, `N` or
`-`), the takasia field (`-`, the pit of the side to move blocked, or `x` and the opponent pit
it must capture first under the A7 option), the side to move (`s` or `n`),
the stage of the side to move (`namua` or `mtaji`) and the plies played.
"""

from __future__ import annotations

from typing import Final, Self

from engine.bao.board import (
    FRONT,
    HOUSE,
    NO_PIT,
    Board,
    front_seeds,
    legal_moves,
    perft,
    start_board,
    why_illegal,
)
from engine.bao.notation import PITS, Move, pit_label, pit_of_label
from engine.bao.rules import RECOMMENDED, BaoRules
from engine.errors import GameOverError, IllegalMoveError, NotationError

__all__ = ["SEEDS", "SIDES", "BaoPosition"]

SEEDS: Final = 64
SIDES: Final = ("s", "n")
SIDE_NAMES: Final = ("South", "North")
# Ring indices of each row of position text, columns a..h as seen from South.
_ROWS: Final = (
    (1, tuple(range(8, 16))),  # North back: B8..B1 from North's side, a..h from South's
    (1, tuple(range(7, -1, -1))),  # North front: F8..F1
    (0, tuple(range(0, 8))),  # South front: F1..F8
    (0, tuple(range(15, 7, -1))),  # South back: B1..B8
)
_FIELDS: Final = ("board", "stores", "houses", "takasia", "side", "stage", "ply")


class BaoPosition:
    """A position of Bao la Kiswahili played by `rules`, with the moves that led to it."""

    __slots__ = ("_history", "_legal", "board", "rules")

    def __init__(self, board: Board | None = None, rules: BaoRules = RECOMMENDED) -> None:
        self.board = start_board(rules) if board is None else _checked(board)
        self.rules = rules
        self._history: list[tuple[Board, Move]] = []
        self._legal: dict[Move, Board] | None = None

    # -- the game ------------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.board.mover

    def moves(self) -> dict[Move, Board]:
        """The legal moves and the board each leaves."""
        if self._legal is None:
            self._legal = legal_moves(self.board, self.rules)
        return self._legal

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        return tuple(self.moves())

    def apply(self, move: Move) -> None:
        after = self.moves().get(move)
        if after is None:
            raise self._refusal(move)
        self._history.append((self.board, move))
        self.board = after
        self._legal = None

    def undo(self) -> Move:
        self.board, move = self._history.pop()
        self._legal = None
        return move

    def clone(self) -> Self:
        copy = type(self)(self.board, self.rules)
        copy._history = list(self._history)
        copy._legal = self._legal
        return copy

    def winner(self) -> int | None:
        """The player who has won, None while the game goes on or when drawn at the ply cap."""
        board = self.board
        if not front_seeds(board, 1 - board.mover):
            return board.mover  # the last mover emptied their own front row (A6 option)
        if not front_seeds(board, board.mover):
            return 1 - board.mover
        if board.ply >= self.rules.ply_cap or self.moves():
            return None
        return 1 - board.mover

    def is_terminal(self) -> bool:
        return not self.moves()

    def returns(self) -> tuple[float, float]:
        winner = self.winner()
        if winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def parse_move(self, text: str) -> Move:
        move = Move.parse(text)
        if move not in self.moves():
            raise self._refusal(move)
        return move

    def format_move(self, move: Move) -> str:
        return str(move)

    def _refusal(self, move: Move) -> IllegalMoveError:
        if self.is_terminal():
            return GameOverError(f"the game is over: {self._result()}")
        return IllegalMoveError(why_illegal(self.board, self.rules, move))

    def _result(self) -> str:
        winner = self.winner()
        if winner is None:
            return f"drawn at the ply cap of {self.rules.ply_cap}"
        loser = 1 - winner
        if not front_seeds(self.board, loser):
            return f"{SIDE_NAMES[winner]} won: {SIDE_NAMES[loser]}'s front row is empty"
        return f"{SIDE_NAMES[winner]} won: {SIDE_NAMES[loser]} has no legal move"

    def perft(self, depth: int) -> int:
        """Leaves of the move tree `depth` plies deep; finished games add nothing."""
        return perft(self.board, self.rules, depth)

    def divide(self, depth: int) -> list[tuple[Move, int]]:
        """Perft below each legal move, for finding where two move generators differ."""
        return [(move, perft(after, self.rules, depth - 1)) for move, after in self.moves().items()]

    # -- text and bytes ------------------------------------------------------------------------

    def text(self) -> str:
        board = self.board
        rows = "/".join(
            ",".join(str(board.pits[side * PITS + pit]) for pit in pits) for side, pits in _ROWS
        )
        houses = "".join(letter for letter, kept in zip("SN", board.owned, strict=True) if kept)
        blocked = "-" if board.blocked == NO_PIT else pit_label(board.blocked)
        if board.duty != NO_PIT:
            blocked = f"x{pit_label(board.duty)}"
        stage = "namua" if board.in_namua() else "mtaji"
        return (
            f"{rows} {board.stores[0]}-{board.stores[1]} {houses or '-'} {blocked} "
            f"{SIDES[board.mover]} {stage} {board.ply}"
        )

    def diagram(self) -> str:
        """The board as seen from South, North's rows on top: each pit's seeds under its column,
        `*` after an owned house, `!` after the takasia'd pit; each row named by the owner's
        labels; the stores, and who is to move in which stage."""
        board = self.board
        lines = ["      " + "".join(f"{column:>4}" for column in "abcdefgh")]
        for (side, pits), name in zip(_ROWS, _ROW_NAMES, strict=True):
            cells = []
            for pit in pits:
                mark = " "
                if pit == HOUSE and board.owned[side]:
                    mark = "*"
                if side == board.mover and pit == board.blocked:
                    mark = "!"
                cells.append(f"{board.pits[side * PITS + pit]:>3}{mark}")
            labels = f"{pit_label(pits[0])}..{pit_label(pits[-1])}"
            lines.append(
                f"{name.split()[0][0]} {name.split()[1]:<5}" + "".join(cells) + f"  {labels}"
            )
        stage = "namua" if board.in_namua() else "mtaji"
        lines.append(
            f"stores: South {board.stores[0]}, North {board.stores[1]}; "
            f"{SIDE_NAMES[board.mover]} to move ({stage}), ply {board.ply}"
        )
        return "\n".join(lines)

    def result(self) -> str:
        """How the game stands, in words: who is to move, or who won and why."""
        if not self.is_terminal():
            return f"{SIDE_NAMES[self.board.mover]} to move, {len(self.moves())} legal moves"
        return f"game over: {self._result()}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"BaoPosition.parse({self.text()!r})"

    @classmethod
    def parse(cls, text: str, rules: BaoRules = RECOMMENDED) -> BaoPosition:
        """Read position text (docs/bao.md); NotationError names what is wrong."""
        fields = text.split()
        if len(fields) != len(_FIELDS):
            raise NotationError(
                f"Bao position text has {len(_FIELDS)} fields ({', '.join(_FIELDS)}), "
                f"not {len(fields)}: {text!r}"
            )
        rows_text, stores_text, houses, blocked_text, side, stage, ply_text = fields
        pits = [0] * (2 * PITS)
        rows = rows_text.split("/")
        if len(rows) != len(_ROWS):
            raise NotationError(f"the board has 4 rows separated by /, not {len(rows)}")
        for row, row_name, (owner, ring) in zip(rows, _ROW_NAMES, _ROWS, strict=True):
            counts = row.split(",")
            if len(counts) != FRONT or not all(count.isdigit() for count in counts):
                raise NotationError(
                    f"the {row_name} row {row!r} must be 8 seed counts separated by commas"
                )
            for pit, count in zip(ring, counts, strict=True):
                pits[owner * PITS + pit] = int(count)
        south, dash, north = stores_text.partition("-")
        if not (dash and south.isdigit() and north.isdigit()):
            raise NotationError(f"stores {stores_text!r} must be South's and North's, as 22-22")
        houses = houses.upper()
        if houses not in ("SN", "S", "N", "-"):
            raise NotationError(f"houses {houses!r} must be SN, S, N or - (the houses owned)")
        side = side.lower()
        if side not in SIDES:
            raise NotationError(f"side to move {side!r} must be s (South) or n (North)")
        mover = SIDES.index(side)
        blocked = duty = NO_PIT
        if blocked_text[:1] in ("x", "X"):
            duty = pit_of_label(blocked_text[1:])
            if duty >= FRONT:
                raise NotationError(
                    f"capture duty {blocked_text!r}: only a front pit (A1-A8) is ever blocked"
                )
        elif blocked_text != "-":
            blocked = pit_of_label(blocked_text)
            if blocked >= FRONT:
                raise NotationError(
                    f"takasia mark {blocked_text!r}: only a front pit (A1-A8) can be takasia'd"
                )
        if not ply_text.isdigit():
            raise NotationError(f"plies played {ply_text!r} must be a whole number")
        board = Board(
            tuple(pits),
            (int(south), int(north)),
            ("S" in houses, "N" in houses),
            mover,
            blocked,
            int(ply_text),
            duty,
        )
        expected = "namua" if board.in_namua() else "mtaji"
        if stage.lower() != expected:
            store = board.stores[mover]
            raise NotationError(
                f"stage {stage!r}: {SIDE_NAMES[mover]} has {store} seeds in store, so is in "
                f"{expected} (namua while seeds are in store, mtaji after)"
            )
        return cls(board, rules)

    def to_bytes(self) -> bytes:
        """32 pits (South's ring then North's), the two stores, a byte of flags (bit 0 South's
        house owned, bit 1 North's, bit 2 North to move), the takasia'd pit (8 + the pit for a
        capture duty, 255 none) and
        the plies played (2 bytes, big-endian): 38 bytes."""
        board = self.board
        flags = board.owned[0] | board.owned[1] << 1 | board.mover << 2
        blocked = 255 if board.blocked == NO_PIT else board.blocked
        if board.duty != NO_PIT:
            blocked = FRONT + board.duty
        return bytes((*board.pits, *board.stores, flags, blocked)) + board.ply.to_bytes(2, "big")

    @classmethod
    def from_bytes(cls, data: bytes, rules: BaoRules = RECOMMENDED) -> BaoPosition:
        """Read what `to_bytes` wrote; NotationError names what is wrong with other bytes."""
        if len(data) != 2 * PITS + 6:
            raise NotationError(f"Bao position bytes are {2 * PITS + 6} long, not {len(data)}")
        flags, blocked = data[2 * PITS + 2], data[2 * PITS + 3]
        if flags > 7 or not (blocked < 2 * FRONT or blocked == 255):
            raise NotationError("Bao position bytes: bad flags or takasia pit")
        board = Board(
            tuple(data[: 2 * PITS]),
            (data[2 * PITS], data[2 * PITS + 1]),
            (bool(flags & 1), bool(flags & 2)),
            flags >> 2,
            blocked if blocked < FRONT else NO_PIT,
            int.from_bytes(data[2 * PITS + 4 :], "big"),
            blocked - FRONT if FRONT <= blocked < 2 * FRONT else NO_PIT,
        )
        return cls(board, rules)


_ROW_NAMES: Final = ("North back", "North front", "South front", "South back")


def _checked(board: Board) -> Board:
    """The board if Bao's rules can be played on it; a NotationError naming the rule if not.
    Fewer than 64 seeds are allowed, for studies and test positions that leave some out."""
    total = sum(board.pits) + sum(board.stores)
    if total > SEEDS:
        raise NotationError(
            f"the pits and stores hold {total} seeds: Bao is played with {SEEDS}, no more"
        )
    for player in (0, 1):
        if board.owned[player] and board.pits[player * PITS + HOUSE] == 0:
            raise NotationError(
                f"{SIDE_NAMES[player]}'s house is marked owned but empty: an emptied house "
                "is lost for good"
            )
    if board.duty != NO_PIT:
        if board.in_namua():
            raise NotationError(
                f"capture duty x{pit_label(board.duty)} in namua: takasia is an mtaji rule"
            )
        if board.pits[(1 - board.mover) * PITS + board.duty] == 0:
            raise NotationError(
                f"capture duty x{pit_label(board.duty)} on an empty pit: the blocked pit must "
                "still hold seeds to be captured"
            )
    if board.blocked != NO_PIT:
        if board.in_namua():
            raise NotationError(
                f"takasia mark {pit_label(board.blocked)} in namua: takasia is an mtaji rule"
            )
        if board.pits[board.mover * PITS + board.blocked] == 0:
            raise NotationError(
                f"takasia mark {pit_label(board.blocked)} on an empty pit: only a threatened "
                "pit with seeds is takasia'd"
            )
    return board
