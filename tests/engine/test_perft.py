from pathlib import Path

import pytest
from hypothesis import given, settings

from engine.amazons import Position
from tests.engine import reference
from tests.engine.strategies import positions

PERFT_FILES = sorted((Path(__file__).parent.parent / "perft").glob("*.perft"))
FAST_LEAVES = 10_000_000_000  # above this a depth takes tens of seconds: run it with -m slow


def _cases() -> list[object]:
    cases = []
    for path in PERFT_FILES:
        name = text = ""
        for line in path.read_text().splitlines():
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition(" ")
            if key == "id":
                name = value
            elif key == "position":
                text = value
            elif key == "perft":
                depth, leaves = map(int, value.split())
                marks = [pytest.mark.slow] if leaves > FAST_LEAVES else []
                cases.append(pytest.param(text, depth, leaves, id=f"{name}-{depth}", marks=marks))
            else:
                raise ValueError(f"{path.name}: unknown line {line!r}")
    return cases


def test_the_perft_files_hold_cases() -> None:
    assert len(_cases()) >= 60


@pytest.mark.parametrize(("text", "depth", "leaves"), _cases())
def test_perft(text: str, depth: int, leaves: int) -> None:
    assert Position.parse(text).perft(depth) == leaves


@given(positions(max_size=5))
@settings(max_examples=150, deadline=None)
def test_moves_agree_with_the_plain_reference(position: Position) -> None:
    _, _, cells, side = reference.parse(position.text())
    expected = sorted(reference.move_text(m) for m in reference.moves(cells, side))
    assert sorted(str(m) for m in position.legal_moves) == expected
    assert position.count_moves() == len(expected)
    assert position.perft(2) == reference.perft(cells, side, 2)


def test_divide_sums_to_perft() -> None:
    position = Position.setup("8x8")
    divided = position.divide(2)
    assert len(divided) == 1232
    assert sum(count for _, count in divided) == 1331198
    assert [m for m, _ in divided] == list(position.legal_moves)
