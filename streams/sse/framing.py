"""SSE wire format: event ids, heartbeats, and the ``<event>_delta_sse`` split of oversized payloads.

An event whose ``data`` (compact JSON, UTF-8) fits in ``API_SSE_MAX_EVENT_BYTES`` goes out whole::

    id: 1764480000000-0
    event: tool_update
    data: {"phase":"SEARCH_PREPARATION","status":"started"}

A larger one is cut into consecutive pieces named ``<event>_delta_sse``; each piece's data is
``{"seq": n, "total": N, "chunk": "..."}`` (never over the limit itself) and its id is the
event's id plus ``.n``. The client buffers pieces of one event, concatenates ``chunk`` in
``seq`` order once ``seq == total - 1`` arrived, and JSON-parses the result: it is exactly
the ``data`` the whole event would have carried::

    id: 1764480000000-1.0
    event: tool_end_delta_sse
    data: {"seq":0,"total":3,"chunk":"{\\"response\\":\\"Selon le ..."}

Pieces of one event are never interleaved with other events. Reconnecting with
``Last-Event-ID: 1764480000000-1.0`` resumes at piece 1 of that event; a plain id resumes
after that event.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

DELTA_SUFFIX = "_delta_sse"
# A comment line with no blank line after it: parsers skip it and nothing is dispatched (some
# clients, httpx-sse among them, would report an empty event for a blank line after an id).
HEARTBEAT = ": heartbeat\n"
# '{"seq":,"total":,"chunk":""}' is 28 bytes; 40 more cover two numbers of up to 20 digits.
_PIECE_OVERHEAD = 68
_EVENT_ID = re.compile(r"^(?P<entry>\d{1,20}-\d{1,20})(?:\.(?P<seq>\d{1,9}))?$")
_TWO_BYTE_ESCAPES = frozenset('"\\\n\r\t\b\f')


@dataclass(frozen=True)
class SseFrame:
    id: str
    event: str
    data: str

    def encode(self) -> str:
        return f"id: {self.id}\nevent: {self.event}\ndata: {self.data}\n\n"


@dataclass(frozen=True)
class EventCursor:
    """Where a client stands: after a whole buffered entry, or after piece ``seq`` of it."""

    entry_id: str
    seq: int | None = None


def event_cursor_parse(value: str) -> EventCursor:
    match = _EVENT_ID.match(value.strip())
    if match is None:
        raise ValueError(f"{value!r} is not an event id of this stream")
    seq = match.group("seq")
    return EventCursor(entry_id=match.group("entry"), seq=int(seq) if seq is not None else None)


def frames_for_entry(*, entry_id: str, event: str, data: str, max_bytes: int) -> list[SseFrame]:
    """One buffered event as SSE frames: whole when it fits, else numbered ``_delta_sse`` pieces."""
    if len(data.encode("utf-8", "surrogatepass")) <= max_bytes:
        return [SseFrame(id=entry_id, event=event, data=data)]
    chunks = _split(data, budget=max_bytes - _PIECE_OVERHEAD)
    total = len(chunks)
    return [
        SseFrame(
            id=f"{entry_id}.{seq}",
            event=f"{event}{DELTA_SUFFIX}",
            data=json.dumps(
                {"seq": seq, "total": total, "chunk": chunk},
                ensure_ascii=False,
                separators=(",", ":"),
            ),
        )
        for seq, chunk in enumerate(chunks)
    ]


def _escaped_size(char: str) -> int:
    """Bytes ``char`` takes inside a JSON string written by json.dumps(ensure_ascii=False)."""
    if char in _TWO_BYTE_ESCAPES:
        return 2
    if char < " ":
        return 6
    return len(char.encode("utf-8", "surrogatepass"))


def _split(data: str, *, budget: int) -> list[str]:
    chunks: list[str] = []
    start = 0
    used = 0
    for index, char in enumerate(data):
        size = _escaped_size(char)
        if used + size > budget:
            chunks.append(data[start:index])
            start, used = index, 0
        used += size
    chunks.append(data[start:])
    return chunks
