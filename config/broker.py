"""The broker transport: kombu's Redis transport, with a channel that survives a broker restart while it
holds unacknowledged messages.

When Valkey goes away, Celery's consumer first *collects* the broken connection (which cuts the
transport from its kombu Connection: ``transport.client = None``) and then closes it. Closing a Redis
channel puts its unacknowledged messages back on their queues (ETA tasks the worker holds, such as a
handoff's timeout check, and acks-late tasks in flight); the channel then builds a Redis client from
``transport.client`` to do so, finds None, and raises AttributeError. That is no connection error, so
Celery does not retry: the worker logs "Unrecoverable error" and exits (kombu 5.7). A worker holding no
such message reconnected, which is why it showed only after tests that leave countdown tasks behind.

This channel keeps the connection's parameters (the URL's parts, which never change) for that last
restore: with the broker still down the restore fails as a connection error, which Celery ignores (the
messages stay in the broker's unacked set and come back after the visibility timeout); with it back,
they are requeued at once. Either way the consumer reconnects and goes on consuming.
"""

from __future__ import annotations

from typing import Any

import kombu.transport
from kombu.transport import redis

ALIASES = ("redis", "rediss")  # the schemes of REDIS_URL (redis+socket:// is "redis" too)


class Channel(redis.Channel):
    def __init__(self, connection: Any, *args: Any, **kwargs: Any) -> None:
        self._conninfo = connection.client
        super().__init__(connection, *args, **kwargs)  # type: ignore[no-untyped-call]  # kombu leaves it unannotated

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport = self.connection
        if transport.client is not None:
            params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)  # type: ignore[no-untyped-call]  # kombu leaves it unannotated
            return params
        transport.client = self._conninfo  # only for this read: the transport is being discarded
        try:
            params = super()._connparams(asynchronous=asynchronous)  # type: ignore[no-untyped-call]  # kombu leaves it unannotated
            return params
        finally:
            transport.client = None


class Transport(redis.Transport):
    Channel = Channel


def broker_transport_install() -> None:
    """Make the Redis schemes resolve to this transport (kombu resolves a broker URL's scheme through
    its alias table when it first connects, so this runs before the Celery app is configured)."""
    for alias in ALIASES:
        kombu.transport.TRANSPORT_ALIASES[alias] = f"{__name__}:Transport"
        kombu.transport._transport_cache.pop(alias, None)  # nothing resolved with the old entry
