"""Take-away, a game for the test suite: a pile of counters, each player in turn takes one, two
or three, and whoever takes the last counter wins. Setups are pile sizes (`10`, `21`); move text
is the number taken (`2`); position text is the pile and the side to move (`21 w`)."""

from __future__ import annotations

from typing import Final, Self

from engine.errors import GameOverError, IllegalMoveError, NotationError
from engine.game import GameInfo

__all__ = ["TAKEAWAY", "TakeAway", "TakeAwayState"]

MAX_TAKE: Final = 3
MAX_PILE: Final = 999
SIDES: Final = ("w", "b")


class TakeAwayState:
    """A pile, the side to move (0 first) and the moves that led here."""

    def __init__(self, pile: int, player: int = 0) -> None:
        self.pile = pile
        self.player = player
        self._taken: list[int] = []

    @property
    def current_player(self) -> int:
        return self.player

    @property
    def legal_moves(self) -> tuple[int, ...]:
        return tuple(range(1, min(MAX_TAKE, self.pile) + 1))

    def apply(self, move: int) -> None:
        if self.pile == 0:
            raise GameOverError("the pile is empty: the game is over")
        if not 1 <= move <= MAX_TAKE:
            raise IllegalMoveError(f"cannot take {move}: take 1 to {MAX_TAKE} counters")
        if move > self.pile:
            raise IllegalMoveError(f"cannot take {move}: only {self.pile} left")
        self.pile -= move
        self.player = 1 - self.player
        self._taken.append(move)

    def undo(self) -> int:
        move = self._taken.pop()
        self.pile += move
        self.player = 1 - self.player
        return move

    def clone(self) -> Self:
        copy = type(self)(self.pile, self.player)
        copy._taken = list(self._taken)
        return copy

    def is_terminal(self) -> bool:
        return self.pile == 0

    def returns(self) -> tuple[float, float]:
        if self.pile:
            return (0.0, 0.0)
        # The player to move faces an empty pile: the other one took the last counter.
        return (-1.0, 1.0) if self.player == 0 else (1.0, -1.0)

    def parse_move(self, text: str) -> int:
        if not text.strip().isdigit():
            raise NotationError(f"{text!r} is not a number of counters to take")
        move = int(text)
        if self.pile == 0:
            raise GameOverError("the pile is empty: the game is over")
        if not 1 <= move <= min(MAX_TAKE, self.pile):
            raise IllegalMoveError(
                f"cannot take {move}: take 1 to {min(MAX_TAKE, self.pile)} counters"
            )
        return move

    def format_move(self, move: int) -> str:
        return str(move)

    def text(self) -> str:
        return f"{self.pile} {SIDES[self.player]}"

    def to_bytes(self) -> bytes:
        return bytes((self.player,)) + self.pile.to_bytes(2, "big")


class TakeAway:
    """The registered game: pile sizes as setups."""

    info: Final = GameInfo(
        name="takeaway",
        players=2,
        zero_sum=True,
        min_utility=-1.0,
        max_utility=1.0,
        setups=("10", "21"),
        default_setup="21",
        player_names=("white", "black"),
        max_plies=MAX_PILE,
        max_move_text=1,
        max_position_text=len(f"{MAX_PILE} w"),
    )

    def new_state(self, setup: str | None = None) -> TakeAwayState:
        name = setup or self.info.default_setup
        if name not in self.info.setups:
            raise NotationError(
                f"unknown setup {name!r}: known setups are {', '.join(self.info.setups)}"
            )
        return TakeAwayState(int(name))

    def parse_state(self, text: str) -> TakeAwayState:
        pile, _, side = text.strip().partition(" ")
        if not pile.isdigit() or int(pile) > MAX_PILE:
            raise NotationError(f"{text!r}: the pile must be 0 to {MAX_PILE} counters")
        if side not in SIDES:
            raise NotationError(f"{text!r}: the side to move must be w or b")
        return TakeAwayState(int(pile), SIDES.index(side))

    def state_from_bytes(self, data: bytes) -> TakeAwayState:
        if len(data) != 3 or data[0] > 1:
            raise NotationError(f"take-away state bytes must be a side and a pile, got {data!r}")
        return TakeAwayState(int.from_bytes(data[1:], "big"), data[0])


TAKEAWAY: Final = TakeAway()
