"""The game server: websockets, Redis state, lobby, games, clocks and bot workers."""
