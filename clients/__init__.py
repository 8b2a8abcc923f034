"""Clients of the game server: an asyncio client library over the wire protocol, and
`clients.bot`, which plays an engine bot through it (imported on its own: it loads the engine).
"""

from clients.connection import ArenaClient, ArenaError, Backoff, GameView

__all__ = ["ArenaClient", "ArenaError", "Backoff", "GameView"]
