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
    """A fresh client per SSE response: async connections belong to the event loop that made them.

    Its read timeout outlasts the relay's XREAD BLOCK (one heartbeat interval): with redis-py's
    default of 5 s, a stream silent for 5 s (a busy worker, a slow first token) broke the response
    (found by bench/api at 128 streams).
    """
    return aioredis.Redis.from_url(
        settings.REDIS_URL,
        decode_responses=True,
        health_check_interval=30,
        socket_timeout=settings.API_SSE_HEARTBEAT_SECONDS + 10,
    )
