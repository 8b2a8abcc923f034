from hypothesis import given, settings
from hypothesis import strategies as st

from engine.amazons import Position, RegionKind, Side, Square
from engine.amazons.regions import SYMMETRIES
from tests.engine.strategies import game_positions, positions


def _transformed(position: Position, index: int, dx: int, dy: int) -> Position:
    """The position under symmetry `index`, translated by (dx, dy) on a larger board."""
    symmetry = SYMMETRIES[index]
    moved = {}
    for x in range(position.width):
        for y in range(position.height):
            letter = position.piece_at(Square(x, y))
            moved[symmetry.apply(x, y)] = letter or "."
    x0 = min(x for x, _ in moved)
    y0 = min(y for _, y in moved)
    width = max(x for x, _ in moved) - x0 + 1 + dx
    height = max(y for _, y in moved) - y0 + 1 + dy
    pieces = {Square(x, y): "x" for x in range(width) for y in range(height)}
    for (x, y), letter in moved.items():
        square = Square(x - x0 + dx, y - y0 + dy)
        if letter == ".":
            del pieces[square]
        else:
            pieces[square] = letter
    return Position(width, height, pieces, position.side_to_move)


def test_the_start_is_one_contested_region() -> None:
    (region,) = Position.setup("10x10").regions()
    assert region.kind is RegionKind.CONTESTED
    assert len(region.squares) == 100
    assert region.empty == 92
    assert [str(s) for s in region.white] == ["d1", "g1", "a4", "j4"]


def test_kinds_and_owner() -> None:
    regions = Position.parse("W1x2/xxx2/B1xWB w").regions()
    assert [r.kind for r in regions] == [
        RegionKind.SETTLED,
        RegionKind.CONTESTED,
        RegionKind.SETTLED,
    ]
    assert [r.owner for r in regions] == [Side.BLACK, None, Side.WHITE]
    dead = Position.parse("W1x1 w").regions()
    assert [r.kind for r in dead] == [RegionKind.SETTLED, RegionKind.DEAD]
    assert [len(r.squares) for r in dead] == [2, 1]


def test_diagonal_neighbours_are_connected() -> None:
    assert len(Position.parse("1x/x1 w").regions()) == 1


@given(positions(max_size=8))
@settings(max_examples=80, deadline=None)
def test_regions_partition_the_non_burnt_squares(position: Position) -> None:
    regions = position.regions()
    seen = [s for r in regions for s in r.squares]
    expected = [
        Square(x, y)
        for x in range(position.width)
        for y in range(position.height)
        if position.piece_at(Square(x, y)) != "x"
    ]
    assert sorted(seen) == sorted(expected)
    for region in regions:
        assert set(region.white) == {s for s in region.squares if position.piece_at(s) == "W"}
        assert set(region.black) == {s for s in region.squares if position.piece_at(s) == "B"}
    # No queen move leaves its region.
    region_of = {s: i for i, r in enumerate(regions) for s in r.squares}
    for move in position.legal_moves:
        assert region_of[move.origin] == region_of[move.target] == region_of[move.arrow]


@given(positions(max_size=6), st.integers(0, 7), st.integers(0, 3), st.integers(0, 3))
@settings(max_examples=80, deadline=None)
def test_keys_are_invariant_under_symmetry_and_translation(
    position: Position, index: int, dx: int, dy: int
) -> None:
    keys = sorted(r.key() for r in position.regions())
    other = _transformed(position, index, dx, dy)
    assert sorted(r.key() for r in other.regions()) == keys


@given(positions(max_size=6))
@settings(max_examples=60, deadline=None)
def test_swapped_key_is_the_key_with_colours_exchanged(position: Position) -> None:
    swapped = Position.parse(position.text().translate(str.maketrans("WB", "BW")))
    assert sorted(r.swapped_key() for r in position.regions()) == sorted(
        r.key() for r in swapped.regions()
    )


@given(game_positions())
@settings(max_examples=30, deadline=None)
def test_moves_of_the_keyed_form_map_back_to_legal_moves(position: Position) -> None:
    for region in position.regions():
        canonical = region.canonical()
        for side in Side:
            form = canonical.form.clone()
            if form.side_to_move is not side:
                form = Position.parse(form.text()[:-1] + side.letter)
            here = Position.parse(position.text()[:-1] + side.letter)
            mapped = {canonical.move_to_original(m) for m in form.legal_moves}
            in_region = {m for m in here.legal_moves if m.origin in set(region.squares)}
            assert mapped == in_region


def test_region_position_is_the_region_alone() -> None:
    settled, contested, _ = Position.parse("W1x2/xxx2/B1xWB w").regions()
    assert settled.position().text() == "B1 w"
    assert contested.position(Side.BLACK).text() == "2/2/WB b"


def test_canonical_key_of_an_l_tromino() -> None:
    # An amazon at one end of an L, in five orientations: one key. At the corner: another.
    texts = ["Wx/2 w", "2/Wx w", "xW/2 w", "1W/1x w", "W1/x1 w"]
    keys = {Position.parse(t).regions()[0].key() for t in texts}
    assert len(keys) == 1
    assert Position.parse("W1/1x w").regions()[0].key() not in keys
    assert Position.parse("Bx/2 w").regions()[0].key() not in keys


def test_colour_swap_maps_a_black_region_onto_its_white_twin() -> None:
    white, black = Position.parse("B1xxx/xxxxx/xxx1W w").regions()
    assert black.key() != white.key()
    assert black.swapped_key() == white.key()
    assert white.swapped_key() == black.key()
