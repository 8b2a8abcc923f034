"""A deliberately plain Amazons move generator over a dict board, written independently of the
engine, to check its kernels against."""

from __future__ import annotations

LINES = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]


def parse(text: str) -> tuple[int, int, dict[tuple[int, int], str], str]:
    board_text, *side = text.split()
    rows = board_text.split("/")
    cells: dict[tuple[int, int], str] = {}
    width = 0
    for i, row in enumerate(rows):
        y = len(rows) - 1 - i
        x = 0
        number = ""
        for char in row + "/":
            if char.isdigit():
                number += char
                continue
            if number:
                for _ in range(int(number)):
                    cells[(x, y)] = "."
                    x += 1
                number = ""
            if char != "/":
                cells[(x, y)] = char
                x += 1
        width = x
    return width, len(rows), cells, (side[0] if side else "w")


def moves(cells: dict[tuple[int, int], str], side: str) -> list[tuple[tuple[int, int], ...]]:
    mine = "W" if side == "w" else "B"
    found = []
    for origin, piece in cells.items():
        if piece != mine:
            continue
        for target in _reach(cells, origin, vacated=None):
            for arrow in _reach(cells, target, vacated=origin):
                found.append((origin, target, arrow))
    return found


def _reach(cells: dict[tuple[int, int], str], start: tuple[int, int], vacated: object) -> list:
    out = []
    for dx, dy in LINES:
        x, y = start[0] + dx, start[1] + dy
        while (x, y) in cells and (cells[(x, y)] == "." or (x, y) == vacated):
            out.append((x, y))
            x, y = x + dx, y + dy
    return out


def play(cells: dict, side: str, move: tuple) -> tuple[dict, str]:
    origin, target, arrow = move
    after = dict(cells)
    after[target] = after[origin]
    after[origin] = "."
    after[arrow] = "x"
    return after, "b" if side == "w" else "w"


def perft(cells: dict, side: str, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(*play(cells, side, m), depth - 1) for m in moves(cells, side))


def square_name(xy: tuple[int, int]) -> str:
    return f"{'abcdefghijklmnopqrstuvwxyz'[xy[0]]}{xy[1] + 1}"


def move_text(move: tuple) -> str:
    return "{}-{}/{}".format(*map(square_name, move))
