"""A bot in Python: subclass `Bot`, write `choose_move(turn)` (a `Turn` in, move text out) and
run it. The bot runner (`clients.bot`) does the rest through `BotEngine`, the `Engine` that asks
the author's method in a worker thread: logging in, answering challenges, several games at
once, reconnecting. `arena bot --sdk FILE.py:Class` runs one from the command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import importlib.util
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, TypeVar

from clients.bot import BotError, run_bot
from clients.challenges import DEFAULT_GAMES, ChallengePolicy
from clients.engines import EngineError, EngineMaker, GameSoFar
from engine.game import GameState, get_game
from engine.search.bot import Budget
from engine.search.timing import think_time
from server.protocol import DEFAULT_GAME, Colour

__all__ = [
    "LATE_SECONDS",
    "Bot",
    "BotEngine",
    "Turn",
    "engines",
    "load_bot",
    "play_bot",
    "policy_for",
]

# A move this long past the time the bot's own clock gave it is late: by then the server has
# normally ended the game on time (as for a program, `clients.program.LATE_SECONDS`).
LATE_SECONDS = 1.0
# `Turn.move_ms` plans for this many moves still to make: a twentieth of the clock and most of
# the increment, the rule of thumb docs/bot-protocol.md gives.
MOVES_LEFT = 20
SHOWN = 60  # characters of an answer quoted in an error

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Turn:
    """What a bot is asked about when it is to move: the registered game's name, its setup
    (None for a start position of the players' own), the start as position text, the moves
    played since in move text, `position` (a state of the game, the bot's own copy: for
    Amazons an `engine.amazons.Position`, for Bao an `engine.bao.BaoPosition`), the side to
    move, both clocks and the increment in ms, and `move_ms`, a fair time for this move: a
    twentieth of the clock left and most of the increment.

    `own_ms` is the time left for the rest of the game, counted from when the turn was made,
    less what is kept back for the move's trip to the server; a side's first move is off the
    clock but due within the server's first-move window, and `own_ms` is then part of that
    window. `budget` is the same for the engine's bots (`engine.search.bot.Bot.choose`).
    """

    game: str
    setup: str | None
    start: str
    moves: tuple[str, ...]
    position: GameState[Any]
    side: Colour
    own_ms: int
    opponent_ms: int
    increment_ms: int
    move_ms: int
    budget: Budget

    @classmethod
    def of(cls, game: GameSoFar, budget: Budget) -> Turn:
        """The turn of the side to move in `game`, which may think within `budget`."""
        state = game.state.clone()
        if budget.clock is None:
            # A budget of fixed seconds: a clock of that many seconds for both sides.
            assert budget.seconds is not None
            own = opponent = round(budget.seconds * 1000)
            increment = 0
        else:
            clock = budget.clock
            own, opponent = round(clock.own * 1000), round(clock.opponent * 1000)
            increment = round(clock.increment * 1000)
        return cls(
            game=game.game,
            setup=game.setup,
            start=game.start,
            moves=game.moves,
            position=state,
            side=Colour(get_game(game.game).info.player_names[state.current_player]),
            own_ms=own,
            opponent_ms=opponent,
            increment_ms=increment,
            move_ms=round(think_time(budget, MOVES_LEFT) * 1000),
            budget=budget,
        )

    @property
    def ply(self) -> int:
        """Moves played so far, by both sides."""
        return len(self.moves)

    @property
    def position_text(self) -> str:
        """The position as one line of position text (docs/notation.md)."""
        return self.position.text()

    @property
    def legal_moves(self) -> tuple[str, ...]:
        """Every legal move here, in move text."""
        state = self.position
        return tuple(state.format_move(move) for move in state.legal_moves)


class Bot:
    """A bot written in Python. Subclass it, name it, and write `choose_move`:

        class FirstMove(Bot):
            name = "first-move"

            def choose_move(self, turn: Turn) -> str:
                return turn.legal_moves[0]

        FirstMove.run("ws://localhost:8765", token)

    One instance plays one game from its first move to its last (the class is called with no
    arguments as the game's first move is due), so what `__init__` sets up and what the
    method keeps on `self` belong to that game. `choose_move` runs in a thread of its own: it
    may take its time (`turn.move_ms` is a fair share of the clock) without
    holding up the bot's other games or its connection. A method that raises, answers
    anything but a legal move, or answers later than its clock allows loses that game by
    resignation (or on time), with one line in the log; the bot plays on.
    """

    name: ClassVar[str] = "python-bot"  # for the log and errors; the account is the token's
    games: ClassVar[frozenset[str]] = frozenset({DEFAULT_GAME})  # challenges accepted to these

    def choose_move(self, turn: Turn) -> str:
        """The move to play in `turn`, in move text (`d1-d7/g7` for Amazons)."""
        raise NotImplementedError(f"{type(self).__name__} does not define choose_move")

    @classmethod
    def run(
        cls, server: str | None = None, token: str | None = None, *, games: int = DEFAULT_GAMES
    ) -> None:
        """Play on the server at `server` (default: $ARENA_SERVER) as the bot account of
        `token` (default: $ARENA_BOT_TOKEN), up to `games` games at once, until Ctrl-C or
        SIGTERM. Raises BotError when it cannot play at all (no server, a refused token)."""
        url = server or os.environ.get("ARENA_SERVER")
        if not url:
            raise BotError("no server: give its URL or set ARENA_SERVER")
        key = token or os.environ.get("ARENA_BOT_TOKEN")
        if not key:
            raise BotError("no bot token: give it or set ARENA_BOT_TOKEN")

        async def play() -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            await play_bot(cls, url, key, games=games, stop=stop, report=_say)

        asyncio.run(play())


class BotEngine:
    """The `Engine` of one game played by a `Bot` subclass: an instance of it made for the
    game, asked for each move in a thread, its answer checked here so an illegal move never
    reaches the server. Whatever the bot does wrong is an EngineError
    with one line that says so, which the runner logs before resigning the game."""

    def __init__(self, bot: type[Bot]) -> None:
        self._class = bot
        self._bot: Bot | None = None

    @property
    def name(self) -> str:
        return self._class.name

    async def prepare(self) -> None:
        """Make the game's instance of the bot, in a thread (its `__init__` may load
        things)."""
        if self._bot is None:
            self._bot = await self._ask(self._class, "as it was made")

    async def choose(self, game: GameSoFar, budget: Budget) -> str:
        await self.prepare()
        assert self._bot is not None
        turn = Turn.of(game, budget)
        when = f"at ply {turn.ply}"
        wait = turn.own_ms / 1000 + LATE_SECONDS
        try:
            async with asyncio.timeout(wait):
                answer: object = await self._ask(
                    functools.partial(self._bot.choose_move, turn), when
                )
        except TimeoutError:
            raise EngineError(
                f"bot {self.name} gave no move within {wait:.1f} s {when}: too late"
            ) from None
        if not isinstance(answer, str):
            raise EngineError(f"bot {self.name} returned {_shown(answer)}, not move text, {when}")
        try:
            move = game.state.parse_move(answer)
        except ValueError as error:
            raise EngineError(
                f"bot {self.name} answered the illegal move {_shown(answer)} {when}: {error}"
            ) from None
        return game.state.format_move(move)

    async def close(self) -> None:
        """Nothing to let go of: a call still running is left to finish alone, unheard."""

    async def _ask(self, call: Callable[[], T], when: str) -> T:
        """What `call` returns, called in a thread of its own; what it raises, as an
        EngineError. The thread is a daemon: a call that never returns keeps neither the game
        waiting (`choose` gives up on it) nor the bot from exiting."""
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[T] = loop.create_future()

        def ask() -> None:
            reply: Callable[[], None]
            try:
                reply = functools.partial(_settle, answered, call())
            except Exception as error:  # the author's code: anything may come of it
                reply = functools.partial(_fail, answered, error)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(reply)

        threading.Thread(target=ask, name=f"bot-{self.name}", daemon=True).start()
        try:
            return await answered
        except Exception as error:
            raise EngineError(f"bot {self.name} raised {_raised(error)} {when}") from None


def _settle(answered: asyncio.Future[T], result: T) -> None:
    if not answered.done():  # else given up on meanwhile
        answered.set_result(result)


def _fail(answered: asyncio.Future[Any], error: Exception) -> None:
    if not answered.done():
        answered.set_exception(error)


def engines(bot: type[Bot]) -> EngineMaker:
    """A maker of engines for the runner (`BotPlayer(url, token, engines(MyBot))`); a
    BotError when `bot` does not define `choose_move`."""
    if bot.choose_move is Bot.choose_move:
        raise BotError(f"{bot.__name__} does not define choose_move(self, turn)")
    return lambda: BotEngine(bot)


def policy_for(bot: type[Bot], games: int = DEFAULT_GAMES) -> ChallengePolicy:
    """The challenges `bot` accepts by default: to its games, any named setup, up to `games`
    games at once (`ChallengePolicy` says the rest)."""
    return ChallengePolicy(games=frozenset(bot.games), max_games=games)


async def play_bot(
    bot: type[Bot],
    url: str,
    token: str,
    *,
    games: int = DEFAULT_GAMES,
    accept: ChallengePolicy | None = None,
    stop: asyncio.Event | None = None,
    report: Callable[[str], None] | None = None,
) -> None:
    """Play as the bot account of `token` on the server at `url` with moves from `bot` until
    `stop` is set: `clients.bot.run_bot`, accepting challenges by `accept` (by default
    `policy_for(bot, games)`)."""
    await run_bot(
        url,
        token,
        engines(bot),
        accept=accept or policy_for(bot, games),
        stop=stop,
        client_name=f"arena-sdk/{bot.name}",
        report=report,
    )


def load_bot(spec: str) -> type[Bot]:
    """The Bot subclass `spec` names: `path/to/file.py:Class` or `package.module:Class`. Raises
    BotError naming what is wrong."""
    where, colon, name = spec.rpartition(":")
    if not colon or not where or not name:
        raise BotError(f"{spec!r} names no bot class: give FILE.py:Class or module:Class")
    module = _module(where)
    found = getattr(module, name, None)
    if found is None:
        raise BotError(f"{where} has no {name}")
    if not (isinstance(found, type) and issubclass(found, Bot)):
        raise BotError(f"{name} in {where} is not a subclass of clients.sdk.Bot")
    return found


def _module(where: str) -> ModuleType:
    """The module `where` names: imported by name, or a file loaded as `python FILE.py` would
    (its folder first on the import path, so modules beside it import too)."""
    if not where.endswith(".py"):
        try:
            return importlib.import_module(where)
        except ImportError as error:
            raise BotError(f"cannot import {where}: {error}") from None
        except Exception as error:
            raise BotError(f"cannot load {where}: {_raised(error)}") from None
    path = Path(where)
    # Named apart, so a bot file called `random.py` does not stand in for the standard one.
    spec = importlib.util.spec_from_file_location(f"arena_sdk_{path.stem}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise BotError(f"no Python file {where}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[spec.name]
        raise BotError(f"cannot load {where}: {_raised(error)}") from None
    return module


def _raised(error: BaseException) -> str:
    """An exception in one line: its type, its message and where it was raised."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        text += f" ({Path(frames[-1].filename).name} line {frames[-1].lineno})"
    return text


def _shown(answer: object) -> str:
    text = repr(answer)
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def _say(text: str) -> None:
    print(f"{sys.argv[0]}: {text}", file=sys.stderr, flush=True)
