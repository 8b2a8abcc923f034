"""A tiny app that hosts a board and its move field, as a game screen would, and keeps what
the board and the field post."""

from __future__ import annotations

from textual.app import App, ComposeResult

from clients.tui.board import BoardWidget, MoveChosen, board_for
from clients.tui.move_input import MoveInput
from engine.game import GameState, get_game


class BoardHost(App[None]):
    def __init__(
        self,
        state: GameState[object],
        *,
        player: int | None = 0,
        last_move: str | None = None,
        ascii: bool = False,
        flipped: bool = False,
        game: str = "amazons",
    ) -> None:
        super().__init__()
        self.game = game
        self.ascii = ascii
        self.start = state
        self.player = player
        self.last_move = last_move
        self.flipped = flipped
        self.chosen: list[str] = []

    @property
    def board(self) -> BoardWidget:
        return self.query_one(BoardWidget)

    def compose(self) -> ComposeResult:
        board = board_for(self.game)(ascii=self.ascii, id="board")
        yield board
        yield MoveInput(board)

    def on_mount(self) -> None:
        self.board.player = self.player
        self.board.flipped = self.flipped
        self.board.set_state(self.start, self.last_move)
        self.board.focus()

    def on_move_chosen(self, message: MoveChosen) -> None:
        self.chosen.append(message.text)


def amazons(text: str) -> GameState[object]:
    """An Amazons state from a setup name or position text."""
    game = get_game("amazons")
    return game.new_state(text) if text in game.info.setups else game.parse_state(text)
