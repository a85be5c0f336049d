"""One SSE response that relays several streams at once (an agent's queues, one per workspace).

Each event's id is a cursor over all of them: ``<stream id>:<entry id>`` pairs joined by commas, so a
reconnect with ``Last-Event-ID`` resumes every stream where the client stood. A stream the cursor
does not name (a fresh connection, or a workspace the agent just joined) starts at its current end,
fixed before the response sends a byte: a client that loads its state once the stream is open misses
nothing. An event split into ``_delta_sse`` pieces carries the cursor from before it on every piece
but the last, so a client cut in the middle of it receives the whole event again, from piece 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence

from django.conf import settings
from django.http import StreamingHttpResponse

from streams.redis_gateway import redis_async, redis_sync, stream_read
from streams.sse.buffer import CLOSE_MARKER, stream_key, stream_owner_key
from streams.sse.errors import STREAM_EXPIRED_BODY
from streams.sse.events import EventType
from streams.sse.framing import HEARTBEAT, SseFrame, frames_for_entry
from streams.sse.response import database_connections_release

_BATCH = 100
_ENTRY_ID = re.compile(r"^\d{1,20}-\d{1,20}$")
_START = "0-0"


def merged_cursor_parse(value: str | None, *, stream_ids: Sequence[str]) -> dict[str, str]:
    """The positions a ``Last-Event-ID`` names for these streams; anything else in it is ignored."""
    wanted = set(stream_ids)
    positions: dict[str, str] = {}
    for item in (value or "").split(","):
        stream_id, _, entry_id = item.strip().partition(":")
        if stream_id in wanted and _ENTRY_ID.match(entry_id):
            positions[stream_id] = entry_id
    return positions


def merged_cursor(positions: dict[str, str]) -> str:
    return ",".join(f"{stream_id}:{entry_id}" for stream_id, entry_id in sorted(positions.items()))


def stream_end_id(*, stream_id: str) -> str:
    """The id of the stream's last entry ("0-0" when it has none): reading after it gives new events only."""
    last = redis_sync().xrevrange(stream_key(stream_id), count=1)
    return str(last[0][0]) if last else _START


def sse_merged_response(
    *, stream_ids: Sequence[str], last_event_id: str | None
) -> StreamingHttpResponse:
    """The response for streams the caller was already allowed to read."""
    positions = merged_cursor_parse(last_event_id, stream_ids=stream_ids)
    for stream_id in stream_ids:
        if stream_id not in positions:
            positions[stream_id] = stream_end_id(stream_id=stream_id)
    database_connections_release()
    response = StreamingHttpResponse(
        merged_events(positions=positions), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


async def merged_events(*, positions: dict[str, str]) -> AsyncIterator[str]:
    max_bytes = settings.API_SSE_MAX_EVENT_BYTES
    block_ms = max(1, int(settings.API_SSE_HEARTBEAT_SECONDS * 1000))
    streams = {stream_key(stream_id): stream_id for stream_id in positions}
    client = (
        redis_async()
    )  # shared by the process's relays: closing it would cut every other open stream
    yield ": connected\n"
    while positions:
        keys = {stream_key(stream_id): entry_id for stream_id, entry_id in positions.items()}
        batch = await stream_read(client, positions=keys, count=_BATCH, block=block_ms)
        if not batch:
            if await client.exists(*(stream_owner_key(stream_id) for stream_id in positions)) < len(
                positions
            ):
                yield _expired(merged_cursor(positions))
                return
            yield HEARTBEAT
            continue
        for key, entries in batch:
            stream_id = streams[key]
            for entry_id, fields in entries:
                before = merged_cursor(positions)
                positions[stream_id] = entry_id
                if fields["e"] == CLOSE_MARKER:
                    del positions[stream_id]
                    break
                after = merged_cursor(positions)
                frames = frames_for_entry(
                    entry_id=entry_id, event=fields["e"], data=fields["d"], max_bytes=max_bytes
                )
                for index, frame in enumerate(frames):
                    cursor = after if index == len(frames) - 1 else before
                    yield SseFrame(id=cursor, event=frame.event, data=frame.data).encode()


def _expired(cursor: str) -> str:
    data = json.dumps(STREAM_EXPIRED_BODY, separators=(",", ":"))
    return SseFrame(id=cursor, event=EventType.ERROR, data=data).encode()
