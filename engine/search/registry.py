"""Bots by name: a spec such as `mcts:c=0.8,seed=3` names a bot and sets its parameters. Each
bot type says which registered games it plays (`BotType.games`, `bots_for`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.errors import NotationError
from engine.game import get_game
from engine.search.alphabeta import AlphaBetaBot, GreedyBot
from engine.search.bao_bots import BaoAlphaBetaBot, BaoDeepBot
from engine.search.basic import MobilityBot, RandomBot
from engine.search.bot import Bot
from engine.search.invader import InvaderBot
from engine.search.mcts import MctsBot
from engine.search.openspiel import OpenSpielMctsBot

__all__ = ["ANY_GAME", "BOTS", "BotType", "Param", "bot_names", "bots_for", "make_bot"]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: type[int] | type[float]
    default: int | float
    help: str


# In `BotType.games`: every registered game, for a bot that sees a game only through the
# generic `GameState` interface, so a game registered later has it at once.
ANY_GAME = "*"


@dataclass(frozen=True, slots=True)
class BotType:
    """A kind of bot: its name, what it does, its parameters, how to make one, and the games
    it plays (names in `engine.game`'s registry, or `ANY_GAME`)."""

    name: str
    summary: str
    params: tuple[Param, ...]
    make: Callable[..., Bot]
    games: tuple[str, ...] = ("amazons",)

    def describe(self) -> str:
        params = ", ".join(f"{p.name}={p.default} ({p.help})" for p in self.params)
        games = "every game" if ANY_GAME in self.games else ", ".join(self.games)
        return f"{self.name} ({games}): {self.summary}" + (f" [{params}]" if params else "")

    def plays(self, game: str) -> bool:
        return game in self.games or ANY_GAME in self.games


SEED = Param("seed", int, 0, "random seed")

BOTS: dict[str, BotType] = {
    t.name: t
    for t in (
        BotType("random", "uniform over the legal moves", (SEED,), RandomBot, (ANY_GAME,)),
        BotType(
            "mobility",
            "the move that leaves the opponent the fewest moves",
            (SEED,),
            MobilityBot,
            (ANY_GAME,),
        ),
        BotType("greedy", "the best move by one-ply evaluation", (SEED,), GreedyBot),
        BotType(
            "alphabeta",
            "iterative-deepening alpha-beta over the evaluation, with a transposition table",
            (Param("depth", int, 0, "plies to search, 0 for as deep as time allows"), SEED),
            AlphaBetaBot,
        ),
        BotType(
            "mcts",
            "UCT with random playouts to the end of the game",
            (
                Param("c", float, 0.8, "exploration constant"),
                Param("playouts", int, 0, "playouts per move, 0 for as many as time allows"),
                SEED,
            ),
            MctsBot,
            (ANY_GAME,),
        ),
        BotType(
            "invader",
            "the strongest: MCTS with evaluation cut-off playouts, ordered progressive "
            "widening, exact endgame play by CGT values",
            (
                Param("c", float, 0.3, "exploration constant"),
                Param("cutoff", int, 2, "random moves before a playout is scored"),
                Param("slope", float, 0.3, "evaluation to win chance: 1 / (1 + e^(-slope x))"),
                Param("expand", int, 4, "visits before a node's moves are ranked"),
                Param("queens", int, 12, "best queen steps whose arrows are ranked"),
                Param("keep", int, 40, "ranked moves kept per node"),
                Param("widen", float, 1.0, "children allowed: 2 + widen * sqrt(visits)"),
                Param("mix", float, 0.4, "weight of a node's minimax value against its win rate"),
                Param("root", int, 80, "ranked moves kept at the root"),
                Param(
                    "komi",
                    float,
                    1.0,
                    "par of the evaluation, as a share of the root's value two plies on",
                ),
                Param("playouts", int, 0, "playouts per move, 0 for as many as time allows"),
                SEED,
                Param(
                    "exact",
                    int,
                    12,
                    "exact endgame by CGT values once the contested regions have at most "
                    "this many empty squares in all, 0 never",
                ),
                Param(
                    "fitted",
                    int,
                    1,
                    "1: the evaluation's terms weighted as fitted to game results, 0: Lieberum's",
                ),
                Param(
                    "reuse",
                    int,
                    1,
                    "1: a move's search starts from the last search's subtree for the position "
                    "when it holds one, 0: from a fresh tree every move",
                ),
            ),
            InvaderBot,
        ),
        BotType(
            "bao-alphabeta",
            "the earlier Bao program's alpha-beta over its six-term evaluation, deepened while "
            "time allows",
            (Param("depth", int, 0, "plies to search, 0 for as deep as time allows"), SEED),
            BaoAlphaBetaBot,
            ("bao",),
        ),
        BotType(
            "bao-deep",
            "negamax alpha-beta with a transposition table, captures and killers first, over "
            "seeds owned and captures threatened",
            (Param("depth", int, 0, "plies to search, 0 for as deep as time allows"), SEED),
            BaoDeepBot,
            ("bao",),
        ),
        BotType(
            "openspiel-mcts",
            "OpenSpiel's C++ MCTS with random rollouts (needs open-spiel installed)",
            (
                Param("c", float, 2.0, "exploration constant"),
                Param("simulations", int, 0, "simulations per action, 0 for a third of the time"),
                SEED,
            ),
            OpenSpielMctsBot,
        ),
    )
}


def bot_names() -> list[str]:
    return list(BOTS)


def bots_for(game: str) -> list[str]:
    """The names of the bots that play `game`, in the registry's order (weakest first)."""
    get_game(game)  # an unknown game is an error, not a game without bots
    return [name for name, bot_type in BOTS.items() if bot_type.plays(game)]


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """The bot a spec names; `seed`, when given, replaces the spec's seed."""
    name, _, rest = spec.strip().partition(":")
    if name not in BOTS:
        raise NotationError(f"unknown bot {name!r}: bots are {', '.join(BOTS)}")
    bot_type = BOTS[name]
    params = {p.name: p for p in bot_type.params}
    values: dict[str, int | float] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, text = item.partition("=")
        key = key.strip()
        if key not in params:
            known = ", ".join(params) or "none"
            raise NotationError(
                f"bot {name!r} has no parameter {key!r}: its parameters are {known}"
            )
        if not equals:
            raise NotationError(f"bot parameter {key!r} needs a value: write {key}=VALUE")
        try:
            values[key] = params[key].kind(text.strip())
        except ValueError:
            raise NotationError(
                f"bot parameter {key}={text.strip()!r} is not "
                + ("a whole number" if params[key].kind is int else "a number")
            ) from None
    if seed is not None:
        values["seed"] = seed
    return bot_type.make(**values)
