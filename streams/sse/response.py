"""The consumer side: an ASGI streaming response that relays one stream's buffer as SSE.

It reads with ``redis.asyncio`` XREAD BLOCK, so the process serving a client holds no
state: any web process can serve a reconnect with ``Last-Event-ID``. While the buffer is
idle it sends a heartbeat comment every ``API_SSE_HEARTBEAT_SECONDS``.

A new stream's response may carry ``on_first_event`` (queueing the stream's run, see
``streams.runners``): it runs once the first events are on their way to the client, so neither the
broker nor the worker delays them. When it fails, the stream ends with an ``error`` event; when the
client leaves before, it still runs, so a reconnect finds the answer.

While its stream is quiet, a relay checks the stream's runner about four times per lease
(``streams.sse.supervision``): a run that never started is queued again, one whose worker died ends
with a ``stream_interrupted`` error. Heartbeats still leave every ``API_SSE_HEARTBEAT_SECONDS``.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator, Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, StreamingHttpResponse
from rest_framework.renderers import BaseRenderer

from streams.redis_gateway import redis_async, stream_range, stream_read
from streams.sse.buffer import (
    CLOSE_MARKER,
    stream_close,
    stream_key,
    stream_owner_key,
    stream_publish,
)
from streams.sse.errors import INTERNAL_ERROR_BODY, STREAM_EXPIRED_BODY, StreamError
from streams.sse.events import EventType
from streams.sse.framing import (
    HEARTBEAT,
    EventCursor,
    SseFrame,
    event_cursor_parse,
    frames_for_entry,
)

_BATCH = 100
logger = logging.getLogger(__name__)


class EventStreamRenderer(BaseRenderer):
    """Lets DRF views accept ``Accept: text/event-stream``; errors still leave as JSON."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return json.dumps(data).encode()


def wants_event_stream(request: HttpRequest, *, stream_flag: bool = False) -> bool:
    """A request asks for SSE with ``"stream": true`` or by accepting only ``text/event-stream``."""
    accept = request.headers.get("Accept", "")
    return stream_flag or ("text/event-stream" in accept and "application/json" not in accept)


def sse_response(
    *, stream_id: str, last_event_id: str | None, on_first_event: Callable[[], None] | None = None
) -> StreamingHttpResponse:
    """The response for a stream the caller was already allowed to read (see api.access)."""
    cursor = None
    if last_event_id:
        try:
            cursor = event_cursor_parse(last_event_id)
        except ValueError:
            raise StreamError("Last-Event-ID is not an event id of this stream.") from None
    database_connections_release()
    events = sse_events(stream_id=stream_id, cursor=cursor, on_first_event=on_first_event)
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["X-Parley-Stream-Id"] = (
        stream_id  # where to reconnect: GET /api/v1/streams/<id>/events
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies must not hold events back
    return response


def database_connections_release() -> None:
    """Close this thread's idle database connections before a stream starts relaying.

    Django releases a request's connection only when the response finishes, which for a stream
    is when it ends: 128 open streams would hold 128 connections (PostgreSQL refuses past
    max_connections). The relay itself reads only Redis. A connection inside a transaction is
    left alone.
    """
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


async def sse_events(
    *, stream_id: str, cursor: EventCursor | None, on_first_event: Callable[[], None] | None = None
) -> AsyncIterator[str]:
    key = stream_key(stream_id)
    max_bytes = settings.API_SSE_MAX_EVENT_BYTES
    heartbeat = settings.API_SSE_HEARTBEAT_SECONDS
    # Quiet reads short enough to check the runner within a quarter of its lease; a heartbeat every
    # `checks` quiet reads, so it still leaves after API_SSE_HEARTBEAT_SECONDS of silence.
    checks = max(1, math.ceil(heartbeat / (settings.API_SSE_RUNNER_LEASE_SECONDS / 4)))
    block_ms = max(1, int(heartbeat / checks * 1000))
    quiet = 0
    client = redis_async()  # shared by the process's relays: not closed here
    pending = on_first_event
    try:
        yield ": connected\n"  # flushes the headers at once
        position = cursor.entry_id if cursor else "0-0"
        if cursor is not None and cursor.seq is not None:
            for entry_id, fields in await stream_range(client, key=key, entry_id=position):
                frames = frames_for_entry(
                    entry_id=entry_id, event=fields["e"], data=fields["d"], max_bytes=max_bytes
                )
                for frame in frames[cursor.seq + 1 :] if len(frames) > 1 else []:
                    yield frame.encode()
        while True:
            batch = await stream_read(
                client, positions={key: position}, count=_BATCH, block=block_ms
            )
            if not batch:
                if not await client.exists(stream_owner_key(stream_id)):
                    yield _expired(position)
                    return
                if pending is None:  # its run was queued (by this relay or another process)
                    await sync_to_async(_runner_check, thread_sensitive=False)(stream_id)
                quiet += 1
                if quiet % checks == 0:
                    yield HEARTBEAT
                continue
            quiet = 0
            # The entries of one read leave in one chunk: one ASGI send, one socket write (a
            # producer's batch, e.g. the last text, tool_end and the close, arrives in one read).
            frames, closed = [], False
            for entry_id, fields in batch[0][1]:
                position = entry_id
                if fields["e"] == CLOSE_MARKER:
                    closed = True
                    break
                frames += frames_for_entry(
                    entry_id=entry_id, event=fields["e"], data=fields["d"], max_bytes=max_bytes
                )
            if frames:
                yield "".join(frame.encode() for frame in frames)
            if closed:
                return
            if pending is not None:  # the first events are on their way: start the run
                start, pending = pending, None
                await sync_to_async(_run_started, thread_sensitive=False)(stream_id, start)
    finally:
        if pending is not None:  # the client left before its first event: the run still starts
            _run_started(stream_id, pending)


def _run_started(stream_id: str, start: Callable[[], None]) -> None:
    """Start a stream's run; if that fails (the broker is unreachable), end the stream with an error event."""
    try:
        start()
    except Exception:
        logger.exception("the run of stream %s could not be started", stream_id)
        try:
            stream_publish(
                stream_id=stream_id,
                event=EventType.ERROR,
                data=INTERNAL_ERROR_BODY,
            )
            stream_close(stream_id=stream_id)
        except (
            Exception
        ):  # Redis is gone too: the relay's heartbeat finds the stream expired in the end
            logger.exception("stream %s could not be closed", stream_id)


def _runner_check(stream_id: str) -> None:
    """Re-queue a run that never started; a run given up on has its error event in the stream already."""
    from streams.queue import stream_run_enqueue
    from streams.sse.supervision import stream_run_supervise

    try:
        found = stream_run_supervise(stream_id=stream_id)
        if found.outcome == "requeue":
            logger.warning("stream %s: its runner never started; queued again", stream_id)
            stream_run_enqueue(stream_id=stream_id, runner=found.runner, kwargs=found.kwargs or {})
    except Exception:  # Valkey or the broker unreachable: the next quiet read checks again
        logger.warning("stream %s: its runner could not be checked", stream_id, exc_info=True)


def _expired(position: str) -> str:
    data = json.dumps(STREAM_EXPIRED_BODY, separators=(",", ":"))
    return SseFrame(id=position, event=EventType.ERROR, data=data).encode()
