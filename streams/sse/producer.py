"""How a producer (the Celery task running a streamed answer) writes its stream: few events, few round trips.

``stream_producing`` yields a ``StreamEmitter`` backed by a ``StreamWriter``, which

- coalesces ``tool_partial_update`` events: a delta goes out at once when the previous one is at
  least ``API_SSE_PARTIAL_INTERVAL_MS`` old (less a twentieth, ``PARTIAL_SLACK``), otherwise it
  waits and later deltas (of the same ``output_key``) are appended to it. The waiting text leaves
  before any other event, at the close, or when its interval is over (a per-process flusher thread
  sends it even if no token follows), so no text is lost or reordered: the joined contents equal
  the streamed answer;
- holds the events that another always follows at once (a phase's ``completed``, followed by the
  next phase's start; ``tool_end``, followed by the close) until that next event, or until one
  partial interval is over (the flusher again), so both leave in one write;
- writes each batch (pending text, held events and the event that flushed them) as one script that
  appends every event in one round trip: the relay, blocked on XREAD, wakes once and reads them all
  (each write costs CPU in the worker and in uvicorn: docs/decisions/answer-path-cpu.md). The buffer's
  and owner record's TTLs are set by the first write of this producer, renewed every half TTL while
  it lasts and at the close, in the same script, not on every event (``stream_publish`` still
  renews them on each call, for long-lived streams like the handoff's).

The producer's client retries on connection errors (``redis_producer``). A connection cut after
Valkey applied an ``XADD`` but before its reply arrived (a restart, a failover) would make the retry
append the same event twice, and a visitor would read a delta twice. So each write carries the
writer's nonce and sequence number into a small script that appends it only when that writer's
last recorded number is lower: the retry of an applied append is a no-op (found by
tests/faults/test_valkey_restart.py, one run in several). A batch is one number and one script,
applied whole or not at all.

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
from streams.sse.events import EventType, PhaseStatus, StreamEmitter

logger = logging.getLogger(__name__)

# KEYS: the stream, its written-hash, its owner record. ARGV: nonce, sequence number, TTL, whether to
# renew the stream's and owner's TTLs ("1"/"0"), then each entry's two fields and values (e, d).
# Sent as EVAL, not EVALSHA: a restarted server has an empty script cache, and the retry must work.
_APPEND_ONCE = """
local last = redis.call('HGET', KEYS[2], ARGV[1])
if last and tonumber(last) >= tonumber(ARGV[2]) then
  return false
end
local entry = false
for i = 5, #ARGV, 4 do
  entry = redis.call('XADD', KEYS[1], '*', ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
if ARGV[4] == '1' then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
return entry
"""


# A delta that comes less than this share of the interval early leaves at once. The LLM's answer is
# read once per LLM_STREAM_READ_INTERVAL_MS (the same 100 ms by default), so each read's delta comes
# about one interval after the last write, as often a fraction of a millisecond before it as after:
# without the slack, every other one would wait for the flusher thread, a wake-up and a write of its own.
PARTIAL_SLACK = 0.05


class StreamWriter:
    """One producer's writes to one stream (thread-safe: the flusher thread may send what waits)."""

    def __init__(self, *, stream_id: str, partial_interval: float) -> None:
        self.stream_id = stream_id
        self.partial_interval = partial_interval
        self._lock = threading.Lock()
        # Events not written yet, in order: held events and partial updates waiting for their
        # interval (a delta joins the last one when it is a partial update of the same output_key).
        self._queue: list[tuple[str, dict[str, Any]]] = []
        self._deadline = float("inf")  # when the queue must leave at the latest
        self._last_partial = float("-inf")
        self._expiry_renewed = float("-inf")
        self._nonce = uuid.uuid4().hex[:16]
        self._sequence = itertools.count(1)
        self.closed = False

    def emit(self, event: str, data: dict[str, Any]) -> None:
        with self._lock:
            if self.partial_interval <= 0:
                self._write([*self._take_queue(), (event, data)])
            elif event == EventType.TOOL_PARTIAL_UPDATE:
                self._partial(data)
            elif _followed_at_once(event, data):
                self._queue.append((event, data))
                self._wait_until(time.monotonic() + self.partial_interval)
            else:
                self._write([*self._take_queue(), (event, data)])

    def _partial(self, data: dict[str, Any]) -> None:
        last = self._queue[-1] if self._queue else None
        if (
            last is not None
            and last[0] == EventType.TOOL_PARTIAL_UPDATE
            and last[1]["output_key"] == data["output_key"]
        ):
            last[1]["content"] += data["content"]
        else:
            self._queue.append((EventType.TOOL_PARTIAL_UPDATE, dict(data)))
        allowed = self._last_partial + self.partial_interval * (1 - PARTIAL_SLACK)
        if time.monotonic() >= allowed:
            self._write(self._take_queue())
        else:  # the flusher sends it when its interval is over
            self._wait_until(allowed)

    def _wait_until(self, deadline: float) -> None:
        if deadline < self._deadline:
            self._deadline = deadline
            _flusher.schedule(self, at=deadline)

    def flush_due(self) -> None:
        """Called by the flusher once a waiting event's time is over."""
        with self._lock:
            if not self.closed and self._queue and time.monotonic() >= self._deadline:
                self._write(self._take_queue())

    def close(self) -> None:
        with self._lock:
            self._write([*self._take_queue(), (CLOSE_MARKER, {})], renew_expiry=True)
            self.closed = True

    def _take_queue(self) -> list[tuple[str, dict[str, Any]]]:
        queue, self._queue, self._deadline = self._queue, [], float("inf")
        if any(event == EventType.TOOL_PARTIAL_UPDATE for event, _ in queue):
            self._last_partial = time.monotonic()
        return queue

    def _write(
        self, batch: list[tuple[str, dict[str, Any]]], *, renew_expiry: bool = False
    ) -> None:
        if not batch:
            return
        ttl = settings.API_SSE_STREAM_TTL_SECONDS
        now = time.monotonic()
        renew = (
            renew_expiry or now - self._expiry_renewed > ttl / 2
        )  # the first write, then twice per TTL
        arguments: list[str | int] = [self._nonce, next(self._sequence), ttl, int(renew)]
        for event, data in batch:
            fields = event_fields(event=event, data=data, allow_marker=event == CLOSE_MARKER)
            arguments += ["e", fields["e"], "d", fields["d"]]
        keys = (
            stream_key(self.stream_id),
            stream_written_key(self.stream_id),
            stream_owner_key(self.stream_id),
        )
        redis_producer().eval(_APPEND_ONCE, len(keys), *keys, *arguments)
        if renew:
            self._expiry_renewed = now


def _followed_at_once(event: str, data: dict[str, Any]) -> bool:
    """A phase's end (the next phase starts at once: retrieval, then compiling) and the result (the
    close follows): held so they leave with what follows them."""
    if event == EventType.TOOL_END:
        return True
    return event == EventType.TOOL_UPDATE and data.get("status") == PhaseStatus.COMPLETED


class _Flusher:
    """One daemon thread per process sending waiting events whose time is over (a heap of deadlines)."""

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
                    "could not flush the waiting events of stream %s",
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
