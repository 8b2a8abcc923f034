"""A recorded game reviewed: every position judged once (engine.judge), each move marked, and
the whole printed as annotated text, for `arena analyze --record FILE --game N`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from engine.judge import (
    DEFAULT_EFFORT,
    Judgement,
    MoveReview,
    PlayerSummary,
    judge,
    review,
    summary,
)
from engine.records import GameRecord

__all__ = ["GameReview", "evaluation_blocks", "review_record"]

BLOCKS = "▁▂▃▄▅▆▇█"  # White's chance from 0 to 1 in eighths, a block per position
PROGRESS_EVERY = 10  # positions between progress reports


@dataclass(frozen=True, slots=True)
class GameReview:
    record: GameRecord
    effort: int
    judgements: tuple[Judgement, ...]  # one per position, from the start
    moves: tuple[MoveReview, ...]
    summary: tuple[PlayerSummary, PlayerSummary]  # White's, Black's

    def text(self, title: str) -> str:
        """The annotated game, under `title` (which game of which file)."""
        record = self.record
        result = "unfinished" if record.winner is None else f"{record.winner} won"
        if record.winner is not None and record.termination:
            result += f" ({record.termination})"
        lines = [
            f"{title}: {record.game}, white {record.white}, black {record.black}; {result}",
            f"judged at effort {self.effort}: {self._engine()}",
            "White's chance, a block per position from the start:",
            evaluation_blocks(j.white_wins for j in self.judgements),
        ]
        width = max((len(m.move) for m in self.moves), default=0)
        for move, after in zip(self.moves, self.judgements[1:], strict=True):
            line = f"{move.ply:4}. {move.mover:5}  {move.move:<{width}}  {_chance(after)}"
            if move.mark is not None:
                line += f"  {move.mark} (-{_percent(move.loss)})"
                if move.better is not None:
                    line += f", better {move.better}"
            lines.append(line.rstrip())
        for player in self.summary:
            lines.append(
                f"{player.player}: {_count(player.inaccuracies, 'inaccuracy', 'inaccuracies')}, "
                f"{_count(player.mistakes, 'mistake', 'mistakes')}, "
                f"{_count(player.blunders, 'blunder', 'blunders')}, "
                f"average loss {_percent(player.average_loss)}"
            )
        return "\n".join(lines)

    def as_dict(self) -> dict[str, object]:
        return {
            "game": self.record.game,
            "effort": self.effort,
            "judgements": [asdict(j) for j in self.judgements],
            "moves": [asdict(m) for m in self.moves],
            "summary": [asdict(s) for s in self.summary],
        }

    def json(self) -> str:
        return json.dumps(self.as_dict())

    def _engine(self) -> str:
        searched = next((j for j in self.judgements if j.playouts or j.depth), None)
        if searched is None:
            return "every position exact"
        if searched.playouts:
            return f"invader, {searched.playouts:,} playouts a position, exact once solved"
        return f"bao-deep, {searched.depth} plies a position"


def review_record(
    record: GameRecord,
    *,
    effort: int = DEFAULT_EFFORT,
    progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Judge every position of `record` and mark its moves; `progress(done, total)` hears of
    the positions judged every PROGRESS_EVERY and at the end."""
    record.replay()  # every move checked, a bad one named
    state = record.replay(0)
    texts = [state.text()]
    for move in record.moves:
        state.apply(state.parse_move(move))
        texts.append(state.text())
    judgements = []
    for done, text in enumerate(texts, 1):
        judgements.append(judge(record.game, text, effort=effort))
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(texts)):
            progress(done, len(texts))
    moves = review(record.moves, judgements)
    return GameReview(record, effort, tuple(judgements), moves, summary(moves))


def evaluation_blocks(chances: Iterable[float]) -> str:
    """White's chances, each from 0 to 1, as a line of blocks."""
    top = len(BLOCKS) - 1
    return "".join(BLOCKS[min(top, int(c * len(BLOCKS)))] for c in chances)


def _chance(judgement: Judgement) -> str:
    text = f"White {_percent(judgement.white_wins)}"
    return text + " exact" if judgement.exact else text


def _percent(x: float) -> str:
    return f"{round(100 * x)}%"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
