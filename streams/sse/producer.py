"""How a producer (the Celery task running a streamed answer) writes its stream: few events, few round trips.

``stream_producing`` yields a ``StreamEmitter`` backed by a ``StreamWriter``, which

- coalesces ``tool_partial_update`` events: a delta goes out at once when the previous one is at
  least ``API_SSE_PARTIAL_INTERVAL_MS`` old, otherwise it waits and later deltas (of the same
  ``output_key``) are appended to it. The waiting text leaves before any other event, at the
  close, or when its interval is over (a per-process flusher thread sends it even if no token
  follows), so no text is lost or reordered: the joined contents equal the streamed answer;
- writes each batch (pending text plus the event that flushed it) in one pipelined round trip,
  one idempotent append per event: the buffer's and owner record's TTLs are set by the first
  write of this producer, renewed every half TTL while it lasts and at the close, not on every
  event (``stream_publish`` still renews them on each call, for long-lived streams like the
  handoff's).

The producer's client retries on connection errors (``redis_producer``). A connection cut after
Valkey applied an ``XADD`` but before its reply arrived (a restart, a failover) would make the retry
append the same event twice, and a visitor would read a delta twice. So each event carries the
writer's nonce and sequence number into a small script that appends it only when that writer's
last recorded number is lower: the retry of an applied append is a no-op (found by
tests/faults/test_valkey_restart.py, one run in several).

The web process may already have announced SEARCH_PREPARATION (``stream_open(announce=True)``);
the producer is then told so and the pipeline's own announcement is dropped.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings

from streams.redis_gateway import redis_producer
from streams.sse.buffer import (
    CLOSE_MARKER,
    event_fields,
    stream_key,
    stream_owner_key,
    stream_written_key,
)
from streams.sse.errors import stream_error_body
from streams.sse.events import EventType, StreamEmitter

logger = logging.getLogger(__name__)

# KEYS: the stream, its written-hash. ARGV: nonce, sequence number, TTL, then the entry's fields.
# Sent as EVAL, not EVALSHA: a restarted server has an empty script cache, and the retry must work.
_APPEND_ONCE = """
local last = redis.call('HGET', KEYS[2], ARGV[1])
if last and tonumber(last) >= tonumber(ARGV[2]) then
  return false
end
local entry = redis.call('XADD', KEYS[1], '*', unpack(ARGV, 4))
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return entry
"""


class StreamWriter:
    """One producer's writes to one stream (thread-safe: the flusher thread may send pending text)."""

    def __init__(self, *, stream_id: str, partial_interval: float) -> None:
        self.stream_id = stream_id
        self.partial_interval = partial_interval
        self._lock = threading.Lock()
        self._pending: dict[str, Any] | None = (
            None  # a tool_partial_update waiting for its interval
        )
        self._last_partial = float("-inf")
        self._expiry_renewed = float("-inf")
        self._nonce = uuid.uuid4().hex[:16]
        self._sequence = itertools.count(1)
        self.closed = False

    def emit(self, event: str, data: dict[str, Any]) -> None:
        with self._lock:
            if event != EventType.TOOL_PARTIAL_UPDATE or self.partial_interval <= 0:
                self._write([*self._take_pending(), (event, data)])
                return
            joins = self._pending is not None and self._pending["output_key"] == data["output_key"]
            if joins:
                self._pending["content"] += data["content"]  # type: ignore[index]
            else:
                self._write(self._take_pending())
                self._pending = dict(data)
            if time.monotonic() - self._last_partial >= self.partial_interval:
                self._write(self._take_pending())
            elif not joins:  # a new pending delta: the flusher sends it when its interval is over
                _flusher.schedule(self, at=self._last_partial + self.partial_interval)

    def flush_due(self) -> None:
        """Called by the flusher once a pending delta's interval is over."""
        with self._lock:
            due = time.monotonic() - self._last_partial >= self.partial_interval
            if due and not self.closed and self._pending is not None:
                self._write(self._take_pending())

    def close(self) -> None:
        with self._lock:
            self._write([*self._take_pending(), (CLOSE_MARKER, {})], renew_expiry=True)
            self.closed = True

    def _take_pending(self) -> list[tuple[str, dict[str, Any]]]:
        if self._pending is None:
            return []
        pending, self._pending = self._pending, None
        self._last_partial = time.monotonic()
        return [(EventType.TOOL_PARTIAL_UPDATE, pending)]

    def _write(
        self, batch: list[tuple[str, dict[str, Any]]], *, renew_expiry: bool = False
    ) -> None:
        if not batch:
            return
        key = stream_key(self.stream_id)
        ttl = settings.API_SSE_STREAM_TTL_SECONDS
        appends = []
        for event, data in batch:
            fields = event_fields(event=event, data=data, allow_marker=event == CLOSE_MARKER)
            arguments: list[str | int] = [self._nonce, next(self._sequence), ttl]
            arguments += [str(part) for pair in fields.items() for part in pair]
            appends.append((key, stream_written_key(self.stream_id), *arguments))
        now = time.monotonic()
        renew = (
            renew_expiry or now - self._expiry_renewed > ttl / 2
        )  # the first write, then twice per TTL
        client = redis_producer()
        if len(appends) == 1 and not renew:
            # Most writes are one streamed delta: one command, without a pipeline's bookkeeping (a
            # third of the producer's Redis CPU per event in bench/api's profile). Same retry policy.
            client.eval(_APPEND_ONCE, 2, *appends[0])
            return
        pipe = client.pipeline(transaction=False)
        for append in appends:
            pipe.eval(_APPEND_ONCE, 2, *append)
        if renew:
            pipe.expire(key, ttl)
            pipe.expire(stream_owner_key(self.stream_id), ttl)
            self._expiry_renewed = now
        pipe.execute()


class _Flusher:
    """One daemon thread per process sending pending deltas whose interval is over (a heap of deadlines)."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._due: list[tuple[float, int, StreamWriter]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def schedule(self, writer: StreamWriter, *, at: float) -> None:
        with self._condition:
            heapq.heappush(self._due, (at, next(self._order), writer))
            if self._thread is None or not self._thread.is_alive():  # none yet, or lost in a fork
                self._thread = threading.Thread(
                    target=self._run, name="sse-partial-flusher", daemon=True
                )
                self._thread.start()
            self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._due:
                    self._condition.wait()
                at, _, writer = self._due[0]
                delay = at - time.monotonic()
                if delay > 0:
                    self._condition.wait(delay)
                    continue
                heapq.heappop(self._due)
            try:
                writer.flush_due()
            except (
                Exception
            ):  # Redis unreachable: the producer's own next write fails and reports it
                logger.warning(
                    "could not flush a pending partial update of stream %s",
                    writer.stream_id,
                    exc_info=True,
                )


_flusher = _Flusher()


@contextmanager
def stream_producing(*, stream_id: str, announced: bool = False) -> Iterator[StreamEmitter]:
    """What a producer (a Celery task running the pipeline) wraps its work in.

    It yields an emitter bound to the stream and always closes the stream; an exception first
    becomes an ``error`` event (a ``ParleyError`` keeps its code, message and extra, anything
    else is ``internal_error`` without details), then propagates so the task records it. ``announced``:
    the web process already sent SEARCH_PREPARATION started.
    """
    interval = settings.API_SSE_PARTIAL_INTERVAL_MS / 1000
    writer = StreamWriter(stream_id=stream_id, partial_interval=interval)
    emitter = StreamEmitter(writer.emit, preparation_announced=announced)
    try:
        yield emitter
    except Exception as error:
        emitter.error(**stream_error_body(error))
        raise
    finally:
        writer.close()
