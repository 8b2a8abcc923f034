#!/usr/bin/env python3
"""A random player of any game for `arena bot --engine-cmd`, in plain Python with no imports
beyond the standard library: a template to copy. It knows no rules: it answers each `go` with a
move chosen at random from the `legal` line before it, which it asks for at the handshake
(docs/bot-protocol.md), so it plays every game it names, Amazons and Bao here.

    arena bot --server ws://localhost:8765 --engine-cmd "python3 examples/random_legal.py"
"""

import random
import sys

NAME = "random-legal"
GAMES = ("amazons", "bao")


def main():
    legal = []
    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        if word == "arena":
            if rest != "1":
                answer(f"error {NAME} speaks protocol 1, not {rest}")
                return
            answer(f"name {NAME}")
            answer("games " + " ".join(GAMES))
            answer("legal")  # ask for the legal moves before each `go`
            answer("ready")
        elif word == "legal":
            legal = rest.split()
        elif word == "go":
            answer(f"move {random.choice(legal)}" if legal else "error no legal move was listed")
            legal = []  # each `go` has its own `legal` line
        elif word == "quit":
            return
        # game, position, moves and clocks: a random player has no use for them


def answer(line):
    print(line, flush=True)  # the client waits for each line: never leave one in a buffer


if __name__ == "__main__":
    main()
