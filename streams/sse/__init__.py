"""Server-Sent Events for chat turns and rag_search: Redis-buffered streams relayed by ASGI responses.

Producers (any process): ``stream_open``, then ``with stream_producing(stream_id=...) as emit:`` (coalesced
partial updates, one round trip per batch; ``streams.sse.producer``), or ``stream_publish`` / ``stream_close``.
Web edge: ``sse_response(stream_id=..., last_event_id=...)``. Wire format: ``streams.sse.framing``.
"""

from streams.sse.buffer import (
    StreamOwner,
    stream_close,
    stream_open,
    stream_owner_get,
    stream_publish,
)
from streams.sse.events import EventType, Phase, PhaseStatus, StreamEmitter, tool_update_data
from streams.sse.framing import DELTA_SUFFIX, frames_for_entry
from streams.sse.producer import StreamWriter, stream_producing
from streams.sse.response import EventStreamRenderer, sse_response, wants_event_stream

__all__ = [
    "DELTA_SUFFIX",
    "EventStreamRenderer",
    "EventType",
    "Phase",
    "PhaseStatus",
    "StreamEmitter",
    "StreamOwner",
    "StreamWriter",
    "frames_for_entry",
    "sse_response",
    "stream_close",
    "stream_open",
    "stream_owner_get",
    "stream_producing",
    "stream_publish",
    "tool_update_data",
    "wants_event_stream",
]
