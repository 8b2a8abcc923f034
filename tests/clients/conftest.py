"""Real Redis for the client tests: the server tests' private redis-server fixtures."""

from tests.server.conftest import redis, redis_url

__all__ = ["redis", "redis_url"]
