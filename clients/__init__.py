"""Clients of the game server: an asyncio client library over the wire protocol, and the bot
runner, which plays an engine through it (`clients.bot`, with `challenges`, `engines` and the
command line `bot_cli`; imported on their own: they load the engine).
"""

from clients.connection import ArenaClient, ArenaError, Backoff, GameView

__all__ = ["ArenaClient", "ArenaError", "Backoff", "GameView"]
