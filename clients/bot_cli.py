"""`arena bot`, the command line of the bot runner (`clients.bot`): its options (an engine bot,
a program, or a bot written on `clients.sdk`), reading the token, logging, and running until
Ctrl-C or SIGTERM. `python -m clients.bot_cli` runs it alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import structlog

from clients.bot import DECLINED_PAUSE_SECONDS, BotError, check_url, run_bot
from clients.challenges import DEFAULT_GAMES, ChallengePolicy, setups_of
from clients.engines import EngineError, EngineMaker, engine_games, open_engine
from clients.offers import Offer, OfferKind
from clients.program import ProgramEngine, reusing, split_command
from clients.sdk import Bot, engines, load_bot
from engine.game import game_names

__all__ = ["add_command", "main", "run_command"]


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bot` to an `arena` parser's subcommands."""
    parser = commands.add_parser(
        "bot",
        help="play on a server as a bot account, with one of the engine's bots, a program or a "
        "bot written in Python",
        description="Log in to a server with a bot token, accept the challenges the bot can "
        "play and play them; reconnects by itself after a dropped connection. Ctrl-C stops.",
    )
    _add_options(parser)
    parser.set_defaults(run=run_command)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("ARENA_SERVER"),
        metavar="URL",
        help="the server's websocket URL, e.g. ws://localhost:8765 (default: $ARENA_SERVER)",
    )
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        help="the bot's token in FILE (made on your account page or by `arena token create`)",
    )
    token.add_argument(
        "--token",
        default=os.environ.get("ARENA_BOT_TOKEN"),
        help="the bot's token (default: $ARENA_BOT_TOKEN; prefer the variable or --token-file: "
        "arguments show in process lists)",
    )
    engine = parser.add_mutually_exclusive_group(required=True)
    engine.add_argument(
        "--engine",
        type=_engine,
        metavar="SPEC",
        help="the engine bot and its parameters, e.g. invader or mcts:c=0.8 (see `arena bots`)",
    )
    engine.add_argument(
        "--engine-cmd",
        type=_command,
        metavar="COMMAND",
        help="a program of any language that plays by the line protocol of "
        "docs/bot-protocol.md, started for each game, e.g. 'python3 examples/random_bot.py'",
    )
    engine.add_argument(
        "--sdk",
        type=_sdk_bot,
        metavar="FILE.py:CLASS",
        help="a bot written in Python on clients.sdk: the Bot subclass CLASS of FILE.py (or of "
        "an importable module, module:CLASS), e.g. examples/sdk_bot.py:FewestReplies",
    )
    parser.add_argument(
        "--game",
        action="append",
        choices=game_names(),
        dest="games",
        help="accept challenges to this game only (repeat for several; default: every game "
        "the engine plays)",
    )
    parser.add_argument(
        "--setup",
        action="append",
        dest="setups",
        metavar="SETUP",
        help="accept challenges from this setup only (repeat for several; default: every "
        "setup of the games played)",
    )
    parser.add_argument(
        "--games",
        "--max-games",
        type=_positive,
        dest="max_games",
        metavar="N",
        help=f"play up to N games at once, and up to N of each ladder's games (--ladder); "
        f"challenges that come while N are going are declined (default {DEFAULT_GAMES} in all, "
        "one at a time on each ladder)",
    )
    parser.add_argument(
        "--min-seconds",
        type=_positive,
        default=10,
        metavar="S",
        help="decline time controls where base + 40 * increment is below S seconds (default 10)",
    )
    parser.add_argument(
        "--casual", action="store_true", help="decline rated challenges, play casual games only"
    )
    parser.add_argument(
        "--ladder",
        action="append",
        dest="ladders",
        default=[],
        metavar="NAME",
        help="join this bot ladder after logging in, and again after every reconnect, and play "
        "the games it starts (repeat for several; `arena ladder list` on the server lists them)",
    )
    offers = parser.add_argument_group(
        "offering games",
        "Besides answering challenges, the bot may offer games itself, each kept open while it "
        "has room for another game (--games). TERMS are SETUP:BASE+INCREMENT in whole seconds, "
        "with :rated for a rated game: 6x6:60+1, 10x10:300+5:rated.",
    )
    offers.add_argument(
        "--seek",
        action="append",
        dest="seeks",
        default=[],
        metavar="TERMS",
        help="keep a seek of these terms open in the lobby (repeatable)",
    )
    offers.add_argument(
        "--quick-pair",
        action="append",
        dest="quick_pairs",
        default=[],
        metavar="TERMS",
        help="wait in quick pairing for an opponent on these terms (repeatable)",
    )
    offers.add_argument(
        "--challenge",
        action="append",
        dest="challenges",
        default=[],
        metavar="NAME:TERMS",
        help="challenge NAME (a person, a bot or a house bot) on these terms whenever the two "
        f"are not playing; after a decline, again {DECLINED_PAUSE_SECONDS:.0f} s later "
        "(repeatable)",
    )


def _engine(text: str) -> str:
    try:
        open_engine(text)
    except EngineError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _sdk_bot(text: str) -> type[Bot]:
    try:
        return load_bot(text)
    except BotError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _command(text: str) -> list[str]:
    try:
        return split_command(text)
    except EngineError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def run_command(args: argparse.Namespace) -> int:
    """Run the bot as parsed by `add_command` until Ctrl-C or SIGTERM; 0 when stopped."""
    if not args.server:
        raise BotError("no server: give --server URL or set ARENA_SERVER")
    check_url(args.server)
    token = args.token if args.token_file is None else _read_token(args.token_file)
    if not token:
        raise BotError("no bot token: set ARENA_BOT_TOKEN or give --token-file FILE")
    asyncio.run(_run(args, token))
    return 0


async def _run(args: argparse.Namespace, token: str) -> None:
    """Check what plays, then play until Ctrl-C or SIGTERM. A program is started here once, to
    shake hands before the bot connects, and is the runner's first engine: not started again."""
    if args.engine_cmd is None:
        await _play(args, token, None)
        return
    # Before the program is first started, so what it says then goes to the log too.
    _configure_logging()
    greeted = ProgramEngine(args.engine_cmd)
    try:
        await greeted.prepare()
        await _play(args, token, greeted)
    finally:
        await greeted.close()  # the runner's own closing, when it took the program over


async def _play(args: argparse.Namespace, token: str, greeted: ProgramEngine | None) -> None:
    engine: str | EngineMaker
    engine_name = None  # the engine's own name where its spec is not
    if greeted is not None:
        handshake = greeted.handshake
        assert handshake is not None
        engine = reusing(greeted)
        engine_name = handshake.name
        who = f"engine program {handshake.name}"
        games = frozenset(handshake.games) & frozenset(game_names())
        if not games:
            raise BotError(
                f"{who} plays none of the games here ({' '.join(handshake.games)}): they are "
                f"{', '.join(game_names())}"
            )
    elif args.sdk is not None:
        bot: type[Bot] = args.sdk
        engine = engines(bot)
        engine_name = bot.name
        who = f"bot {bot.name}"
        games = frozenset(bot.games) & frozenset(game_names())
        if not games:
            raise BotError(
                f"{who} plays none of the games here ({' '.join(sorted(bot.games))}): they are "
                f"{', '.join(game_names())}"
            )
    else:
        engine = args.engine
        who = f"engine {args.engine}"
        games = engine_games(args.engine)
    if args.games:
        if not_played := sorted(set(args.games) - games):
            raise BotError(f"{who} does not play {', '.join(not_played)}")
        games = frozenset(args.games)
    setups = frozenset().union(*(setups_of(game) for game in games))
    if unknown := sorted(set(args.setups or ()) - setups):
        raise BotError(
            f"no game played has setup {', '.join(unknown)}: setups are {', '.join(sorted(setups))}"
        )
    offers = []
    for kind, texts in (
        (OfferKind.SEEK, args.seeks),
        (OfferKind.QUICK_PAIR, args.quick_pairs),
        (OfferKind.CHALLENGE, args.challenges),
    ):
        for text in texts:
            try:
                offers.append(Offer.parse(kind, text, games))
            except ValueError as error:
                raise BotError(f"--{_OPTIONS[kind]} {error}") from None
    policy = ChallengePolicy(
        games=games,
        setups=frozenset(args.setups) if args.setups else None,
        min_game_seconds=args.min_seconds,
        rated=not args.casual,
        max_games=args.max_games or DEFAULT_GAMES,
    )
    _configure_logging()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await run_bot(
        args.server,
        token,
        engine,
        accept=policy,
        stop=stop,
        report=_say,
        ladders=args.ladders,
        offers=offers,
        engine_name=engine_name,
        # A ladder's games come without asking: one at a time unless told otherwise.
        ladder_games=args.max_games or 1,
    )


_OPTIONS = {
    OfferKind.SEEK: "seek",
    OfferKind.QUICK_PAIR: "quick-pair",
    OfferKind.CHALLENGE: "challenge",
}


def _say(text: str) -> None:
    print(f"arena bot: {text}", file=sys.stderr, flush=True)


def _read_token(path: Path) -> str:
    try:
        token = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not text"
        raise BotError(f"cannot read the token file {path}: {reason}") from None
    if not token:
        raise BotError(f"the token file {path} is empty")
    return token


def _configure_logging() -> None:
    """Readable lines on a terminal, JSON lines otherwise; to stderr either way."""
    renderer: Any = (
        structlog.dev.ConsoleRenderer()
        if sys.stderr.isatty()
        else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.format_exc_info,
            renderer,
        ],
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """`arena bot` on its own: `python -m clients.bot_cli --server URL --engine SPEC`."""
    parser = argparse.ArgumentParser(
        prog="arena bot",
        description="Play on an Amazons Arena server as a bot account with an engine bot, "
        "a program of any language or a bot written in Python.",
    )
    _add_options(parser)
    args = parser.parse_args(argv)
    try:
        return run_command(args)
    except (BotError, EngineError, OSError) as error:
        parser.exit(2, f"arena bot: error: {error}\n")


if __name__ == "__main__":
    sys.exit(main())
