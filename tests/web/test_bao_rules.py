"""The web page's copy of Bao's rules (`bao_position.js`), run in Chromium, against the engine:
the same perft from the start, and the same position and number of legal moves after every
move of random games (captures, relays, safaris, takasia and game ends among them), each legal
move's sowing, step by step, ending where the move does, and the played move's steps (and
the seeds in hand at each) the engine's (`engine.bao.board.sowing_steps`)."""

from __future__ import annotations

import random

import pytest
from playwright.async_api import Browser
from redis.asyncio import Redis

from engine.bao import BaoPosition
from engine.bao.board import sowing_steps
from tests.server.endpoint import serving
from tests.web.test_pages import http_url, open_page

GAMES = 60

REPLAY = """
async ([start, games]) => {
  const { BaoPosition, moveText } = await import("/static/bao_position.js");
  const perft = (position, depth) =>
    depth === 1
      ? position.moves().length
      : position.moves().reduce((sum, move) => sum + perft(move.after, depth - 1), 0);
  const counts = [1, 2, 3, 4, 5, 6].map((depth) => perft(BaoPosition.parse(start), depth));
  const replayed = games.map((moves) => {
    let position = BaoPosition.parse(start);
    return moves.map((move) => {
      // Every legal move's sowing, step by step, ends in the position the move leaves.
      for (const legal of position.moves()) {
        const steps = position.sowing(moveText(legal));
        if (steps.at(-1).pits.join() !== legal.after.pits.join()) {
          return `the sowing of ${moveText(legal)} before ${move}`;
        }
      }
      const steps = position.sowing(move).map((step) => [step.pits, step.hand]);
      position = position.after(move);
      const { pits, stores, owned, mover, blocked } = position;
      const rest = [position.moves().length, position.winner(), steps];
      return [pits, stores, owned, mover, blocked, ...rest];
    });
  });
  return { counts, replayed };
}
"""


def random_games() -> tuple[list[list[str]], list[list[list[object]]]]:
    games, expected = [], []
    for seed in range(GAMES):
        chooser = random.Random(seed)
        position = BaoPosition()
        moves, states = [], []
        while not position.is_terminal():
            move = chooser.choice(position.legal_moves)
            steps = sowing_steps(position.board, position.rules, move)
            # The seeds in hand at each step: those neither on the board nor in a store.
            seeds = sum(position.board.pits) + sum(position.board.stores)
            position.apply(move)
            board = position.board
            moves.append(str(move))
            states.append(
                [
                    list(board.pits),
                    list(board.stores),
                    list(board.owned),
                    board.mover,
                    board.blocked,
                    len(position.legal_moves),
                    position.winner(),
                    [
                        [list(step.pits), seeds - sum(step.pits) - sum(step.stores)]
                        for step in steps
                    ],
                ]
            )
        games.append(moves)
        expected.append(states)
    return games, expected


@pytest.mark.asyncio
async def test_the_pages_bao_rules_are_the_engines(
    browser: Browser, redis: Redis, redis_url: str
) -> None:
    games, expected = random_games()
    assert any(state[4] != -1 for game in expected for state in game), "a takasia is played"
    async with serving(redis_url) as url:
        page, errors = await open_page(browser, http_url(url) + "/")
        result = await page.evaluate(REPLAY, [BaoPosition().text(), games])
        assert result["counts"] == [4, 14, 38, 124, 405, 1430]
        for seed, (replayed, states) in enumerate(zip(result["replayed"], expected, strict=True)):
            for ply, (got, want) in enumerate(zip(replayed, states, strict=True), 1):
                assert got == want, f"game {seed}, after move {ply}: {games[seed][ply - 1]}"
        assert errors == []
