"""The engine's judgement of a position of either game, and a game reviewed move by move.

`judge` asks the strongest engine of the game what it thinks of a position: for Amazons,
`invader` (a fixed number of playouts) and, once the board has split into regions, the CGT
analysis (engine.cgt.analysis), which is exact when it finds every region's value; for Bao,
`bao-deep` searched to a fixed depth. The effort fixes the work, never the time, so a
position is judged the same on any machine and every time (servers cache judgements by
position).

The scale is White's chance to win, 0 to 1 (docs/cgt.md, "The engine's judgement"):
* Amazons: the search's win rate over all its playouts, which counts from a par (the position's
  value two plies on, `invader`'s komi), turned back into an absolute chance by adding the par
  again on the logistic scale the evaluation was fitted to (`absolute_chance`); 1 or 0 when
  exact.
* Bao: a logistic of the search's value in seeds (`BAO_SEEDS_SLOPE`), averaged over two
  searches a ply apart; 1 or 0 when a search sees the end of the game.

`review` marks each move by the mover's drop in that chance (`THRESHOLDS`), and `summary`
counts the marks and the average drop per player.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from engine.amazons import Position
from engine.amazons.notation import Side
from engine.amazons.regions import RegionKind
from engine.bao.position import BaoPosition
from engine.cgt.amazons import BudgetExceededError, RegionSolver
from engine.cgt.analysis import JsonValue, PositionAnalysis, analyze
from engine.cgt.form import ZERO
from engine.errors import NotationError
from engine.game import GameState, get_game
from engine.search.bao_bots import WIN, BaoDeepBot
from engine.search.bot import Budget
from engine.search.invader import InvaderBot
from engine.search.mcts import MOVE, VISITS

__all__ = [
    "DEFAULT_EFFORT",
    "MAX_EFFORT",
    "THRESHOLDS",
    "Judgement",
    "MoveReview",
    "PlayerSummary",
    "absolute_chance",
    "judge",
    "review",
    "summary",
]

# Effort runs from 1 to MAX_EFFORT; each step doubles the work. At the default a 10x10 position
# not solved took 0.27 s of CPU in the median and 1.4 s at most (an opening: the root ranks
# every move), 0.5 s and 2.5 s of wall-clock time on the loaded 2-core machine
# (bench/analysis.py).
MAX_EFFORT: Final = 8
DEFAULT_EFFORT: Final = 4
LINE_PLIES: Final = 12  # the longest best line given
# A move of the best line needs this many playouts through it: below, the tree's choice is
# noise.
LINE_VISITS: Final = 4
# Region positions the CGT solver may search at effort 1 (doubled at each step): the solver
# met 16,000 to 20,000 a second on 10x10 regions on the loaded 2-core machine, so 10,000 at the
# default is about half a second at most.
REGION_POSITIONS: Final = 1_250
# Regions with more empty squares than this are not given to the solver: on a 10x10 game it
# solved regions of 9 and 10 empty squares within 5,000 and 20,000 positions, and none of 16
# or more within 80,000.
SOLVABLE_EMPTY: Final = 14
# Bao: plies searched below the effort, the effort added (two searches, a ply apart).
BAO_DEPTH: Final = 4
# Bao: a value of x seeds for the side to move is a chance of 1 / (1 + e^(-x / 8)): eight
# seeds ahead is 73%, twenty 92%.
BAO_SEEDS_SLOPE: Final = 1 / 8
# The fraction of a point counted as a chance: beyond, the logit is infinite.
CERTAIN: Final = 1e-6


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the engine thinks of a position (see the module's docstring for the scale)."""

    game: str  # "amazons" or "bao"
    position: str  # the position's text, as the game's parse_state reads it
    white_wins: float  # White's chance to win, 0.0 to 1.0 (1.0 or 0.0 when exact)
    line: tuple[str, ...]  # the best line from the position, move texts, up to LINE_PLIES
    depth: int | None  # plies searched (alpha-beta), or None
    playouts: int | None  # playouts behind the estimate (Monte Carlo), or None
    exact: bool  # the winner is known exactly (every region's value found, or the game over)
    regions: dict[str, JsonValue] | None  # Amazons split into regions: the CGT analysis
    note: str  # the judgement in words


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One move of a reviewed game: White's chance before and after it, the mover's drop."""

    ply: int  # the move's number, from 1
    move: str
    mover: str  # "white" or "black"
    before: float  # white_wins before the move
    after: float  # white_wins after it
    loss: float  # the mover's drop in winning chance, 0 when the move gained
    mark: str | None  # "inaccuracy", "mistake", "blunder" or None
    better: str | None  # the engine's move in the position before, when marked


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    player: str  # "white" or "black"
    inaccuracies: int
    mistakes: int
    blunders: int
    average_loss: float  # the mean drop over the player's moves (0 for none)


# A move that loses the mover at least this much of a chance to win earns the mark. Twice
# lichess's (0.1, 0.2 and 0.3 on its scale of -1 to 1, so 5, 10 and 15 points of a chance):
# the chances here move by about 5 points from one position to the next on a 10x10 game at
# the default effort with no mistake in it, and at lichess's thresholds that noise would be
# marked (docs/cgt.md).
THRESHOLDS: Final[tuple[tuple[str, float], ...]] = (
    ("blunder", 0.30),
    ("mistake", 0.20),
    ("inaccuracy", 0.10),
)


def judge(game: str, text: str, *, effort: int = DEFAULT_EFFORT) -> Judgement:
    """The engine's judgement of the position `text` of `game`, by the work `effort` fixes.
    Raises NotationError for an unknown game, unreadable position or an effort out of range."""
    if not 1 <= effort <= MAX_EFFORT:
        raise NotationError(f"effort must run from 1 to {MAX_EFFORT}, not {effort}")
    state = get_game(game).parse_state(text)
    if isinstance(state, Position):
        return _judge_amazons(state, effort)
    if isinstance(state, BaoPosition):
        return _judge_bao(state, effort)
    raise NotationError(f"the engine cannot judge {game}")


def _over(game: str, state: GameState[Any]) -> Judgement | None:
    """The judgement of a finished game, or None while it goes on."""
    if not state.is_terminal():
        return None
    white, black = state.returns()
    if white == black:
        return Judgement(
            game, state.text(), 0.5, (), 0, None, True, None, "drawn: the game is over"
        )
    winner = "White" if white > black else "Black"
    return Judgement(
        game,
        state.text(),
        1.0 if white > black else 0.0,
        (),
        0,
        None,
        True,
        None,
        f"exact: the game is over, {winner} has won",
    )


# -- Amazons -------------------------------------------------------------------------------


def _judge_amazons(position: Position, effort: int) -> Judgement:
    over = _over("amazons", position)
    if over is not None:
        return over
    positions = REGION_POSITIONS << (effort - 1)
    # A fresh solver for each judgement: with a memo kept from one to the next, whether a
    # region is solved within the budget would depend on what was asked before.
    solver = RegionSolver()
    analysis, too_large = _regions(position, solver, positions)
    regions = None if analysis is None else analysis.as_dict()
    mover = position.side_to_move
    playouts = 250 << effort
    if analysis is not None and analysis.total is not None:
        won = analysis.winner(mover)
        line = _exact_line(position, solver, positions)
        searched = None
        if not line:  # the solver ran out of positions on the way: the search's move
            line, _ = _search(position, playouts)
            searched = playouts
        return Judgement(
            "amazons",
            position.text(),
            1.0 if won is Side.WHITE else 0.0,
            line,
            None,
            searched,
            True,
            regions,
            f"exact: {_name(won)} wins, {_name(mover)} moving first",
        )
    line, estimate = _search(position, playouts)
    note = f"not solved: {too_large}; the engine's estimate is White {round(100 * estimate)}%"
    return Judgement(
        "amazons", position.text(), estimate, line, None, playouts, False, regions, note
    )


def _search(position: Position, playouts: int) -> tuple[tuple[str, ...], float]:
    """invader's best line and White's chance after `playouts` playouts."""
    bot = InvaderBot(playouts=playouts, exact=0, reuse=0)
    tree = bot.search(position, math.inf)
    best = tree.most_visited(0)
    assert best is not None  # the position has a move
    # The root's playouts, not its best move's: the best move's rate flatters the side to move
    # (its moves are chosen, the replies less searched), by 6 to 9 points on 10x10 middle
    # games at 4,000 playouts, so that every move would seem to lose that much; the root's
    # rate swings by under 2 (docs/cgt.md). The root keeps the result of the side not to move.
    rate = float(tree.wins[0] / tree.nodes[0, VISITS])
    white = rate if position.side_to_move is Side.BLACK else 1.0 - rate
    slope = float(bot.params[2])
    chance = absolute_chance(white, tree.par, slope)
    line = position.clone()
    moves: list[str] = []
    node: int | None = best
    while node is not None and len(moves) < LINE_PLIES:
        if moves and tree.nodes[node, VISITS] < LINE_VISITS:
            break
        move = int(tree.nodes[node, MOVE])
        moves.append(str(line.decode(move)))
        line.apply_index(move)
        node = tree.most_visited(node)
    return tuple(moves), chance


def absolute_chance(relative: float, par: float, slope: float) -> float:
    """White's chance from a win rate counted from White's `par`: the search scores a playout
    1 / (1 + e^(-slope (x - par))), so the par goes back in on the logit scale."""
    relative = min(max(relative, CERTAIN), 1.0 - CERTAIN)
    return 1.0 / (1.0 + math.exp(-(math.log(relative / (1.0 - relative)) + slope * par)))


def _regions(
    position: Position, solver: RegionSolver, positions: int
) -> tuple[PositionAnalysis | None, str]:
    """The CGT analysis (None when the board is one region too large to try) and what was too
    large to solve, in words ("" when every region was solved: the sum is known)."""
    regions = position.regions()
    largest = max((r.empty for r in regions if r.kind is RegionKind.CONTESTED), default=0)
    if largest > SOLVABLE_EMPTY and len(regions) < 2:
        return None, _too_large([largest], whole=True)
    analysis = analyze(
        position,
        positions=positions,
        solver=solver,
        largest=SOLVABLE_EMPTY,
    )
    unsolved = sorted((r.region.empty for r in analysis.regions if r.value is None), reverse=True)
    return analysis, _too_large(unsolved, whole=len(regions) < 2) if unsolved else ""


def _too_large(empty: list[int], *, whole: bool) -> str:
    """What could not be solved, from the empty squares of each such region (largest first)."""
    if whole:
        return f"the board is one region of {empty[0]} empty squares, too large to solve"
    if len(empty) == 1:
        return f"the main region ({empty[0]} empty squares) is too large to solve"
    return f"{len(empty)} regions (the largest {empty[0]} empty squares) are too large to solve"


def _exact_line(position: Position, solver: RegionSolver, positions: int) -> tuple[str, ...]:
    """The line of perfect play by the regions' values, within `positions` new region
    positions in all: at each ply the mover's move that leaves the best mean for it among
    those that keep a win (or among all when none does)."""
    first = solver.stats.positions
    line = position.clone()
    moves: list[str] = []
    try:
        while len(moves) < LINE_PLIES and not line.is_terminal():
            left = positions - (solver.stats.positions - first)
            if left <= 0:
                break
            black = line.side_to_move is Side.BLACK
            options = solver.move_values(line, positions=left)
            winning = [o for o in options if (o.value >= ZERO if black else o.value <= ZERO)]
            sign = 1 if black else -1
            chosen = max(winning or options, key=lambda o: sign * o.value.mean)
            moves.append(str(chosen.move))
            line.apply(chosen.move)
    except BudgetExceededError:
        pass
    return tuple(moves)


def _name(side: Side | None) -> str:
    return "nobody" if side is None else str(side).capitalize()


# -- Bao -----------------------------------------------------------------------------------


def _judge_bao(position: BaoPosition, effort: int) -> Judgement:
    over = _over("bao", position)
    if over is not None:
        return over
    moves = position.legal_moves
    if len(moves) == 1:  # forced: the position after the move says more than a search of one
        child = position.clone()
        child.apply(moves[0])
        after = _judge_bao(child, effort)
        line = (str(moves[0]), *after.line)[:LINE_PLIES]
        return replace(after, position=position.text(), line=line)
    # Two searches a ply apart, their chances averaged: a search that ends on the mover's own
    # move flatters the mover, one that ends on the reply the other side, by 13 to 15 points
    # on a 93-ply game (docs/cgt.md).
    depth = BAO_DEPTH + effort
    decisions = [
        BaoDeepBot(depth=d).choose(position.clone(), Budget(seconds=1.0))
        for d in (depth, depth + 1)
    ]
    mover_white = position.current_player == 0
    proven = [d for d in decisions if d.score is not None and abs(d.score) > WIN / 2]
    deeper = decisions[-1]
    if proven:
        score = proven[-1].score
        assert score is not None
        won = (score > 0) == mover_white
        plies = round(WIN - abs(score))
        chance, exact = (1.0 if won else 0.0), True
        note = f"exact: {'White' if won else 'Black'} wins within {plies} plies"
        deeper = proven[-1]
    else:
        chances = []
        for decision in decisions:
            assert decision.score is not None
            mover = 1.0 / (1.0 + math.exp(-BAO_SEEDS_SLOPE * decision.score))
            chances.append(mover if mover_white else 1.0 - mover)
        chance, exact = sum(chances) / len(chances), False
        note = f"the engine's estimate is White {round(100 * chance)}%"
    return Judgement(
        "bao",
        position.text(),
        chance,
        tuple(deeper.pv)[:LINE_PLIES],
        deeper.depth,
        None,
        exact,
        None,
        note,
    )


# -- reviews -------------------------------------------------------------------------------


def review(moves: Sequence[str], judgements: Sequence[Judgement]) -> tuple[MoveReview, ...]:
    """Each move of a game marked by the mover's drop in winning chance: `judgements` holds
    the judgement of every position from the start (one more than the moves), the mover the
    side to move in the position before the move."""
    if len(judgements) != len(moves) + 1:
        raise ValueError(
            f"{len(moves)} moves need {len(moves) + 1} judgements, not {len(judgements)}"
        )
    reviews = []
    for ply, move in enumerate(moves, 1):
        before, after = judgements[ply - 1], judgements[ply]
        mover = _mover(before)
        gain = after.white_wins - before.white_wins
        loss = max(0.0, -gain if mover == "white" else gain)
        # Marked by the drop in whole points, as it is shown: a drop shown as 20% is a mistake.
        points = round(100 * loss)
        mark = next((name for name, drop in THRESHOLDS if points >= round(100 * drop)), None)
        better = before.line[0] if mark and before.line and before.line[0] != move else None
        reviews.append(
            MoveReview(ply, move, mover, before.white_wins, after.white_wins, loss, mark, better)
        )
    return tuple(reviews)


def _mover(judgement: Judgement) -> str:
    state = get_game(judgement.game).parse_state(judgement.position)
    return get_game(judgement.game).info.player_names[state.current_player]


def summary(reviews: Sequence[MoveReview]) -> tuple[PlayerSummary, PlayerSummary]:
    """White's and Black's marks counted, and their average loss."""
    found = []
    for player in ("white", "black"):
        own = [r for r in reviews if r.mover == player]
        marks = [r.mark for r in own]
        found.append(
            PlayerSummary(
                player,
                marks.count("inaccuracy"),
                marks.count("mistake"),
                marks.count("blunder"),
                sum(r.loss for r in own) / len(own) if own else 0.0,
            )
        )
    return found[0], found[1]
