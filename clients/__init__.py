"""Clients of the game server: an asyncio client library over the wire protocol."""

from clients.connection import ArenaClient, ArenaError, GameView

__all__ = ["ArenaClient", "ArenaError", "GameView"]
