from __future__ import annotations

import time
from typing import Any

import pytest

import engine.game
import engine.search.timing
from engine import NotationError
from engine.amazons import Position
from engine.search.bot import Budget, ClockReading, NoMoveError
from engine.search.registry import BOTS, bots_for, make_bot
from engine.search.timing import think_time
from tests.timing import thinking

# The Amazons bots: every bot but the Bao ones (tests/engine/search/test_bao_bots.py).
SPECS = sorted(bots_for("amazons"))
# Seconds a bot may overrun its budget here, as `thinking` counts them (tests/timing.py). The
# 50 ms target is measured by bench/bots.py on a quiet machine; this catches a bot that ignores
# its deadline.
MARGIN = 0.2
# Search bots stop at a fixed number of playouts, not at a time, when a game must repeat.
REPEATABLE = {
    "alphabeta": "alphabeta:depth=2",
    "mcts": "mcts:playouts=300",
    "invader": "invader:playouts=100",
    "openspiel-mcts": "openspiel-mcts:simulations=100",
}


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("setup", ["6x6", "10x10"])
def test_bots_play_legal_moves_within_the_deadline(spec: str, setup: str) -> None:
    bot = make_bot(spec, seed=1)
    opponent = make_bot("random", seed=2)
    position = Position.setup(setup)
    budget = Budget(seconds=0.1)
    for player in (bot, opponent):
        player.prepare()  # compile outside the timing
    plies = 0
    while not position.is_terminal() and plies < 40:
        player = bot if position.current_player == 0 else opponent
        decision, seconds = thinking(player, position, budget)
        assert seconds < 0.1 + MARGIN
        assert decision.move in position.legal_moves
        position.apply(decision.move)  # type: ignore[arg-type]
        plies += 1
    assert plies == 40 or position.is_terminal()


@pytest.mark.parametrize("spec", SPECS)
def test_the_same_seed_plays_the_same_game(spec: str) -> None:
    def game(seed: int) -> list[str]:
        repeatable = REPEATABLE.get(spec, spec)
        bots = (make_bot(repeatable, seed=seed), make_bot(repeatable, seed=seed + 1))
        position = Position.setup("6x6")
        while not position.is_terminal():
            move = bots[position.current_player].choose(position, Budget(seconds=0.05)).move
            position.apply(move)  # type: ignore[arg-type]
        return [str(m) for m in position.move_stack]

    assert game(5) == game(5)
    assert game(5) != game(6)


class _LyingClock:
    """Every time source at once, each reading `step` seconds after the last: a tiny step is a
    clock that stands still (all the time in the world), a huge one a clock that races (no time
    at all)."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.reading = 0.0

    def __call__(self) -> float:
        self.reading += self.step
        return self.reading


@pytest.mark.parametrize("spec", SPECS)
def test_a_fixed_budget_plays_the_same_game_whatever_the_clock_says(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With playouts, depth or simulations fixed, no move depends on the time: not on what the
    clock reads while the bot thinks, nor on the time the budget gives it."""

    def game(step: float, budget: Budget) -> list[str]:
        clock = _LyingClock(step)
        with monkeypatch.context() as patched:
            for source in ("perf_counter", "monotonic", "thread_time", "process_time", "time"):
                patched.setattr(time, source, clock)
            repeatable = REPEATABLE.get(spec, spec)
            bots = (make_bot(repeatable, seed=5), make_bot(repeatable, seed=6))
            position = Position.setup("6x6")
            while not position.is_terminal():
                move = bots[position.current_player].choose(position, budget).move
                position.apply(move)  # type: ignore[arg-type]
        return [str(m) for m in position.move_stack]

    standing = game(1e-9, Budget(seconds=0.05))
    racing = game(3600.0, Budget(clock=ClockReading(own=2.0, opponent=2.0, increment=0.5)))
    assert standing == racing


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("setup", ["6x6", "10x10"])
def test_a_bot_with_no_time_at_all_still_plays_a_legal_move(
    spec: str, setup: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No time left on the clock, the time manager's floor (2 ms) down to a nanosecond, and
    every time source racing so that the deadline has passed at the first look: as on a machine
    too busy to let any search finish. A legal move all the same, never an exception (OpenSpiel
    times its search in C++, where the nanosecond leaves no simulation)."""
    position = Position.setup(setup)
    bot = make_bot(spec, seed=1)
    bot.prepare()
    monkeypatch.setattr(engine.search.timing, "MINIMUM", 1e-9)
    clock = _LyingClock(3600.0)
    for source in ("perf_counter", "monotonic", "thread_time", "process_time", "time"):
        monkeypatch.setattr(time, source, clock)
    empty = Budget(clock=ClockReading(own=0.0, opponent=60.0))
    for _ in range(3):
        move = bot.choose(position, empty).move
        assert move in position.legal_moves
        position.apply(move)  # type: ignore[arg-type]


@pytest.mark.parametrize("spec", SPECS)
def test_a_finished_game_has_no_move_to_choose(spec: str) -> None:
    with pytest.raises(NoMoveError, match="no move to choose: the game is over in 'xWB b'"):
        make_bot(spec).choose(Position.parse("xWB b"), Budget(seconds=0.1))


@pytest.mark.parametrize("spec", ["mobility", "mcts:playouts=2000", "invader:playouts=500"])
def test_bots_take_the_win_when_they_can(spec: str) -> None:
    # Only a2-b2/a2 walls Black's a1 amazon in.
    position = Position.parse("x2/W2/Bx1 w")
    assert position.count_moves() > 10
    decision = make_bot(spec).choose(position, Budget(seconds=5))
    assert str(decision.move) == "a2-b2/a2"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "minimax",
            "unknown bot 'minimax': bots are random, mobility, greedy, alphabeta, mcts, invader",
        ),
        ("mobility:c=2", "bot 'mobility' has no parameter 'c': its parameters are seed"),
        ("random:seed", "bot parameter 'seed' needs a value: write seed=VALUE"),
        ("random:seed=x", "bot parameter seed='x' is not a whole number"),
        ("invader:fitted=2", "invader parameter fitted=2 is neither 0 nor 1"),
    ],
)
def test_bad_bot_specs_say_what_exists(spec: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        make_bot(spec)


def test_spec_parameters_are_applied() -> None:
    assert make_bot("random:seed=7").spec == "random:seed=7"
    assert make_bot("random:seed=7", seed=3).spec == "random:seed=3"


@pytest.mark.parametrize("name", sorted(BOTS))
def test_a_bots_own_spec_names_every_parameter_it_takes(name: str) -> None:
    """What a bot writes in its records can be read back, and `arena bots` lists it all."""
    if name == "openspiel-mcts":
        pytest.importorskip("pyspiel")
    bot = make_bot(name)
    written = {item.partition("=")[0] for item in bot.spec.partition(":")[2].split(",") if item}
    assert written == {p.name for p in BOTS[name].params}
    assert make_bot(bot.spec).spec == bot.spec


def test_budget_is_one_of_seconds_or_clock() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Budget()
    with pytest.raises(ValueError, match="exactly one"):
        Budget(seconds=1.0, clock=ClockReading(10.0, 10.0))
    with pytest.raises(ValueError, match="must be positive"):
        Budget(seconds=0.0)


def test_think_time_shares_the_clock() -> None:
    fixed = think_time(Budget(seconds=1.0), moves_left=30)
    assert 0.95 < fixed < 1.0
    clock = think_time(Budget(clock=ClockReading(own=60.0, opponent=60.0, increment=2.0)), 30)
    assert clock == pytest.approx(60 / 30 + 1.6 - 0.015)
    # Never more than a third of what is left, however few moves remain.
    assert think_time(Budget(clock=ClockReading(own=3.0, opponent=60.0)), 1) <= 1.0
    assert think_time(Budget(clock=ClockReading(own=0.001, opponent=60.0)), 1) > 0


def test_every_bot_but_bao_s_plays_amazons_and_the_generic_ones_play_every_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert bots_for("amazons") == [name for name in BOTS if not name.startswith("bao-")]
    assert bots_for("bao") == ["random", "mobility", "mcts", "bao-alphabeta", "bao-deep"]
    # A game registered later (here a second name for Amazons) has the generic bots at once.
    monkeypatch.setitem(engine.game._REGISTRY, "other", "engine.amazons.game:AMAZONS")
    assert bots_for("other") == ["random", "mobility", "mcts"]
    assert not BOTS["invader"].plays("other")
    with pytest.raises(NotationError, match="unknown game 'chess': registered games are"):
        bots_for("chess")


class _Rules:
    """An Amazons position seen only through the generic GameState interface, as a bot sees a
    game it has no kernels for."""

    def __init__(self, position: Position) -> None:
        self.position = position

    @property
    def current_player(self) -> int:
        return self.position.current_player

    @property
    def legal_moves(self) -> Any:
        return self.position.legal_moves

    def apply(self, move: Any) -> None:
        self.position.apply(move)

    def undo(self) -> Any:
        return self.position.undo()

    def clone(self) -> _Rules:
        return _Rules(self.position.clone())

    def is_terminal(self) -> bool:
        return self.position.is_terminal()

    def returns(self) -> tuple[float, float]:
        return self.position.returns()

    def parse_move(self, text: str) -> Any:
        return self.position.parse_move(text)

    def format_move(self, move: Any) -> str:
        return self.position.format_move(move)

    def text(self) -> str:
        return self.position.text()


@pytest.mark.parametrize("name", ["random", "mobility", "mcts"])
def test_the_generic_bots_play_through_the_generic_interface(name: str) -> None:
    position = Position.setup("6x6")
    state = _Rules(position.clone())
    decision = make_bot(name, seed=3).choose(state, Budget(seconds=0.1))
    assert decision.move in position.legal_moves
    assert state.text() == position.text()  # the state it was given is left as it was
    if name == "mobility":
        # By the rules it picks as well as by the kernels: the fewest replies.
        by_kernels = make_bot("mobility", seed=3).choose(position, Budget(seconds=0.1))
        assert decision.score == by_kernels.score


def test_mobility_takes_the_win_through_the_generic_interface() -> None:
    decision = make_bot("mobility").choose(_Rules(Position.parse("x2/W2/Bx1 w")), Budget(seconds=1))
    assert str(decision.move) == "a2-b2/a2"
