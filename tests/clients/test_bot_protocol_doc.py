"""The example sessions of docs/bot-protocol.md, played from the page's own text: a program
that answers what the page's program answers hears, from the runner (`clients.program`), every
line the page says the runner writes, each move on the page is legal, and the first move's
`clocks` line is what the runner's rule gives for the page's clock."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from clients.engines import GameSoFar
from clients.program import ProgramEngine
from engine.search.bot import Budget, ClockReading
from engine.search.budget import REMOTE_BOT, Turn

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"
TIMEOUT = 30  # seconds any one test may take before it is failed rather than left hanging
FIRST_MOVE_MS = 30_000  # the server's first-move window the page assumes

# A program that answers the lines it is given, in order: the handshake's at once, then one
# at each `go`, and writes every line it hears into a file.
PROGRAM = """
import json, sys
handshake, moves, heard = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
def say(line):
    print(line, flush=True)
with open(heard, "w") as log:
    for line in sys.stdin:
        log.write(line)
        log.flush()
        if line.startswith("arena "):
            for answer in handshake:
                say(answer)
        elif line == "go\\n":
            say(moves.pop(0))
"""


def _session(heading: str) -> list[str]:
    """The lines of the page's first code block after the line that starts with `heading`."""
    text = PAGE.read_text()
    start = text.index("\n```\n", text.index(heading)) + 5
    return text[start : text.index("\n```", start)].splitlines()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("heading", "time"),
    [
        ("The whole game, the program playing White", (60, 2)),  # "A game of 60 s and 2 s"
        ("server. A program playing South on the `bao` ladder", (10, 0)),  # the `bao` ladder
    ],
)
async def test_the_pages_example_session_is_what_the_runner_and_the_rules_do(
    heading: str, time: tuple[int, int], tmp_path: Path
) -> None:
    lines = [line for line in _session(heading) if line != "..."]
    written = [line[2:] for line in lines if line.startswith("> ")]
    answers = [line[2:] for line in lines if line.startswith("< ")]
    handshake = answers[: answers.index("ready") + 1]
    moves = answers[len(handshake) :]
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    heard = tmp_path / "heard"
    command = [sys.executable, str(program), json.dumps(handshake), json.dumps(moves), str(heard)]
    engine = ProgramEngine(command)
    _, game_name, setup, _ = written[1].split(" ", 3)
    turns = [index for index, line in enumerate(written) if line.startswith("position ")]
    async with asyncio.timeout(TIMEOUT):
        await engine.prepare()
        for number, index in enumerate(turns):
            game = GameSoFar.new(game_name, setup)
            for move in written[index + 1].split()[1:]:
                game = game.after(move)  # raises unless the page's move is legal
            own, opponent, increment = (int(n) for n in written[index + 2].split()[1:])
            if number == 0:
                base, step = time
                first = Turn(base * 1000, base * 1000, step * 1000, first_move_ms=FIRST_MOVE_MS)
                budget = REMOTE_BOT.budget(first)
                assert budget.clock is not None
                assert own == round(budget.clock.own * 1000), "the first move's own time"
            budget = Budget(clock=ClockReading(own / 1000, opponent / 1000, increment / 1000))
            # The runner checks the program's answer against the rules before it returns it.
            assert await engine.choose(game, budget) == moves[number][len("move ") :]
        await engine.close()
    assert heard.read_text().splitlines() == written
