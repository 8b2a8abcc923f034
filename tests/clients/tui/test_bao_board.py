"""The Bao board widget: the pits, stores, houses and takasia mark as text, the last move's
pits, and moves picked by pit and direction with the keys and the mouse, from either side."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from clients.tui.bao_board import (
    ASCII,
    BOTTOM_BACK,
    BOTTOM_FRONT,
    LINES,
    TOP_BACK,
    TOP_FRONT,
    WIDTH,
    BaoBoard,
    Pit,
    bao_text,
    changed_pits,
    pit_at,
)
from clients.tui.board import board_for
from clients.tui.move_input import MoveInput
from engine.bao import BaoPosition, Move
from tests.clients.tui.host import BoardHost

KIBA_TAKASIA = (
    "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,0,0,2,0/0,0,2,2,0,2,6,4 0-0 - - s mtaji 44"
)


def after(position: BaoPosition, *moves: str) -> BaoPosition:
    position = position.clone()
    for move in moves:
        position.apply(position.parse_move(move))
    return position


def test_the_start_as_text_shows_stores_houses_and_the_pits_a_move_starts_from() -> None:
    start = BaoPosition()
    assert bao_text(start, targets={move.pit for move in start.legal_moves}, glyphs=ASCII) == [
        " North (black)  store 22  namua",
        "     8    7    6    5    4    3    2    1",
        " B   0    0    0    0    0    0    0    0",
        " A   0    2    2    6^   0    0    0    0",
        "   ----------------------------------------",
        " A   0    0    0    0    6^ * 2  * 2    0",
        " B   0    0    0    0    0    0    0    0",
        "     1    2    3    4    5    6    7    8",
        " South (white)  store 22  namua  < to move",
        "",
    ]


def test_the_takasia_mark_and_the_last_moves_pits_from_norths_side() -> None:
    blocked = after(BaoPosition.parse(KIBA_TAKASIA), "A7<")
    # South's A7< lifted A7 (column g) and sowed A6 and A5; North's A4 is takasia'd.
    assert changed_pits(blocked) == {Pit(0, 6), Pit(0, 5), Pit(0, 4)}
    text = bao_text(
        blocked,
        bottom=1,
        last_move=Move.parse("A7<"),
        changed=changed_pits(blocked),
        glyphs=ASCII,
    )
    assert text[3] == " A   0  < 0 >. 1 .. 1 .  0    0    2    0"
    assert text[5] == " A   1    0    1    2x  10    0    0   10"
    assert text[8] == " North (black)  store 0  mtaji  < to move"


def test_a_finished_game_says_who_won() -> None:
    # North, to move, has an empty front row: South has won.
    position = BaoPosition.parse(
        "0,0,0,0,0,0,0,2/0,0,0,0,0,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 0-0 - - n mtaji 9"
    )
    assert position.is_terminal()
    text = bao_text(position, glyphs=ASCII)
    assert (text[0], text[8]) == (
        " North (black)  store 0  mtaji  lost",
        " South (white)  store 0  mtaji  won",
    )


def test_a_board_is_found_by_game_name() -> None:
    assert board_for("bao") is BaoBoard


@pytest.mark.asyncio
async def test_a_move_made_with_the_cursor_pit_then_direction() -> None:
    app = BoardHost(BaoPosition(), game="bao")
    async with app.run_test() as pilot:
        board = app.query_one(BaoBoard)
        # The cursor starts on A1; A1 has no move: Enter does nothing.
        await pilot.press("enter")
        assert board.picked is None
        await pilot.press(*["right"] * 5, "enter")  # A6: < or >
        assert [str(move) for move in board.choices()] == ["A6<", "A6>"]
        assert board.render().plain.splitlines()[-1] == " A6: [A6<]  A6> "
        await pilot.press("escape")
        assert board.picked is None
        await pilot.press("enter", "right", "enter")
    assert app.chosen == ["A6>"]


@pytest.mark.asyncio
async def test_a_move_made_with_the_mouse_from_norths_side() -> None:
    # North to move, the board turned round: North's A7 is the seventh pit from the left of
    # the bottom front row (line 5).
    app = BoardHost(after(BaoPosition(), "A6>"), player=1, flipped=True, game="bao")
    async with app.run_test() as pilot:
        board = app.query_one(BaoBoard)
        assert board.bottom == 1
        assert await pilot.click(board, offset=(3 + 5 * 6 + 2, 5))
        assert board.picked == 6
        choices = [str(move) for move in board.choices()]
        assert choices == ["A7<", "A7>"]
        # The choice line: " A7: [A7<]  A7> ", A7> from column 12.
        assert await pilot.click(board, offset=(13, LINES - 1))
    assert app.chosen == ["A7>"]


@pytest.mark.asyncio
@pytest.mark.parametrize("flipped", [False, True])
async def test_a_terminal_with_room_draws_the_board_large_and_clicks_find_its_pits(
    flipped: bool,
) -> None:
    # The side to move at the bottom: South from the start, North after A6>.
    position = after(BaoPosition(), "A6>") if flipped else BaoPosition()
    app = BoardHost(position, player=int(flipped), flipped=flipped, game="bao")
    async with app.run_test(size=(120, 40)) as pilot:
        board = app.query_one(BaoBoard)
        await pilot.pause()
        # Seven columns by three lines a pit, one of each blank, its seeds on its first line
        # under its number; the rows' names beside their seeds.
        assert board.region.size == (59, 18)
        lines = board.render().plain.splitlines()
        numbers = [str(number) for number in range(1, 9)]
        assert lines[1] == "   " + "".join(f"{n:^7}" for n in reversed(numbers))
        assert lines[15] == "   " + "".join(f"{n:^7}" for n in numbers)
        assert [line[:3] for line in lines[2:15]] == [
            *[" B ", "   ", "   ", " A ", "   ", "   "],
            "   ",
            *["   ", " A ", "   ", "   ", " B ", "   "],
        ]
        assert lines[4].strip() == lines[12].strip() == ""  # between the rows
        front = lines[10]
        assert [front[3 + 7 * pit + 2 : 3 + 7 * pit + 4] for pit in range(8)] == [
            f"{seeds:>2}" for seeds in _seeds(board, BOTTOM_FRONT)
        ]
        # The bottom front row's pits from the left: A1..A8. A6 (A7 for North) offers two
        # ways; a click anywhere on its three lines picks it, above or below them nothing.
        pit = 6 if flipped else 5
        for line in (1, 8, 15, 16):
            assert await pilot.click(board, offset=(3 + 7 * pit + 3, line))
            assert board.picked is None
        for line in (9, 10, 11):
            board.picked = None
            assert await pilot.click(board, offset=(3 + 7 * pit + 6, line))
            assert board.picked == pit
        label = "A7" if flipped else "A6"
        assert [str(move) for move in board.choices()] == [f"{label}<", f"{label}>"]
        # The choice line, the last: " A6: [A6<]  A6> ", A6> from column 12.
        assert await pilot.click(board, offset=(13, 17))
    assert app.chosen == [f"{label}>"]
    # Where there is no room, as before.
    app = BoardHost(BaoPosition(), game="bao")
    async with app.run_test(size=(100, 32)):
        assert app.query_one(BaoBoard).region.size == (WIDTH, LINES)


@pytest.mark.asyncio
async def test_a_spectator_and_the_side_not_to_move_pick_nothing() -> None:
    for player in (None, 1):
        app = BoardHost(BaoPosition(), player=player, game="bao")
        async with app.run_test() as pilot:
            board = app.query_one(BaoBoard)
            await pilot.press(*["right"] * 5, "enter", "enter")
            assert board.picked is None
            assert "\u2022" not in board.render().plain  # no pit offered
        assert app.chosen == []


@pytest.mark.asyncio
async def test_a_game_ended_on_the_clock_offers_nothing_and_nobody_is_to_move() -> None:
    app = BoardHost(BaoPosition(), game="bao")
    async with app.run_test() as pilot:
        board = app.query_one(BaoBoard)
        before = board.render().plain
        assert "\u2022" in before
        assert "to move" in before
        board.ended = True  # South's flag fell with moves still to make
        await pilot.press(*["right"] * 5, "enter", "enter")
        assert board.picked is None
        lines = board.render().plain.splitlines()
        assert "\u2022" not in board.render().plain
        # Neither side is to move, and the position names no winner: the result line does.
        assert lines[0].rstrip() == " North (black)  store 22  namua"
        assert lines[8].rstrip() == " South (white)  store 22  namua"
        with pytest.raises(ValueError, match="the game is over"):
            board.check_move("A6>")
    assert app.chosen == []


@pytest.mark.asyncio
async def test_a_typed_move_is_checked_by_the_engine() -> None:
    app = BoardHost(BaoPosition(), game="bao")
    async with app.run_test() as pilot:
        field = app.query_one("#move-text", Input)
        field.focus()
        await pilot.press(*"a3>", "enter")
        reason = app.query_one(MoveInput).reason
        assert reason.startswith("pit A3")
        assert field.value == "a3>"
        field.value = ""
        await pilot.press(*"a7 <", "enter")
    assert app.chosen == ["A7<"]


@pytest.mark.asyncio
@pytest.mark.parametrize("no_color", [True, False])
async def test_the_widget_fits_and_reads_without_colour(
    monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = BoardHost(after(BaoPosition(), "A6>"), player=None, last_move="A6>", game="bao")
    async with app.run_test(size=(80, 24)):
        board = app.query_one(BaoBoard)
        lines = board.render().plain.splitlines()
        # Without colour the pits the last move sowed are marked by dots; in colour, by colour.
        dot = "\u00b7" if no_color else " "
        house, last = "6\u2302", "\u2039 0 \u203a"
        assert lines[5] == f" A   0    0    0    0    {house} {last}{dot} 3 {dot}{dot} 1 {dot}"
        assert lines[6].rstrip() == f" B   0    0    0    0    0    0    0  {dot} 1 {dot}".rstrip()
        assert board.region.size == (WIDTH, LINES)


TWO_CAPTURES = "0,0,0,0,0,0,0,0/0,0,0,1,3,1,6,0/0,3,2,1,1,0,1,0/0,0,0,0,0,2,3,1 0-0 - - s mtaji 44"


@pytest.mark.asyncio
async def test_the_brackets_step_through_the_last_moves_sowing() -> None:
    """A2> of the rules note's two-captures example, seen by North: five steps, each showing
    the pits it changed; past either end the position itself again."""
    position = after(BaoPosition.parse(TWO_CAPTURES), "A2>")
    app = BoardHost(position, player=1, last_move="A2>", game="bao")
    async with app.run_test() as pilot:
        board = app.query_one(BaoBoard)
        board.focus()
        lines = board.render().plain.splitlines()
        assert lines[-1] == " [ ]: the sowing of A2>, step by step"
        assert _seeds(board, BOTTOM_FRONT) == [1, 1, 1, 4, 4, 2, 3, 1]
        await pilot.press("right_square_bracket")
        lines = board.render().plain.splitlines()
        assert lines[-1] == " the sowing of A2>: step 1 of 5"
        assert _seeds(board, BOTTOM_FRONT) == [0, 0, 2, 1, 1, 0, 1, 0]  # A2's 3 lifted
        assert _marked(board) == {Pit(0, 1)}
        await pilot.press("right_square_bracket")
        lines = board.render().plain.splitlines()
        assert lines[-1] == " the sowing of A2>: step 2 of 5"
        assert _seeds(board, BOTTOM_FRONT) == [0, 0, 3, 2, 2, 0, 1, 0]
        assert _seeds(board, TOP_FRONT) == [0, 0, 0, 1, 0, 1, 6, 0]  # North's 3 taken
        assert _marked(board) == {Pit(0, 2), Pit(0, 3), Pit(0, 4), Pit(1, 3)}
        await pilot.press(*["right_square_bracket"] * 3)
        assert board.sowing_step is None
        assert _seeds(board, BOTTOM_FRONT) == [1, 1, 1, 4, 4, 2, 3, 1]
        await pilot.press("left_square_bracket")
        assert board.render().plain.splitlines()[-1] == " the sowing of A2>: step 4 of 5"
        await pilot.press("down")  # moving the cursor shows the position again
        assert board.sowing_step is None


def _marked(board: BaoBoard) -> set[Pit]:
    """The pits drawn as changed by the step shown (a pit's seeds are its row's second piece
    after the row's name, four pieces a pit)."""
    rows = board.rows()
    return {
        pit
        for line in (TOP_BACK, TOP_FRONT, BOTTOM_FRONT, BOTTOM_BACK)
        for column in range(8)
        if "sown" in rows[line][2 + 4 * column][1]
        and (pit := pit_at(line, column, board.bottom)) is not None
    }


def _seeds(board: BaoBoard, line: int) -> list[int]:
    """The seeds of the pits drawn on `line`, left to right."""
    return [int(board.rows()[line][2 + 4 * column][0]) for column in range(8)]


def test_a_move_from_the_analysis_marks_the_pit_it_sows_from() -> None:
    start = BaoPosition()
    move = next(iter(start.legal_moves))
    text = bao_text(start, hint=move, glyphs=ASCII)
    line = text[5]  # South's front row, A1 to A8
    column = 3 + 5 * move.pit  # each pit five columns after the row's label
    assert line[column : column + 5] == "< 2 >"
    assert bao_text(start, glyphs=ASCII)[5].count("<") == 0
