"""The API's Redis connections: one shared sync client per process, and async clients for SSE responses."""

from __future__ import annotations

from functools import lru_cache

import redis
import redis.asyncio as aioredis
from django.conf import settings


@lru_cache(maxsize=1)
def redis_sync() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, decode_responses=True, socket_timeout=5, health_check_interval=30)


def redis_async() -> aioredis.Redis:
    """A fresh client per SSE response: async connections belong to the event loop that made them."""
    return aioredis.Redis.from_url(settings.REDIS_URL, decode_responses=True, health_check_interval=30)
