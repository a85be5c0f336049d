"""The API's Redis connections: one shared sync client per process (and one for stream producers, which
retries through an outage), and one async client per event loop for SSE."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, cast

import redis
import redis.asyncio as aioredis
from django.conf import settings
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

# redis-py's pools refuse a 101st connection by default, and every open SSE response holds one
# (its XREAD BLOCK) for its whole length: found by bench/api at 128 streams. Redis' own limit
# (maxclients, 10000 by default) is the real bound.
MAX_CONNECTIONS = 10_000
# 0.1 + 0.2 + ... + 1.6 s, then 2 s a retry: ~33 s of a Redis outage outlived by a producer.
PRODUCER_RETRIES = 20


@lru_cache(maxsize=1)
def redis_sync() -> redis.Redis:
    return redis.Redis.from_url(
        settings.REDIS_URL,
        decode_responses=True,
        socket_timeout=5,
        health_check_interval=30,
        max_connections=MAX_CONNECTIONS,
    )


@lru_cache(maxsize=1)
def redis_producer() -> redis.Redis:
    """The client a streamed answer's producer (a worker task) writes its events with.

    A Redis restart or failover must not lose the rest of an answer (found by tests/faults: the task
    died on its next XADD, the stream never ended and the turn was never recorded). Its commands retry
    on connection errors with a backoff capped at 2 s, for about half a minute, while the relays'
    clients reconnect with Last-Event-ID. Web requests keep ``redis_sync``, which fails fast.
    """
    return redis.Redis.from_url(
        settings.REDIS_URL,
        decode_responses=True,
        socket_timeout=5,
        health_check_interval=30,
        max_connections=MAX_CONNECTIONS,
        retry=Retry(ExponentialBackoff(cap=2.0, base=0.1), retries=PRODUCER_RETRIES),
    )


def redis_async() -> aioredis.Redis:
    """The SSE relays' client for the running event loop (async connections belong to the loop that made them).

    One client per loop, so its pool keeps connections from one response to the next instead of
    connecting (and greeting the server) for each stream; each relay's XREAD BLOCK holds one pool
    connection while it waits. Outside a loop: a fresh client.

    Its read timeout outlasts the relay's XREAD BLOCK (one heartbeat interval): with redis-py's
    default of 5 s, a stream silent for 5 s (a busy worker, a slow first token) broke the response
    (found by bench/api at 128 streams).
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _async_client_new()
    client = _ASYNC_CLIENTS.get(loop)
    if client is None:
        client = _ASYNC_CLIENTS[loop] = _async_client_new()
    return client


def _async_client_new() -> aioredis.Redis:
    return aioredis.Redis.from_url(
        settings.REDIS_URL,
        decode_responses=True,
        health_check_interval=30,
        socket_timeout=settings.API_SSE_HEARTBEAT_SECONDS + 10,
        max_connections=MAX_CONNECTIONS,
    )


_ASYNC_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aioredis.Redis] = (
    weakref.WeakKeyDictionary()
)


# Stream replies as this module's clients return them: decode_responses=True makes every id, field
# and value text, which redis-py's annotations (bytes or text, per connection) cannot say.
StreamEntries = list[tuple[str, dict[str, str]]]


async def stream_read(
    client: aioredis.Redis, *, positions: Mapping[str, str], count: int, block: int
) -> list[tuple[str, StreamEntries]]:
    """XREAD BLOCK from each key's position: [(key, entries)], empty when the block timed out."""
    streams: dict[Any, Any] = dict(positions)
    reply = await client.xread(streams, count=count, block=block)
    return cast(list[tuple[str, StreamEntries]], reply or [])


async def stream_range(client: aioredis.Redis, *, key: str, entry_id: str) -> StreamEntries:
    """The one entry of `key` with this id (or none)."""
    return cast(StreamEntries, await client.xrange(key, min=entry_id, max=entry_id, count=1))
