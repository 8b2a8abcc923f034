"""The Amazons board: its plain text on 6x6 and 10x10, in Unicode and ASCII, and moves made
with the cursor and the mouse under Textual's pilot."""

from __future__ import annotations

import pytest

from clients.tui.amazons_board import (
    ASCII,
    AmazonsBoard,
    MoveSteps,
    board_rows,
    board_text,
    dead_squares,
)
from clients.tui.board import board_for
from engine.amazons import Move, Position, Square
from engine.errors import NotationError
from tests.clients.tui.host import BoardHost, amazons


def test_the_10x10_start_in_unicode_has_coordinates_on_four_sides_and_dotted_dark_squares() -> None:
    assert board_text(Position.setup("10x10")) == [
        "    a  b  c  d  e  f  g  h  i  j    ",
        "10     ·     ♛     ·  ♛  ·     ·  10",
        " 9  ·     ·     ·     ·     ·     9 ",
        " 8     ·     ·     ·     ·     ·  8 ",
        " 7  ♛     ·     ·     ·     ·  ♛  7 ",
        " 6     ·     ·     ·     ·     ·  6 ",
        " 5  ·     ·     ·     ·     ·     5 ",
        " 4  ♕  ·     ·     ·     ·     ♕  4 ",
        " 3  ·     ·     ·     ·     ·     3 ",
        " 2     ·     ·     ·     ·     ·  2 ",
        " 1  ·     ·  ♕  ·     ♕     ·     1 ",
        "    a  b  c  d  e  f  g  h  i  j    ",
    ]


def test_the_6x6_board_in_ascii_marks_the_last_move_and_the_cursor() -> None:
    position = Position.setup("6x6")
    move = Move.parse("b1-b4/d4")
    position.apply(move)
    assert board_text(position, glyphs=ASCII, last_move=move, cursor=Square.parse("a6")) == [
        "    a  b  c  d  e  f    ",
        " 6 [ ] B     .  B  .  6 ",
        " 5  B     .     .  B  5 ",
        " 4    <W>   <x>    .  4 ",
        " 3  .     .     .     3 ",
        " 2  W  .     .     W  2 ",
        " 1  . < > .     W     1 ",
        "    a  b  c  d  e  f    ",
    ]


def test_the_steps_of_a_move_show_their_targets_and_the_amazon_where_it_goes() -> None:
    position = Position.setup("6x6")
    steps = MoveSteps(position)
    assert steps.pick(Square.parse("b1")) is None
    assert steps.pick(Square.parse("b4")) is None
    text = board_text(position, glyphs=ASCII, picks=steps.picks, targets=steps.targets())
    # The amazon is drawn on b4, marked as picked; b1, the square it left, is marked too and is
    # a target again (an arrow may land on the square just vacated).
    assert text == [
        "    a  b  c  d  e  f    ",
        " 6     B     +  B  .  6 ",
        " 5  B  +  +     .  B  5 ",
        " 4  + (W) +  +  +  +  4 ",
        " 3  +  +  +     .     3 ",
        " 2  W  +     +     W  2 ",
        " 1  . (+) .     W     1 ",
        "    a  b  c  d  e  f    ",
    ]
    assert steps.pick(Square.parse("b1")) == Move.parse("b1-b4/b1")
    assert steps.picks == []


def test_a_10x10_board_fits_beside_a_move_list_in_80_columns() -> None:
    lines = board_text(Position.setup("10x10"))
    assert {len(line) for line in lines} == {36}
    assert len(lines) == 12


def test_squares_no_amazon_can_reach_are_drawn_dead() -> None:
    # Arrows on a2, b2, c2 and c1 wall a1 and b1 off with no amazon inside. A row is its rank
    # and three pieces a square (mark, symbol, mark).
    position = Position.parse("W5/6/6/6/xxx3/2x2B w")
    rows = board_rows(position)
    assert dead_squares(position) == {Square.parse("a1"), Square.parse("b1")}
    rank_1, rank_6 = rows[6], rows[1]
    assert [("dead" in kinds) for _, kinds in rank_1[2:-1:3]] == [True, True] + [False] * 4
    assert not any("dead" in kinds for _, kinds in rank_6)
    # Without colour the dead squares have a glyph of their own.
    assert board_text(position)[6] == " 1  ░  ░  \u00d7     ·  ♛  1 "
    assert board_text(position, glyphs=ASCII)[6] == " 1  :  :  x     .  B  1 "


def test_a_queued_premove_is_marked_on_its_three_squares() -> None:
    text = board_text(Position.setup("6x6"), premove=Move.parse("b1-b4/d4"), glyphs=ASCII)
    assert text[3] == " 4    {.}   {.}    .  4 "
    assert text[6] == " 1  . {W} .     W     1 "


def test_a_board_is_found_by_game_name_and_an_unknown_game_is_refused() -> None:
    assert board_for("amazons") is AmazonsBoard
    with pytest.raises(NotationError, match="no terminal board for the game 'chess'"):
        board_for("chess")


@pytest.mark.asyncio
async def test_a_move_made_with_the_cursor() -> None:
    app = BoardHost(amazons("6x6"))
    async with app.run_test() as pilot:
        # The cursor starts on a1: right to b1, pick the amazon; up 3 to b4; right 2 to d4.
        await pilot.press("right", "enter", "up", "up", "up", "enter", "right", "right", "space")
    assert app.chosen == ["b1-b4/d4"]


@pytest.mark.asyncio
async def test_escape_steps_back_and_a_square_that_is_no_target_is_not_picked() -> None:
    app = BoardHost(amazons("6x6"))
    async with app.run_test() as pilot:
        board = app.query_one(AmazonsBoard)
        await pilot.press("right", "enter", "up", "enter")  # b1, then b2
        assert board.steps.picks == [Square.parse("b1"), Square.parse("b2")]
        await pilot.press("escape")
        assert board.steps.picks == [Square.parse("b1")]
        await pilot.press("right", "enter")  # c2 is no queen move from b1... it is: diagonal
        assert board.steps.picks == [Square.parse("b1"), Square.parse("c2")]
        await pilot.press("escape", "escape")
        assert board.steps.picks == []
        await pilot.press("up", "enter")  # c3 has no amazon of White's
        assert board.steps.picks == []
    assert app.chosen == []


@pytest.mark.asyncio
async def test_a_move_made_with_the_mouse() -> None:
    app = BoardHost(amazons("6x6"))
    async with app.run_test() as pilot:
        board = app.query_one(AmazonsBoard)

        def at(square: str) -> tuple[int, int]:
            s = Square.parse(square)
            return (3 + 3 * s.file + 1, 6 - s.rank)

        for square in ("e1", "e4", "b4"):
            assert await pilot.click(board, offset=at(square))
    assert app.chosen == ["e1-e4/b4"]


def test_a_flipped_board_has_blacks_side_at_the_bottom_and_reads_from_the_right() -> None:
    position = Position.setup("6x6")
    assert board_text(position, glyphs=ASCII, flipped=True) == [
        "    f  e  d  c  b  a    ",
        " 1     W     .  W  .  1 ",
        " 2  W     .     .  W  2 ",
        " 3     .     .     .  3 ",
        " 4  .     .     .     4 ",
        " 5  B  .     .     B  5 ",
        " 6  .  B  .     B     6 ",
        "    f  e  d  c  b  a    ",
    ]


@pytest.mark.asyncio
async def test_on_a_flipped_board_clicks_and_the_cursor_go_where_the_user_sees() -> None:
    app = BoardHost(amazons("1B2B1/B4B/6/6/W4W/1W2W1 b"), player=1, flipped=True)
    async with app.run_test() as pilot:
        board = app.query_one(AmazonsBoard)

        def at(square: str) -> tuple[int, int]:
            s = Square.parse(square)
            return (3 + 3 * (5 - s.file) + 1, 1 + s.rank)

        # The cursor starts on a1, at the top right: left is towards b, down towards rank 2.
        await pilot.press("left", *["down"] * 5, "enter", "up", "up", "up", "enter")
        await pilot.press("left", "left", "space")
        for square in ("e6", "e3", "b3"):
            assert await pilot.click(board, offset=at(square))
    assert app.chosen == ["b6-b3/d3", "e6-e3/b3"]


@pytest.mark.asyncio
async def test_a_spectator_picks_nothing() -> None:
    app = BoardHost(amazons("6x6"), player=None)
    async with app.run_test() as pilot:
        await pilot.press("right", "enter", "up", "up", "up", "enter", "right", "right", "enter")
        assert "[" not in "".join(t for row in app.query_one(AmazonsBoard).rows() for t, _ in row)
    assert app.chosen == []


@pytest.mark.asyncio
async def test_while_the_other_side_is_to_move_a_move_is_picked_for_a_premove() -> None:
    app = BoardHost(amazons("6x6"), player=1)
    async with app.run_test() as pilot:
        # Black's amazon b6 to b3, shooting at e3, picked while White is to move.
        await pilot.press("right", *["up"] * 5, "enter", *["down"] * 3, "enter")
        await pilot.press(*["right"] * 3, "enter")
    assert app.chosen == ["b6-b3/e3"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("no_color", "dots"), [(True, 50), (False, 0)])
async def test_without_colour_the_widget_shades_dark_squares_with_dots(
    monkeypatch: pytest.MonkeyPatch, no_color: bool, dots: int
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = BoardHost(amazons("10x10"), player=None)
    async with app.run_test(size=(80, 24)):
        board = app.query_one(AmazonsBoard)
        lines = board.render().plain.splitlines()
        # 50 dark squares, less the four amazons on dark squares (d10, a7, j4, g1 on 10x10).
        assert sum(line.count("·") for line in lines) == max(dots - 4, 0)
        assert lines[0] == "    a  b  c  d  e  f  g  h  i  j    "
        assert board.region.size == (36, 12)


def test_picks_stay_through_a_new_position_while_they_still_begin_a_legal_move() -> None:
    before = Position.setup("10x10")
    steps = MoveSteps(before)
    steps.pick(Square.parse("d1"))
    steps.pick(Square.parse("d6"))
    after = Position.setup("10x10")
    after.apply(Move.parse("d1-d2/d3"))
    after.apply(Move.parse("a7-b6/c6"))
    # The amazon picked on d1 has gone to d2: nothing stays.
    assert MoveSteps(after, steps.picks).picks == []
    kept = MoveSteps(after, [Square.parse("g1"), Square.parse("g6")])
    assert kept.picks == [Square.parse("g1"), Square.parse("g6")]
    cut = MoveSteps(after, [Square.parse("a4"), Square.parse("d7")])  # c6 now blocks a4-d7
    assert cut.picks == [Square.parse("a4")]


@pytest.mark.asyncio
async def test_the_widget_draws_in_ascii_when_asked() -> None:
    for ascii, row in ((False, " 6     ♛        ♛     6 "), (True, " 6     B        B     6 ")):
        app = BoardHost(amazons("6x6"), player=None, ascii=ascii)
        async with app.run_test():
            assert app.query_one(AmazonsBoard).render().plain.splitlines()[1] == row


@pytest.mark.asyncio
@pytest.mark.parametrize("flipped", [False, True])
async def test_a_terminal_with_room_draws_the_board_large_and_clicks_find_its_squares(
    flipped: bool,
) -> None:
    app = BoardHost(amazons("10x10"), flipped=flipped)
    async with app.run_test(size=(120, 40)) as pilot:
        board = app.query_one(AmazonsBoard)
        await pilot.pause()
        # Five columns by two lines a square, the coordinates around.
        assert board.region.size == (56, 22)
        lines = board.render().plain.splitlines()
        files = "abcdefghij"[::-1] if flipped else "abcdefghij"
        assert lines[0] == "   " + "".join(f"  {file}  " for file in files) + "   "
        assert (lines[1].split()[0], lines[2].strip()) == ("1" if flipped else "10", "")

        def at(square: str) -> tuple[int, int]:
            file, rank = Square.parse(square).file, Square.parse(square).rank
            if flipped:
                file, rank = 9 - file, 9 - rank
            return (3 + 5 * file + 2, 1 + 2 * (9 - rank) + 1)  # the square's second line

        for square in ("d1", "d7", "g7"):
            assert await pilot.click(board, offset=at(square))
        await pilot.pause()
    assert app.chosen == ["d1-d7/g7"]
    # Where there is no room, as before.
    app = BoardHost(amazons("10x10"))
    async with app.run_test(size=(100, 32)):
        assert app.query_one(AmazonsBoard).region.size == (36, 12)
