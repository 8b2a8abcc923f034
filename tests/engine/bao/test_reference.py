"""The engine against the plain second model in tests/engine/bao/reference.py: the same legal
moves with the same results along random games and on random boards of both stages."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bao import BAO, BaoPosition, Board, Move
from engine.bao.board import NO_PIT
from tests.engine.bao import reference


def _as_reference(board: Board) -> reference.State:
    return reference.State(
        (board.pits[:16], board.pits[16:]), board.stores, board.owned, board.mover,
        board.blocked, board.ply,
    )  # fmt: skip


def _agree(position: BaoPosition) -> None:
    ours = {
        (move.pit, move.direction, move.safari): _as_reference(after)
        for move, after in position.moves().items()
    }
    theirs = reference.legal(_as_reference(position.board))
    assert ours == theirs, position.text()


@given(st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_random_games_agree_with_the_plain_model(seed: int) -> None:
    rng = random.Random(seed)
    position = BAO.new_state()
    while not position.is_terminal():
        _agree(position)
        position.apply(rng.choice(position.legal_moves))
    _agree(position)


@given(
    st.lists(st.integers(min_value=0, max_value=31), min_size=10, max_size=58),
    st.booleans(),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=-1, max_value=7),
)
@settings(max_examples=600, deadline=None)
def test_random_boards_agree_with_the_plain_model(
    seeds: list[int], north: bool, store: int, blocked: int
) -> None:
    """Random boards in either stage (a store of 0 is mtaji), with a takasia mark at times."""
    pits = [0] * 32
    for pit in seeds:
        pits[pit] += 1
    mover = int(north)
    if store or blocked < 0 or pits[mover * 16 + blocked] == 0:
        blocked = NO_PIT
    owned = (pits[4] > 0, pits[20] > 0)
    board = Board(tuple(pits), (store, store), owned, mover, blocked, 50)
    _agree(BaoPosition(board))


def test_the_models_agree_on_a_never_ending_move() -> None:
    position = BaoPosition.parse(
        "2,0,1,1,0,0,0,2/0,1,0,0,0,0,0,0/1,0,1,2,1,2,0,2/0,1,0,1,0,1,2,1 0-0 - - s mtaji 100"
    )
    assert Move(5, 1) not in position.moves()
    _agree(position)
