"""Who watches a stream's runner: the run record written with the stream, the lease its runner holds
while it runs, and the check a relay makes while its stream is quiet (docs/decisions/stream-runner-lease.md).

- ``stream_run_record``: written before the stream's first event, it names the runner, its kwargs and
  the time by which it must start (an outbox entry in Valkey, beside the stream it belongs to).
- ``stream_run_claimed``: the worker's task claims the run's lease before it runs (one claim per run:
  a copy queued again finds it taken and does nothing), renews it from a thread while it runs, and marks
  it done at the end. The claim drops the kwargs: the message text stays in Valkey only until a
  runner has it.
- ``stream_run_supervise``: no lease and past its start time, a run that never started is handed back
  to be queued again (at most ``REQUEUES_MAX`` times); a run whose lease lapsed (its worker died), or
  that never started after those, ends its stream with a ``stream_interrupted`` error event, to which a
  client answers by sending the message again (a turn is idempotent by its client_message_id).
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from streams.redis_gateway import redis_producer, redis_sync
from streams.sse.buffer import CLOSE_MARKER, event_fields, stream_key
from streams.sse.errors import STREAM_INTERRUPTED_BODY
from streams.sse.events import EventType

logger = logging.getLogger(__name__)

# A run that never started is queued again at most this many times before its stream ends in an error.
REQUEUES_MAX = 3
LEASE_DONE = "done"
LEASE_ABANDONED = "abandoned"

# KEYS: lease, run record. ARGV: token, lease ms. The run's kwargs are dropped once a runner has them.
_CLAIM = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 0
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'started', '1')
  redis.call('HDEL', KEYS[2], 'kwargs')
end
return 1
"""
# KEYS: lease. ARGV: token, lease ms. Taken back when it vanished (a Valkey restart without its data).
_RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if not holder then
  return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) and 1 or 0
end
return 0
"""
# KEYS: lease. ARGV: token, TTL seconds. "done" outlives the run, so a late copy never claims it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], 'done', 'EX', ARGV[2])
  return 1
end
return 0
"""
# KEYS: lease, run record, stream. ARGV: lease seconds, TTL seconds, REQUEUES_MAX, the error event's
# data, the close marker. Returns {'ok'}, {'requeue', runner, kwargs} or {'abandoned'}; one relay
# at a time gets a re-queue (the start time moves on with it), and the error is written once.
_SUPERVISE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {'ok'}
end
local run = redis.call('HMGET', KEYS[2], 'runner', 'kwargs', 'start_by', 'started', 'requeues')
if not run[1] then
  return {'ok'}
end
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
if run[4] ~= '1' then
  if now < tonumber(run[3]) then
    return {'ok'}
  end
  if tonumber(run[5] or '0') < tonumber(ARGV[3]) and run[2] then
    redis.call('HSET', KEYS[2], 'start_by', tostring(now + tonumber(ARGV[1])))
    redis.call('HINCRBY', KEYS[2], 'requeues', 1)
    return {'requeue', run[1], run[2]}
  end
end
redis.call('SET', KEYS[1], 'abandoned', 'EX', ARGV[2])
redis.call('XADD', KEYS[3], '*', 'e', 'error', 'd', ARGV[4])
redis.call('XADD', KEYS[3], '*', 'e', ARGV[5], 'd', '{}')
redis.call('EXPIRE', KEYS[3], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return {'abandoned'}
"""


def stream_run_key(stream_id: str) -> str:
    return f"parley:sse:{stream_id}:run"


def stream_lease_key(stream_id: str) -> str:
    return f"parley:sse:{stream_id}:lease"


def stream_run_record(*, stream_id: str, runner: str, kwargs: dict[str, Any]) -> None:
    """The run's record: what to queue again, and by when (Valkey's clock) its runner must start."""
    seconds = settings.API_SSE_RUNNER_LEASE_SECONDS
    client = redis_sync()
    now_seconds, now_micro = client.time()
    record: dict[Any, Any] = {  # redis-py types keys and values as its own unions
        "runner": runner,
        "kwargs": json.dumps(kwargs, ensure_ascii=False, separators=(",", ":")),
        "start_by": repr(now_seconds + now_micro / 1_000_000 + seconds),
        "requeues": 0,
    }
    pipe = client.pipeline(transaction=True)
    pipe.hset(stream_run_key(stream_id), mapping=record)
    pipe.expire(stream_run_key(stream_id), settings.API_SSE_STREAM_TTL_SECONDS)
    pipe.execute()


@dataclass(frozen=True)
class Supervised:
    """What a relay's check found: ``ok``, ``requeue`` (with what to queue) or ``abandoned``."""

    outcome: str
    runner: str = ""
    kwargs: dict[str, Any] | None = None


def stream_run_supervise(*, stream_id: str) -> Supervised:
    """A quiet stream's check (one script, atomic): see the module's docstring."""
    error = event_fields(event=EventType.ERROR, data=STREAM_INTERRUPTED_BODY)
    reply = redis_sync().eval(
        _SUPERVISE,
        3,
        stream_lease_key(stream_id),
        stream_run_key(stream_id),
        stream_key(stream_id),
        settings.API_SSE_RUNNER_LEASE_SECONDS,
        settings.API_SSE_STREAM_TTL_SECONDS,
        REQUEUES_MAX,
        error["d"],
        CLOSE_MARKER,
    )
    outcome = str(reply[0])
    if outcome == "requeue":
        return Supervised(outcome, runner=str(reply[1]), kwargs=json.loads(reply[2]))
    if outcome == LEASE_ABANDONED:
        logger.warning("stream %s: its runner never started or stopped; ended", stream_id)
    return Supervised(outcome)


@contextmanager
def stream_run_claimed(*, stream_id: str) -> Iterator[bool]:
    """Claims the run's lease (False: another copy of the run has it, or it was given up) and keeps it
    while the block runs; marks it done after."""
    lease_ms = int(settings.API_SSE_RUNNER_LEASE_SECONDS * 1000)
    token = uuid.uuid4().hex
    key = stream_lease_key(stream_id)
    client = redis_producer()
    if not client.eval(_CLAIM, 2, key, stream_run_key(stream_id), token, lease_ms):
        yield False
        return
    stop = threading.Event()
    beat = threading.Thread(
        target=_lease_renew,
        args=(stream_id, token, lease_ms, stop),
        name=f"stream-lease-{stream_id[:8]}",
        daemon=True,
    )
    beat.start()
    try:
        yield True
    finally:
        stop.set()
        beat.join()
        client.eval(_RELEASE, 1, key, token, settings.API_SSE_STREAM_TTL_SECONDS)


def _lease_renew(stream_id: str, token: str, lease_ms: int, stop: threading.Event) -> None:
    """Renews the lease three times per its length until the run ends (the worker's process is alive)."""
    key = stream_lease_key(stream_id)
    while not stop.wait(lease_ms / 3000):
        try:
            if not redis_producer().eval(_RENEW, 1, key, token, lease_ms):
                logger.warning("stream %s: its lease was taken over; the run goes on", stream_id)
                return
        except (
            Exception
        ):  # Valkey unreachable past the producer's retries: the next beat tries again
            logger.warning("stream %s: its lease could not be renewed", stream_id, exc_info=True)
