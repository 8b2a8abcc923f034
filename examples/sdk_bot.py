#!/usr/bin/env python3
"""A bot on the Python SDK (`clients.sdk`): a template to copy. It plays the move that leaves
the opponent the fewest replies, in any game registered here (Amazons by default).

    arena bot --sdk examples/sdk_bot.py:FewestReplies --server ws://localhost:8765 \\
        --token-file bot.token --games 2
    ARENA_SERVER=ws://localhost:8765 ARENA_BOT_TOKEN=bot_... python3 examples/sdk_bot.py
"""

from typing import Any

from clients.sdk import Bot, Turn


class FewestReplies(Bot):
    name = "fewest-replies"

    def choose_move(self, turn: Turn) -> str:
        position = turn.position  # the bot's own copy: free to try moves on

        def replies(move: Any) -> int:
            position.apply(move)
            count = len(position.legal_moves)
            position.undo()
            return count

        return position.format_move(min(list(position.legal_moves), key=replies))


if __name__ == "__main__":
    FewestReplies.run()
