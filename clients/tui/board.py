"""The board widget's interface, the same for every game: a game state in, a chosen move out.

A screen shows a game through `board_for(game)`, the board widget registered for that game,
and speaks to it only through `BoardWidget`: `set_state` with the state and the last move's
text, `player` for the side the user moves for, `flipped` to turn it round, `show_premove`
with the move queued for the user's next turn, and a `MoveChosen` message when the user has
made a move. A new game adds its widget to `_BOARDS`; the screens do not change.
"""

from __future__ import annotations

import importlib
from typing import ClassVar

from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from engine.errors import IllegalMoveError, NotationError
from engine.game import GameState

__all__ = ["BoardWidget", "MoveChosen", "board_for"]

# The room a large board leaves, on top of itself, for the rest of a screen: the players above
# and below it, the move field under it, the footer; and the columns of the panels beside it.
LARGE_SPARE_LINES = 16
LARGE_SPARE_COLUMNS = 56


class MoveChosen(Message):
    """The user made a move, on the board or typed: `text` is the move in the game's own
    spelling, checked on the state the user made it in (`BoardWidget.entry_state`)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class BoardWidget(Widget):
    """One game's board. `set_state` shows a state (and highlights the last move); while
    `player` (the index of the user's side) is set and the game goes on, the user can make a
    move, which the widget posts as `MoveChosen`. With `ascii` the board draws in ASCII."""

    can_focus = True
    # A move in the game's own spelling, the move field's example wherever it is legal.
    MOVE_EXAMPLE: ClassVar[str] = ""
    # What the game calls its players at the board, by index, where that is not the protocol's
    # colour (`white`, `black`): Bao's South and North.
    SIDE_NAMES: ClassVar[tuple[str, ...]] = ()

    # The player index the user moves for; None for a spectator, who picks nothing.
    player: reactive[int | None] = reactive(None)
    # Turned round: the second player's side at the bottom, as Black sees the board.
    flipped: reactive[bool] = reactive(False)
    # The game is over, though its state may not say so (lost on time, resigned, aborted):
    # nobody is to move and nothing may be picked.
    ended: reactive[bool] = reactive(False)
    # A move the user could make in the state shown, for the move field to show as an example:
    # MOVE_EXAMPLE where it is legal, else the first legal move; "" when there is none.
    move_example: reactive[str] = reactive("")

    def __init__(
        self,
        *,
        ascii: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.ascii = ascii
        self._state: GameState[object] | None = None
        self._last_move: str | None = None
        self._premove: str | None = None
        self._hint: str | None = None

    @property
    def state(self) -> GameState[object] | None:
        """The state shown (a copy is kept: the caller may go on using its own)."""
        return self._state

    @property
    def last_move(self) -> str | None:
        return self._last_move

    def set_state(self, state: GameState[object] | None, last_move: str | None = None) -> None:
        """Show `state` (None: an empty board area) with `last_move`, the text of the move
        that led to it, highlighted when given."""
        self._state = None if state is None else state.clone()
        self._last_move = last_move
        self._recompute()
        self.refresh(layout=True)

    @property
    def large(self) -> bool:
        """Whether the board is drawn larger than usual, the terminal having room: its screen
        then gives it a wider column (the `-large-board` class)."""
        return self.large_in(self.app.size)

    def large_in(self, room: Size) -> bool:
        """Whether the board is drawn large in a terminal of size `room`: whether it has room
        for the large board and for the rest of a screen beside and under it."""
        size = self.large_size()
        return (
            size is not None
            and room.width >= size.width + LARGE_SPARE_COLUMNS
            and room.height >= size.height + LARGE_SPARE_LINES
        )

    def large_size(self) -> Size | None:
        """The board's size drawn large; None for a board that is never drawn large, or while
        it shows nothing."""
        return None

    def fit(self, column: Widget) -> None:
        """Draw the board large or not for the terminal's size now, and give `column`, the
        part of the screen that holds it, the `-large-board` class while it is large. A screen
        calls it as the state shown or the terminal's size changes: the board's size changes
        with neither its state nor its own region, so nothing else lays it out again."""
        column.set_class(self.large, "-large-board")
        self.refresh(layout=True)

    @property
    def premove(self) -> str | None:
        """The move queued for the user's next turn, drawn on the board; None when none is."""
        return self._premove

    def show_premove(self, text: str | None) -> None:
        """Draw `text`, a move already checked on this board, as the queued premove (None: no
        premove)."""
        self._premove = text
        self.refresh()

    @property
    def hint(self) -> str | None:
        """A move shown from the analysis (the best line's first, a better one), drawn on the
        board where the game's board can; None when none is."""
        return self._hint

    def show_hint(self, text: str | None) -> None:
        """Draw `text`, a move of the state shown, as the analysis's hint (None: none)."""
        self._hint = text
        self.refresh()

    def state_changed(self) -> None:
        """Called after `set_state` and when `player` changes: a game's board works out what
        it shows and what may be picked."""

    def watch_player(self) -> None:
        self._recompute()
        self.refresh()

    def watch_ended(self) -> None:
        self._recompute()
        self.refresh()

    def _recompute(self) -> None:
        self.state_changed()
        self.move_example = self._example()

    def _example(self) -> str:
        state = self.entry_state or self._state
        if state is None or state.is_terminal():
            return ""
        if self.MOVE_EXAMPLE:
            try:
                return state.format_move(state.parse_move(self.MOVE_EXAMPLE))
            except ValueError:
                pass
        first = next(iter(state.legal_moves), None)
        return "" if first is None else state.format_move(first)

    @property
    def entry_state(self) -> GameState[object] | None:
        """The state the user's next move is made in: the game's state on the user's turn;
        None when the user has no move to make. A game's board may answer, while the other
        side is to move, the state as if it were the user's turn, for a premove."""
        state = self._state
        if state is None or self.player is None or self.ended or state.is_terminal():
            return None
        return state if state.current_player == self.player else None

    def check_move(self, text: str) -> str:
        """The move `text` in the game's own spelling, once the game has read it and found it
        legal in `entry_state`; a ValueError names what is wrong (the engine's own words)."""
        entry = self.entry_state
        if entry is None:
            over = self._state is not None and self._state.is_terminal()
            if self.player is not None and (self.ended or over):
                raise IllegalMoveError("the game is over")
            raise IllegalMoveError("there is no move of yours to make on this board")
        return entry.format_move(entry.parse_move(text.strip()))

    @classmethod
    def side_name(cls, player: int, colour: str) -> str:
        """Player `player` by the game's name for it and its colour: `South (white)` in Bao,
        just the colour where the game has no other name."""
        if not cls.SIDE_NAMES:
            return colour
        return f"{cls.SIDE_NAMES[player]} ({colour})"

    def step_last_move(self, delta: int) -> None:
        """Show the last move a part further on (`delta` 1) or back (-1), where a game's moves
        have parts to show (Bao's sowing, lap by lap); a game whose moves have none ignores it."""

    def choose(self, text: str) -> None:
        """Post the user's move."""
        self.post_message(MoveChosen(text))


# Board widgets by game name: "module:class", imported on first use.
_BOARDS: dict[str, str] = {
    "amazons": "clients.tui.amazons_board:AmazonsBoard",
    "bao": "clients.tui.bao_board:BaoBoard",
}


def board_for(game: str) -> type[BoardWidget]:
    """The board widget class of the game called `game`; a ValueError names the games that
    have one when it has none."""
    try:
        entry = _BOARDS[game]
    except KeyError:
        raise NotationError(
            f"no terminal board for the game {game!r}: boards exist for "
            f"{', '.join(sorted(_BOARDS))}"
        ) from None
    module, attribute = entry.split(":")
    board: type[BoardWidget] = getattr(importlib.import_module(module), attribute)
    return board
