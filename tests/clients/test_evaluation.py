"""How an engine's judgement reads: the winning chance in words, the bar's cells, what the
estimate rests on, the graph of a reviewed game in blocks, and each side's summary."""

from __future__ import annotations

import pytest

from clients.evaluation import (
    MARK_SIGNS,
    basis_text,
    chance_text,
    evaluation_bar,
    evaluation_graph,
    summary_text,
)
from server.protocol import Analysis, Colour, MoveMark, PlayerReview


@pytest.mark.parametrize(
    ("white_wins", "exact", "words"),
    [
        (640, False, "White 64%"),
        (420, False, "Black 58%"),
        (500, False, "even"),
        (999, False, "White 99%"),  # not sure unless the engine says exactly
        (1, False, "Black 99%"),
        (1000, True, "White wins (exact)"),
        (0, True, "Black wins (exact)"),
    ],
)
def test_the_chance_in_words(white_wins: int, exact: bool, words: str) -> None:
    assert chance_text(white_wins, exact) == words


def test_what_the_estimate_rests_on() -> None:
    position = "6/6/6/6/6/6 w"
    assert basis_text(Analysis(position, (), "?", depth=6)) == "depth 6"
    assert basis_text(Analysis(position, (), "?", playouts=12000)) == "12,000 playouts"
    assert basis_text(Analysis(position, (), "?", playouts=1)) == "1 playout"
    assert basis_text(Analysis(position, (), "?")) == ""


def test_the_bar_keeps_a_sliver_for_the_side_not_sure_to_lose() -> None:
    assert evaluation_bar(640, 20) == (13, 7)
    assert evaluation_bar(999, 20) == (19, 1)
    assert evaluation_bar(2, 20) == (1, 19)
    assert evaluation_bar(1000, 20) == (20, 0)
    assert evaluation_bar(0, 20) == (0, 20)


def test_the_graph_is_a_block_a_position_or_averaged_to_fit() -> None:
    assert evaluation_graph([0, 500, 1000], 10) == "▁▄█"
    assert evaluation_graph([0, 500, 1000], 10, ascii=True) == "_:#"
    # Six positions in three blocks: each the average of its two.
    assert evaluation_graph([0, 0, 1000, 1000, 0, 1000], 3) == "▁█▄"
    assert evaluation_graph([], 10) == ""


def test_a_sides_summary_in_a_line() -> None:
    review = PlayerReview(Colour.WHITE, 1, 0, 2, 42)
    assert summary_text(review) == (
        "White: 1 inaccuracy, 0 mistakes, 2 blunders; average loss 4.2%"
    )
    assert [MARK_SIGNS[mark] for mark in MoveMark] == ["?!", "?", "??"]
