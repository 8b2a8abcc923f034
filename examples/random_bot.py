#!/usr/bin/env python3
"""A random Amazons player for `arena bot --engine-cmd`, in plain Python with no imports beyond
the standard library: a template to copy. It speaks the line protocol of docs/bot-protocol.md
on stdin and stdout, reads the board from the position text it is sent, and answers a legal
move chosen at random by its own move generator.

    arena bot --server ws://localhost:8765 --engine-cmd "python3 examples/random_bot.py"
"""

import random
import sys

NAME = "random-example"
DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]


def read_board(text):
    """The position text `3B2B3/10/... w` as a dict (file, rank) -> 'W', 'B', 'x' or '.'
    (files and ranks from 0) and the side to move ('W' or 'B')."""
    rows, side = text.split()
    board = {}
    ranks = rows.split("/")
    for index, row in enumerate(ranks):
        rank = len(ranks) - 1 - index
        file = 0
        count = ""
        for char in row + "/":
            if char.isdigit():
                count += char
                continue
            if count:
                for _ in range(int(count)):
                    board[file, rank] = "."
                    file += 1
                count = ""
            if char in "WBx":
                board[file, rank] = char
                file += 1
    return board, side.upper()


def reach(board, square):
    """The empty squares a queen on `square` reaches."""
    for df, dr in DIRECTIONS:
        file, rank = square[0] + df, square[1] + dr
        while board.get((file, rank)) == ".":
            yield file, rank
            file, rank = file + df, rank + dr


def legal_moves(board, side):
    for start, piece in list(board.items()):
        if piece != side:
            continue
        board[start] = "."  # the arrow may pass or land on the square just left
        for to in reach(board, start):
            board[to] = side
            for arrow in reach(board, to):
                yield start, to, arrow
            board[to] = "."
        board[start] = side


def square_name(square):
    return "abcdefghijklmnopqrstuvwxyz"[square[0]] + str(square[1] + 1)


def choose(position):
    board, side = read_board(position)
    moves = list(legal_moves(board, side))
    if not moves:
        return "error no legal move in " + position
    start, to, arrow = random.choice(moves)
    return f"move {square_name(start)}-{square_name(to)}/{square_name(arrow)}"


def main():
    position = None
    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        if word == "arena":
            if rest != "1":
                answer(f"error {NAME} speaks protocol 1, not {rest}")
                return
            answer(f"name {NAME}")
            answer("games amazons")
            answer("ready")
        elif word == "position":
            position = rest
        elif word == "go":
            answer(choose(position))
        elif word == "quit":
            return
        # game, moves and clocks: a random player has no use for them


def answer(line):
    print(line, flush=True)  # the client waits for each line: never leave one in a buffer


if __name__ == "__main__":
    main()
