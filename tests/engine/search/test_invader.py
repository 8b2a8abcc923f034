import functools

from hypothesis import given, settings

from engine.amazons import Position, Side
from engine.search.bot import Budget
from engine.search.invader import InvaderBot, longest_sequence
from tests.engine.strategies import positions


def _longest_alone(position: Position, side: Side) -> int:
    """Plain search: the most moves `side` can make in a row while the opponent passes."""
    return _longest_from(position.text()[:-1] + side.letter)


@functools.cache
def _longest_from(text: str) -> int:
    here = Position.parse(text)
    best = 0
    for move in list(here.legal_moves):
        after = here.clone()
        after.apply(move)
        best = max(best, 1 + _longest_from(after.text()[:-1] + text[-1]))
    return best


@given(positions(max_size=3))
@settings(max_examples=60, deadline=None)
def test_longest_sequence_matches_a_plain_search(position: Position) -> None:
    for side in Side:
        expected = _longest_alone(position, side)
        found, move, proven = longest_sequence(position, int(side), nodes=1_000_000)
        assert proven
        assert found == expected
        if expected:
            first = position.clone()
            if first.side_to_move is not side:
                first = Position.parse(first.text()[:-1] + side.letter)
            first.apply(first.decode(move))
            assert 1 + _longest_alone(first, side) == expected


def test_settled_play_keeps_every_square() -> None:
    # Every region is settled: White's 2x4 block and Black's 2x3 one. Many first moves
    # strand squares of the block; the bot must play one that can still fill it.
    position = Position.parse("xxxxxxxx/4x2B/W3x3 w")
    assert all(not (r.white and r.black) for r in position.regions())
    bot = InvaderBot()
    own, _, proven = longest_sequence(position, 0, 10_000)
    assert proven
    decision = bot.choose(position, Budget(seconds=0.5))
    after = position.clone()
    after.apply(decision.move)  # type: ignore[arg-type]
    again, _, _ = longest_sequence(after, 0, 10_000)
    assert again == own - 1
    assert decision.score == own - longest_sequence(position, 1, 10_000)[0]


def test_the_endgame_hook_is_asked_first() -> None:
    position = Position.setup("6x6")
    chosen = next(iter(position.legal_moves))
    bot = InvaderBot(endgame=lambda p: chosen)
    assert bot.choose(position, Budget(seconds=0.1)).move == chosen
