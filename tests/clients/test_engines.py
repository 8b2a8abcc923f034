"""The engines a bot client plays with, through the `Engine` interface the runner uses."""

from __future__ import annotations

import time

import pytest

from clients.bot import BotError, BotPlayer
from clients.engines import Engine, EngineError, GameSoFar, InProcessEngine, open_engine
from engine.search.bot import Budget
from engine.search.budget import REMOTE_BOT, Turn
from tests.timing import collector_held_off

# Seconds an engine may overrun its budget here, by the wall clock: a busy machine, not a bot that
# ignores it (tests/timing.py).
OVERRUN = 0.5


@pytest.mark.asyncio
@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:c=0.8", "invader"])
async def test_an_in_process_engine_chooses_a_legal_move_within_its_budget(spec: str) -> None:
    engine: Engine = open_engine(spec)()
    assert engine.name == spec
    await engine.prepare()
    game = GameSoFar.new("amazons", "8x8")
    before = game.state.text()
    with collector_held_off():
        start = time.monotonic()
        text = await engine.choose(game, Budget(seconds=0.2))
    assert time.monotonic() - start < 0.2 + OVERRUN
    assert game.state.text() == before  # the runner's state is not the engine's to change
    game.after(text)  # legal here, or this raises
    await engine.close()


@pytest.mark.asyncio
async def test_an_in_process_engine_plays_by_the_clock_the_policy_gives() -> None:
    engine = InProcessEngine("alphabeta")
    await engine.prepare()
    game = GameSoFar.new("amazons", "6x6")
    budget = REMOTE_BOT.budget(Turn(own_ms=3_000, opponent_ms=3_000, increment_ms=0))
    with collector_held_off():
        start = time.monotonic()
        text = await engine.choose(game, budget)
    assert time.monotonic() - start < 3 / 3 + OVERRUN  # the time manager spends a third at most
    assert game.state.parse_move(text) in game.state.legal_moves


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "nosuch",
            "unknown bot 'nosuch': bots are random, mobility, greedy, alphabeta, mcts, invader",
        ),
        ("mcts:depth=2", "bot 'mcts' has no parameter 'depth': its parameters are c, playouts"),
        ("invader:fitted=2", "invader parameter fitted=2 is neither 0 nor 1"),
    ],
)
def test_a_spec_that_names_no_engine_is_one_clear_line(spec: str, message: str) -> None:
    with pytest.raises(EngineError) as error:
        open_engine(spec)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)
    with pytest.raises(BotError, match=f"^{message}"):
        BotPlayer("ws://localhost:8765", "bot_token", spec)
