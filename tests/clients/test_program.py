"""Engines that are programs (`clients.program`): the handshake, whole games through the line
protocol with the example programs, and one clear error for each way a program goes wrong."""

from __future__ import annotations

import ast
import asyncio
import itertools
import shlex
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import structlog

from clients import program
from clients.engines import EngineError, GameSoFar
from clients.program import Handshake, ProgramEngine, greet, split_command
from engine.search.bot import Budget, ClockReading

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RANDOM_BOT = [sys.executable, str(EXAMPLES / "random_bot.py")]
FIRST_LEGAL = ["sh", str(EXAMPLES / "first_legal.sh")]
RANDOM_LEGAL = [sys.executable, str(EXAMPLES / "random_legal.py")]
TIMEOUT = 30  # seconds any one test may take before it is failed rather than left hanging
CLOCK = Budget(clock=ClockReading(own=5.0, opponent=4.0, increment=0.5))


Script = Callable[[str], list[str]]


@pytest.fixture
def script(tmp_path: Path) -> Script:
    """Makes programs: the command of a Python file of the source given, which has `say(line)`
    to answer a line."""
    made = itertools.count()

    def make(body: str) -> list[str]:
        path = tmp_path / f"program{next(made)}.py"
        prelude = "import sys\ndef say(line):\n    print(line, flush=True)\n"
        path.write_text(prelude + textwrap.dedent(body))
        return [sys.executable, str(path)]

    return make


# A program that shakes hands properly, then does what `then` says.
HANDSHAKE = """
assert sys.stdin.readline() == "arena 1\\n"
say("name tester")
say("games amazons")
say("ready")
"""


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("command", "said"),
    [
        (RANDOM_BOT, Handshake("random-example", ("amazons",))),
        (FIRST_LEGAL, Handshake("first-legal", ("amazons",))),
        (RANDOM_LEGAL, Handshake("random-legal", ("amazons", "bao"), legal=True)),
    ],
)
async def test_the_example_programs_shake_hands(command: list[str], said: Handshake) -> None:
    async with asyncio.timeout(TIMEOUT):
        assert await greet(command) == said


@pytest.mark.asyncio
@pytest.mark.parametrize("setup", ["6x6", "8x8"])
async def test_the_example_programs_play_a_whole_game_of_legal_moves(setup: str) -> None:
    engines = [ProgramEngine(RANDOM_BOT), ProgramEngine(FIRST_LEGAL)]
    game = GameSoFar.new("amazons", setup)
    async with asyncio.timeout(TIMEOUT):
        for engine in engines:
            await engine.prepare()
        while not game.state.is_terminal():
            mover = engines[len(game.moves) % 2]
            game = game.after(await mover.choose(game, CLOCK))  # raises unless legal
        for engine in engines:
            await engine.close()
    assert len(game.moves) >= 8


def _recorder(heard: Path, handshake: str = HANDSHAKE) -> str:
    """A program that writes every line it hears into `heard` and answers each `go` with
    e6-e5/d5."""
    return (
        handshake
        + f"with open({str(heard)!r}, 'w') as heard:\n"
        + "    for line in sys.stdin:\n"
        + "        heard.write(line)\n"
        + "        heard.flush()\n"
        + "        if line == 'go\\n':\n"
        + "            say('move e6-e5/d5')\n"
    )


@pytest.mark.asyncio
async def test_a_program_hears_the_game_the_position_the_moves_and_the_clocks(
    script: Script,
    tmp_path: Path,
) -> None:
    heard = tmp_path / "heard"
    engine = ProgramEngine(script(_recorder(heard)))
    game = GameSoFar.new("amazons", "6x6").after("b1-b4/e4")
    async with asyncio.timeout(TIMEOUT):
        await engine.prepare()
        budget = Budget(clock=ClockReading(own=58.2314, opponent=60.0, increment=2.0))
        assert await engine.choose(game, budget) == "e6-e5/d5"
        await engine.close()
    assert heard.read_text().splitlines() == [
        "game amazons 6x6 1B2B1/B4B/6/6/W4W/1W2W1 w",
        "position 1B2B1/B4B/1W2x1/6/W4W/4W1 b",
        "moves b1-b4/e4",
        "clocks 58231 60000 2000",
        "go",
        "quit",
    ]


@pytest.mark.asyncio
async def test_a_program_that_asks_for_the_legal_moves_hears_them_before_go(
    script: Script,
    tmp_path: Path,
) -> None:
    heard = tmp_path / "heard"
    engine = ProgramEngine(
        script(_recorder(heard, HANDSHAKE.replace('say("ready")', 'say("legal")\nsay("ready")')))
    )
    game = GameSoFar.new("amazons", "6x6").after("b1-b4/e4")
    async with asyncio.timeout(TIMEOUT):
        await engine.prepare()
        assert engine.handshake == Handshake("tester", ("amazons",), legal=True)
        budget = Budget(clock=ClockReading(own=58.2314, opponent=60.0, increment=2.0))
        assert await engine.choose(game, budget) == "e6-e5/d5"
        await engine.close()
    lines = heard.read_text().splitlines()
    assert lines[:4] + lines[5:] == [
        "game amazons 6x6 1B2B1/B4B/6/6/W4W/1W2W1 w",
        "position 1B2B1/B4B/1W2x1/6/W4W/4W1 b",
        "moves b1-b4/e4",
        "clocks 58231 60000 2000",
        "go",
        "quit",
    ]
    # Then every legal move, each once: exactly the moves the rules allow Black here.
    word, *legal = lines[4].split(" ")
    state = game.state.clone()
    assert word == "legal"
    assert len(legal) == len(set(legal)) == len(list(state.legal_moves))
    assert {state.format_move(state.parse_move(move)) for move in legal} == set(legal)
    assert "e6-e5/d5" in legal


@pytest.mark.asyncio
async def test_a_bao_program_hears_the_legal_moves_in_bao_move_text(
    script: Script, tmp_path: Path
) -> None:
    heard = tmp_path / "heard"
    engine = ProgramEngine(
        script(
            HANDSHAKE.replace('say("games amazons")', 'say("games bao")\nsay("legal")')
            + f"with open({str(heard)!r}, 'w') as heard:\n"
            + "    for line in sys.stdin:\n"
            + "        heard.write(line)\n"
            + "        if line.startswith('legal '):\n"
            + "            last = line.split()[-1]\n"
            + "        if line == 'go\\n':\n"
            + "            say('move ' + last)\n"
        )
    )
    game = GameSoFar.new("bao")
    async with asyncio.timeout(TIMEOUT):
        await engine.prepare()
        assert await engine.choose(game, CLOCK) == "A7<"
        await engine.close()
    start = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22-22 SN - s namua 0"
    # South's opening: no capture, so a takasa from a pit of two seeds (A6, A7) either way;
    # the house (A5) may not start one while other pits can.
    assert heard.read_text().splitlines() == [
        f"game bao zanzibar {start}",
        f"position {start}",
        "moves",
        "clocks 5000 4000 500",
        "legal A6> A6< A7> A7<",
        "go",
        "quit",
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize(("game", "setup"), [("bao", "zanzibar"), ("amazons", "6x6")])
async def test_the_rules_free_example_plays_a_whole_game_of_any_game_from_the_legal_lines(
    game: str, setup: str
) -> None:
    engines = [ProgramEngine(RANDOM_LEGAL), ProgramEngine(RANDOM_LEGAL)]
    played = GameSoFar.new(game, setup)
    async with asyncio.timeout(TIMEOUT):
        for engine in engines:
            await engine.prepare()
        while not played.state.is_terminal():
            mover = engines[len(played.moves) % 2]
            played = played.after(await mover.choose(played, CLOCK))  # raises unless legal
        for engine in engines:
            await engine.close()
    assert len(played.moves) >= 8


@pytest.mark.asyncio
async def test_a_program_whose_move_is_given_in_another_spelling_is_read_as_move_text(
    script: Script,
) -> None:
    engine = ProgramEngine(script(HANDSHAKE + 'for line in sys.stdin:\n    say("move B1 B4 E4")\n'))
    async with asyncio.timeout(TIMEOUT):
        await engine.prepare()
        assert await engine.choose(GameSoFar.new("amazons", "6x6"), CLOCK) == "b1-b4/e4"
        await engine.close()


@pytest.mark.asyncio
async def test_what_a_program_writes_on_stderr_goes_to_the_log(script: Script) -> None:
    engine = ProgramEngine(script('sys.stderr.write("loading weights\\n")\n' + HANDSHAKE))
    with structlog.testing.capture_logs() as logs:
        async with asyncio.timeout(TIMEOUT):
            await engine.prepare()
            await engine.close()
    said = [entry["line"] for entry in logs if entry["event"] == "program_said"]
    assert said == ["loading weights"]


async def _failure(command: list[str], moves: tuple[str, ...] = ()) -> str:
    """The one-line error of a program that goes wrong at the handshake or at a move, after
    the program is ended; the test fails if that takes more than TIMEOUT."""
    engine = ProgramEngine(command)
    game = GameSoFar.new("amazons", "6x6")
    for move in moves:
        game = game.after(move)

    async def play() -> None:
        await engine.prepare()
        await engine.choose(game, Budget(clock=ClockReading(1.0, 1.0, 0.0)))

    try:
        async with asyncio.timeout(TIMEOUT):
            with pytest.raises(EngineError) as error:
                await play()
    finally:
        await engine.close()
    message = str(error.value)
    assert "\n" not in message
    return message


@pytest.mark.asyncio
async def test_a_command_that_does_not_start_is_one_line() -> None:
    message = await _failure(["/nonexistent/engine", "--fast"])
    assert message == (
        "cannot start engine program /nonexistent/engine --fast: No such file or directory"
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", "engine program {cmd} exited with status 0 at the handshake"),
        (
            'say("hello there")',
            "engine program {cmd} wrote 'hello there', which the protocol has no place for "
            "at the handshake",
        ),
        ('say("name x")\nsay("ready")', "engine program {cmd} said ready without its games"),
        (
            'say("error needs a GPU")',
            "engine program {cmd} will not play: needs a GPU",
        ),
    ],
)
@pytest.mark.parametrize("gone_first", [False, True], ids=["running", "gone first"])
async def test_a_program_that_fails_the_handshake_is_one_line(
    script: Script, body: str, message: str, gone_first: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if gone_first:  # the program has exited before it is told `arena 1`, as on a loaded machine
        send = ProgramEngine._send

        async def late(engine: ProgramEngine, lines: list[str], when: str) -> None:
            assert engine._process is not None
            await engine._process.wait()
            await send(engine, lines, when)

        monkeypatch.setattr(ProgramEngine, "_send", late)
    command = script(body)
    text = await _failure(command)
    assert text == message.format(cmd=shlex.join(command))


@pytest.mark.asyncio
async def test_a_program_that_never_says_ready_is_given_up(
    script: Script,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(program, "HANDSHAKE_SECONDS", 0.5)
    command = script("import time\ntime.sleep(60)")
    message = await _failure(command)
    assert message.endswith("did not say ready within 0.5 s")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("then", "message"),
    [
        (
            'for line in sys.stdin:\n    say("bestmove e2e4")',
            "engine program tester wrote 'bestmove e2e4', which the protocol has no place "
            "for at ply 1",
        ),
        (
            'for line in sys.stdin:\n    say("move b1-b6/b1")',
            "engine program tester answered the illegal move 'b1-b6/b1' at ply 1: "
            "no black amazon on b1",
        ),
        (
            'for line in sys.stdin:\n    say("move b6-b7/b6")',
            "engine program tester answered the illegal move 'b6-b7/b6' at ply 1: "
            "b7 is off the 6x6 board",
        ),
        (
            'for line in sys.stdin:\n    say("move b1 to b4")',
            "engine program tester answered a move that cannot be read, 'b1 to b4', at ply 1: "
            "cannot read move 'b1 to b4': expected from-to/arrow such as d1-d7/g7",
        ),
        ("sys.exit(3)", "engine program tester exited with status 3 at ply 1"),
        (
            'for line in sys.stdin:\n    say("error lost my book")',
            "engine program tester gave up at ply 1: lost my book",
        ),
    ],
)
async def test_a_program_that_goes_wrong_at_a_move_is_one_line(
    script: Script, then: str, message: str
) -> None:
    assert await _failure(script(HANDSHAKE + then), moves=("b1-b4/e4",)) == message


@pytest.mark.asyncio
async def test_a_program_that_never_answers_is_ended_once_its_clock_and_a_second_are_gone(
    script: Script,
) -> None:
    command = script(HANDSHAKE + "import time\ntime.sleep(60)")
    start = time.monotonic()
    message = await _failure(command)
    waited = time.monotonic() - start
    assert message == (
        "engine program tester gave no move within 2.0 s at ply 0: too late, so it was ended"
    )
    assert 2.0 <= waited < 2.0 + 5  # the clock (1 s) and LATE_SECONDS; then no wait at all


@pytest.mark.asyncio
async def test_a_program_that_ignores_quit_is_killed(script: Script) -> None:
    engine = ProgramEngine(script(HANDSHAKE + "import time\ntime.sleep(60)"))
    async with asyncio.timeout(TIMEOUT):
        await engine.prepare()
        start = time.monotonic()
        await engine.close()
    assert time.monotonic() - start < program.QUIT_SECONDS + 2


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("python3 examples/random_bot.py", ["python3", "examples/random_bot.py"]),
        ("'my engine' --threads 2", ["my engine", "--threads", "2"]),
    ],
)
def test_an_engine_command_is_split_as_a_shell_would(text: str, words: list[str]) -> None:
    assert split_command(text) == words


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("  ", "the engine command is empty"),
        ("engine 'half", 'cannot read the engine command "engine \'half": No closing quotation'),
    ],
)
def test_an_engine_command_that_cannot_be_read_is_one_line(text: str, message: str) -> None:
    with pytest.raises(EngineError) as error:
        split_command(text)
    assert str(error.value) == message


@pytest.mark.parametrize("example", ["random_bot.py", "random_legal.py"])
def test_the_python_examples_import_the_standard_library_only(example: str) -> None:
    """They are templates for programs that live apart from this project."""
    tree = ast.parse((EXAMPLES / example).read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported
    assert {name.split(".")[0] for name in imported} <= sys.stdlib_module_names


def _running(pid: int) -> bool:
    """Whether process `pid` is alive (a zombie waiting to be reaped is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.asyncio
async def test_a_program_that_is_ended_takes_what_it_started_with_it(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    shell = (
        "read line; echo name sleeper; echo games amazons; echo ready; "
        f"sleep 60 & echo $! > {pid_file}; wait"
    )
    message = await _failure(["sh", "-c", shell])
    assert message.startswith("engine program sleeper gave no move within 2.0 s at ply 0")
    sleeper = int(pid_file.read_text())
    async with asyncio.timeout(TIMEOUT):
        while _running(sleeper):
            await asyncio.sleep(0.05)
