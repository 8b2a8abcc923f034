"""How an engine's judgement reads for people, in any client: White's winning chance in words
(`White 64%`, `Black wins (exact)`) and as a bar, what the estimate rests on, the evaluation
over a reviewed game's plies as a line of blocks, and each move's mark as its sign (`?!`, `?`,
`??`). The server's `analysis` and `game_analysis` give the numbers; nothing is worked out here
but their words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from server.protocol import Analysis, MoveMark, PlayerReview

__all__ = [
    "MARK_SIGNS",
    "basis_text",
    "chance_text",
    "evaluation_bar",
    "evaluation_graph",
    "summary_text",
]

SURE: Final = 1000  # permille: a sure win
MARK_SIGNS: Final = {MoveMark.INACCURACY: "?!", MoveMark.MISTAKE: "?", MoveMark.BLUNDER: "??"}
# A graph's levels, from Black sure to win (the lowest) to White sure to win (a full block).
GRAPH_LEVELS: Final = "▁▂▃▄▅▆▇█"
GRAPH_LEVELS_ASCII: Final = "_.-:=+*#"


def chance_text(white_wins: int, exact: bool = False) -> str:
    """White's winning chance `white_wins` (permille) as the side it favours and its chance:
    `White 64%`, `Black 58%`, `even` at one half; `White wins (exact)` when the winner is known."""
    if exact:
        return f"{'White' if white_wins >= SURE // 2 else 'Black'} wins (exact)"
    if white_wins == SURE // 2:
        return "even"
    side, chance = ("White", white_wins) if white_wins > SURE // 2 else ("Black", SURE - white_wins)
    # 99.6% is not a sure win: it reads 99%, never 100%, unless the engine says exactly.
    return f"{side} {min(round(chance / 10), 99)}%"


def basis_text(analysis: Analysis) -> str:
    """What the estimate rests on: `depth 6`, `2,000 playouts`, or nothing when not said."""
    if analysis.depth is not None:
        return f"depth {analysis.depth}"
    if analysis.playouts is not None:
        return f"{analysis.playouts:,} playout{'' if analysis.playouts == 1 else 's'}"
    return ""


def evaluation_bar(white_wins: int, width: int) -> tuple[int, int]:
    """How many of a bar's `width` cells are White's and Black's: White's share, rounded, and
    never all of it to one side unless the chance is sure (a side's sliver stays visible)."""
    white = round(width * white_wins / SURE)
    if 0 < white_wins < SURE and width >= 2:
        white = min(max(white, 1), width - 1)
    return white, width - white


def evaluation_graph(white_wins: Sequence[int], width: int, *, ascii: bool = False) -> str:
    """White's winning chance over a game's positions as one line of at most `width` blocks,
    higher for White: one a position when they fit, else each block the positions it stands
    for averaged."""
    levels = GRAPH_LEVELS_ASCII if ascii else GRAPH_LEVELS
    if not white_wins or width < 1:
        return ""
    count = min(len(white_wins), width)
    blocks = []
    for column in range(count):
        start = column * len(white_wins) // count
        end = max((column + 1) * len(white_wins) // count, start + 1)
        chance = sum(white_wins[start:end]) / (end - start)
        blocks.append(levels[min(int(chance * len(levels) / (SURE + 1)), len(levels) - 1)])
    return "".join(blocks)


def summary_text(review: PlayerReview) -> str:
    """One side's review in a line: `White: 1 inaccuracy, 0 mistakes, 2 blunders; average
    loss 4.2%`."""

    def counted(count: int, word: str, plural: str) -> str:
        return f"{count} {word if count == 1 else plural}"

    return (
        f"{review.colour.capitalize()}: "
        f"{counted(review.inaccuracies, 'inaccuracy', 'inaccuracies')}, "
        f"{counted(review.mistakes, 'mistake', 'mistakes')}, "
        f"{counted(review.blunders, 'blunder', 'blunders')}; "
        f"average loss {review.average_loss / 10:.1f}%"
    )
