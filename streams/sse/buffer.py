"""The producer side of a stream: a per-stream Redis Stream buffer with a TTL, written by any process.

Producers append with ``stream_publish`` (a streamed answer through ``streams.sse.producer``); web
processes read the same buffer with XREAD BLOCK (``streams.sse.response``), so they keep no state and a client
can reconnect to any of them. Each buffer entry holds the event name and its JSON data.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from django.conf import settings

from streams.redis_gateway import redis_sync
from streams.sse.events import EventType, Phase, PhaseStatus, tool_update_data

CLOSE_MARKER = "__close__"
_EVENT_NAME = re.compile(r"^[a-z][a-z_]{0,39}$")
_STREAM_ID = re.compile(r"^[0-9a-f]{32}$")


class _Visitor(Protocol):
    @property
    def visitor_id(self) -> str: ...


class StreamCaller(Protocol):
    """Who opens a stream, as the API's Principal describes its caller (the API sits above)."""

    @property
    def workspace_id(self) -> uuid.UUID | str: ...

    @property
    def bot_id(self) -> uuid.UUID | None: ...

    @property
    def visitor(self) -> _Visitor | None: ...

    @property
    def external_user_id(self) -> str | None: ...


@dataclass(frozen=True)
class StreamOwner:
    """Who may read a stream: the workspace, and when set the bot, conversation and visitor."""

    workspace_id: str
    bot_id: str | None = None
    conversation_id: str | None = None
    visitor_id: str | None = None
    external_user_id: str | None = None

    @classmethod
    def for_principal(
        cls,
        principal: StreamCaller,
        *,
        bot_id: uuid.UUID | None = None,
        conversation_id: uuid.UUID | None = None,
    ) -> StreamOwner:
        bot = bot_id or principal.bot_id
        return cls(
            workspace_id=str(principal.workspace_id),
            bot_id=str(bot) if bot else None,
            conversation_id=str(conversation_id) if conversation_id else None,
            visitor_id=principal.visitor.visitor_id if principal.visitor else None,
            external_user_id=principal.external_user_id,
        )


def stream_key(stream_id: str) -> str:
    return f"parley:sse:{stream_id}"


def stream_owner_key(stream_id: str) -> str:
    return f"parley:sse:{stream_id}:owner"


def stream_written_key(stream_id: str) -> str:
    """A hash of producer nonce -> the sequence number of its last event appended (no text)."""
    return f"parley:sse:{stream_id}:written"


def stream_id_valid(stream_id: str) -> bool:
    return bool(_STREAM_ID.match(stream_id))


def stream_open(*, owner: StreamOwner, stream_id: str | None = None, announce: bool = False) -> str:
    """Creates the stream's owner record; with ``announce``, its first event too (SEARCH_PREPARATION started).

    A streamed endpoint announces from the web process, so the client's first event does not wait
    for a worker to pick the task up. Without it the buffer appears with the first event.
    """
    stream_id = stream_id or uuid.uuid4().hex
    if not stream_id_valid(stream_id):
        raise ValueError(f"{stream_id!r} is not a stream id (32 lowercase hex digits)")
    ttl = settings.API_SSE_STREAM_TTL_SECONDS
    created = redis_sync().set(
        stream_owner_key(stream_id), json.dumps(asdict(owner)), ex=ttl, nx=True
    )
    if not created:
        raise ValueError(f"stream {stream_id} already exists")
    if announce:
        stream_announce(stream_id=stream_id)
    return stream_id


def stream_announce(*, stream_id: str) -> str:
    """The first event of a streamed answer, sent by the web process: SEARCH_PREPARATION started."""
    data = tool_update_data(phase=Phase.SEARCH_PREPARATION, status=PhaseStatus.STARTED)
    return stream_publish(stream_id=stream_id, event=EventType.TOOL_UPDATE, data=data)


def stream_publish(*, stream_id: str, event: str, data: dict[str, Any]) -> str:
    """Appends one event and renews the TTLs; returns its id (the Redis entry id, which is also its SSE id)."""
    return _append(stream_id, event_fields(event=event, data=data))


def stream_close(*, stream_id: str) -> str:
    """Marks the end: readers finish their response after the events before it."""
    return _append(stream_id, event_fields(event=CLOSE_MARKER, data={}, allow_marker=True))


def event_fields(*, event: str, data: dict[str, Any], allow_marker: bool = False) -> dict[Any, Any]:
    """A buffer entry: the event name and its compact JSON data (typed as redis-py's XADD takes them)."""
    if not (allow_marker and event == CLOSE_MARKER) and (
        not _EVENT_NAME.match(event) or event.endswith("_delta_sse")
    ):
        raise ValueError(f"{event!r} is not a publishable event name")
    return {"e": str(event), "d": json.dumps(data, ensure_ascii=False, separators=(",", ":"))}


def _append(stream_id: str, fields: dict[Any, Any]) -> str:
    ttl = settings.API_SSE_STREAM_TTL_SECONDS
    key = stream_key(stream_id)
    pipe = redis_sync().pipeline(transaction=False)
    pipe.xadd(key, fields)
    pipe.expire(key, ttl)
    pipe.expire(stream_owner_key(stream_id), ttl)
    entry_id, _, _ = pipe.execute()
    return str(entry_id)


def stream_owner_get(*, stream_id: str) -> StreamOwner | None:
    if not stream_id_valid(stream_id):
        return None
    raw = redis_sync().get(stream_owner_key(stream_id))
    return StreamOwner(**json.loads(raw)) if raw else None
