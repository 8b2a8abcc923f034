"""Matches between bots in any registered game: games with alternating colours, a running score,
a final table with an Elo difference and its 95% interval, and a record of every game."""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

from engine.errors import NotationError
from engine.game import get_game
from engine.records import GameRecord, new_game_id, utc_date
from engine.search.bot import Budget
from engine.search.registry import BOTS, bots_for, make_bot

__all__ = ["GameTask", "MatchResult", "elo_interval", "play_game", "run_match"]


@dataclass(frozen=True, slots=True)
class GameTask:
    index: int
    white: str
    black: str
    setup: str
    seconds: float
    seed: int
    game: str = "amazons"


def play_game(task: GameTask) -> GameRecord:
    """Play one game between two bot specs, each seeded from the task."""
    rules = get_game(task.game)
    position = rules.new_state(task.setup)
    bots = (make_bot(task.white, seed=task.seed), make_bot(task.black, seed=task.seed + 1))
    record = GameRecord(
        game=task.game,
        start=position.text(),
        white=bots[0].spec,
        black=bots[1].spec,
        game_id=new_game_id(),
        date=utc_date(time.time()),
        rated=False,
        setup=task.setup,
        budget=task.seconds,
    )
    budget = Budget(seconds=task.seconds)
    while not position.is_terminal():
        bot = bots[position.current_player]
        start = time.perf_counter()
        decision = bot.choose(position, budget)
        record.seconds.append(round(time.perf_counter() - start, 4))
        record.nodes.append(decision.nodes)
        move = decision.move
        record.moves.append(position.format_move(move))
        position.apply(move)
    white, black = position.returns()
    if white == black:
        record.termination = "drawn at the ply cap"
    else:
        record.winner = rules.info.player_names[0 if white > black else 1]
        record.termination = "no legal move"
    return record


def elo_interval(score: float, games: int) -> tuple[float, float, float]:
    """Elo difference for a score fraction over `games`, with a 95% interval (normal
    approximation to the score; infinite at 0% or 100%)."""

    def elo(p: float) -> float:
        if p <= 0:
            return -math.inf
        if p >= 1:
            return math.inf
        return -400 * math.log10(1 / p - 1)

    margin = 1.96 * math.sqrt(max(score * (1 - score), 0.0) / games) if games else 1.0
    return elo(score), elo(score - margin), elo(score + margin)


@dataclass(slots=True)
class MatchResult:
    """A's results against B, by colour."""

    a: str
    b: str
    wins_white: int = 0  # A's wins with White
    wins_black: int = 0
    games_white: int = 0  # games A played as White
    games_black: int = 0
    draws_white: int = 0  # drawn games A played as White
    draws_black: int = 0
    seconds: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    nodes: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))

    def add(self, record: GameRecord, a_is_white: bool) -> None:
        """Count a finished game (A's moves and B's, by who had White)."""
        a_won = record.winner == ("white" if a_is_white else "black")
        drawn = record.winner is None
        if a_is_white:
            self.games_white += 1
            self.wins_white += a_won
            self.draws_white += drawn
        else:
            self.games_black += 1
            self.wins_black += a_won
            self.draws_black += drawn
        first = 0 if a_is_white else 1  # A's moves are the even plies when A is White
        self.seconds[0].extend(record.seconds[first::2])
        self.seconds[1].extend(record.seconds[1 - first :: 2])
        self.nodes[0].extend(record.nodes[first::2])
        self.nodes[1].extend(record.nodes[1 - first :: 2])

    @property
    def games(self) -> int:
        return self.games_white + self.games_black

    @property
    def wins(self) -> int:
        return self.wins_white + self.wins_black

    @property
    def draws(self) -> int:
        return self.draws_white + self.draws_black

    @property
    def points(self) -> float:
        """A's points: a win each, half a draw."""
        return self.wins + self.draws / 2

    def table(self) -> str:
        if not self.games:
            return "no game finished"
        score = self.points / self.games
        elo, low, high = elo_interval(score, self.games)
        rows = [
            f"{'bot':<28} {'as white':>9} {'as black':>9} {'score':>7} {'ms/move':>8} "
            f"{'max ms':>7} {'nodes/move':>10}"
        ]
        for i, (name, won_w, won_b, n_w, n_b) in enumerate(
            (
                (self.a, self.wins_white, self.wins_black, self.games_white, self.games_black),
                (
                    self.b,
                    self.games_black - self.wins_black - self.draws_black,
                    self.games_white - self.wins_white - self.draws_white,
                    self.games_black,
                    self.games_white,
                ),
            )
        ):
            ms = 1000 * _mean(self.seconds[i])
            longest = 1000 * max(self.seconds[i], default=0.0)
            nodes = _mean([float(n) for n in self.nodes[i]])
            share = (won_w + won_b + self.draws / 2) / self.games
            rows.append(
                f"{name:<28} {won_w:>4}/{n_w:<4} {won_b:>4}/{n_b:<4} {share:>7.1%} {ms:>8.1f} "
                f"{longest:>7.0f} {nodes:>10.0f}"
            )
        drawn = f" ({self.draws} drawn)" if self.draws else ""
        rows.append(
            f"{self.games} games{drawn}: {self.a} scores {score:.1%}, Elo difference "
            f"{_elo_text(elo)} (95% interval {_elo_text(low)} to {_elo_text(high)})"
        )
        return "\n".join(rows)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _elo_text(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


class _HeldInterrupts:
    """While installed as the SIGINT handler: Ctrl-C raises KeyboardInterrupt as usual, except
    inside `held()`, where it waits for the block to end. Python runs signal handlers in the
    main thread between bytecodes, so no thread of the pool can slip one into the block."""

    def __init__(self) -> None:
        self._holding = False
        self._pending = False

    def __call__(self, signum: int, frame: object) -> None:
        if self._holding:
            self._pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
        if self._pending:
            self._pending = False
            raise KeyboardInterrupt


def _ignore_interrupts() -> None:
    # Workers leave Ctrl-C to the parent, which stops them and keeps the finished games.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play(task: GameTask) -> tuple[GameTask, GameRecord]:
    return task, play_game(task)


def _games(tasks: list[GameTask], jobs: int) -> Iterator[tuple[GameTask, GameRecord]]:
    if jobs <= 1:
        yield from map(_play, tasks)
        return
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_ignore_interrupts)
    try:
        yield from pool.imap_unordered(_play, tasks)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def run_match(
    a: str,
    b: str,
    games: int,
    seconds: float,
    setup: str,
    jobs: int = 1,
    out: TextIO | None = None,
    progress: Callable[[str], None] | None = None,
    seed: int = 0,
    game: str = "amazons",
) -> MatchResult:
    """Play `games` games of `game` of A against B, A White (the first player) in the
    even-numbered ones. Each finished game is written to `out` at once; Ctrl-C stops the match
    and keeps what finished."""
    get_game(game).new_state(setup)  # an unknown game or setup fails before any bot is made
    playing = bots_for(game)
    for spec in (a, b):
        name = spec.strip().partition(":")[0]
        if name in BOTS and name not in playing:
            raise NotationError(
                f"bot {name!r} does not play {game}: bots for {game} are {', '.join(playing)}"
            )
    for spec in (a, b):
        # Fails on a bad spec before any game starts, and compiles the bot's kernels once,
        # before the clock runs and before workers are forked.
        make_bot(spec).prepare()
    tasks = [
        GameTask(
            i, a if i % 2 == 0 else b, b if i % 2 == 0 else a, setup, seconds, seed + 2 * i, game
        )
        for i in range(games)
    ]
    result = MatchResult(a, b)
    started = time.monotonic()
    interrupts = _HeldInterrupts()
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, interrupts) if in_main_thread else None
    try:
        for task, record in _games(tasks, jobs):
            # A Ctrl-C must not fall between writing a game and counting it: the table and the
            # records would disagree.
            with interrupts.held():
                if out is not None:
                    out.write(record.to_json() + "\n")
                    out.flush()
                result.add(record, a_is_white=task.index % 2 == 0)
            if progress is not None:
                progress(_progress_line(result, games, time.monotonic() - started))
    except KeyboardInterrupt:
        print("\ninterrupted: the finished games are kept", file=sys.stderr)
    finally:
        if in_main_thread:
            signal.signal(signal.SIGINT, previous or signal.default_int_handler)
    return result


def _progress_line(result: MatchResult, games: int, elapsed: float) -> str:
    done = result.games
    width = 24
    bar = "=" * (width * done // games) + " " * (width - width * done // games)
    eta = elapsed / done * (games - done) if done else 0.0
    return (
        f"[{bar}] {done}/{games}  {result.a} {result.points:g} - {done - result.points:g} "
        f"{result.b}"
        f"  ETA {eta:.0f}s"
    )
