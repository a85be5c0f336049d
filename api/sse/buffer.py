"""The producer side of a stream: a per-stream Redis Stream buffer with a TTL, written by any process.

The answer pipeline (often in a Celery worker) calls ``stream_publish``; web processes read
the same buffer with XREAD BLOCK (``api.sse.response``), so they keep no state and a client
can reconnect to any of them. Each buffer entry holds the event name and its JSON data.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings

from api.errors import REGISTRY, ApiError, ErrorCode
from api.principal import Principal
from api.redis_gateway import redis_sync
from api.sse.events import StreamEmitter

CLOSE_MARKER = "__close__"
_EVENT_NAME = re.compile(r"^[a-z][a-z_]{0,39}$")
_STREAM_ID = re.compile(r"^[0-9a-f]{32}$")


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
        cls, principal: Principal, *, bot_id: uuid.UUID | None = None, conversation_id: uuid.UUID | None = None
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


def stream_id_valid(stream_id: str) -> bool:
    return bool(_STREAM_ID.match(stream_id))


def stream_open(*, owner: StreamOwner, stream_id: str | None = None) -> str:
    """Creates the stream's owner record (the buffer itself appears with the first event)."""
    stream_id = stream_id or uuid.uuid4().hex
    if not stream_id_valid(stream_id):
        raise ValueError(f"{stream_id!r} is not a stream id (32 lowercase hex digits)")
    ttl = settings.API_SSE_STREAM_TTL_SECONDS
    created = redis_sync().set(stream_owner_key(stream_id), json.dumps(asdict(owner)), ex=ttl, nx=True)
    if not created:
        raise ValueError(f"stream {stream_id} already exists")
    return stream_id


def stream_publish(*, stream_id: str, event: str, data: dict[str, Any]) -> str:
    """Appends one event; returns its id (the Redis entry id, which is also its SSE id)."""
    if not _EVENT_NAME.match(event) or event.endswith("_delta_sse"):
        raise ValueError(f"{event!r} is not a publishable event name")
    return _append(stream_id, {"e": event, "d": json.dumps(data, ensure_ascii=False, separators=(",", ":"))})


def stream_close(*, stream_id: str) -> str:
    """Marks the end: readers finish their response after the events before it."""
    return _append(stream_id, {"e": CLOSE_MARKER, "d": "{}"})


@contextmanager
def stream_producing(*, stream_id: str) -> Iterator[StreamEmitter]:
    """What a producer (a Celery task running the pipeline) wraps its work in.

    It yields an emitter bound to the stream and always closes the stream; an exception first
    becomes an ``error`` event (an ``ApiError`` keeps its code, anything else is
    ``internal_error`` without details), then propagates so the task records it.
    """
    emitter = StreamEmitter(lambda event, data: stream_publish(stream_id=stream_id, event=event, data=data))
    try:
        yield emitter
    except ApiError as error:
        emitter.error(code=str(error.code), message=error.message, extra=error.extra)
        raise
    except Exception:
        emitter.error(code=str(ErrorCode.INTERNAL_ERROR), message=REGISTRY[ErrorCode.INTERNAL_ERROR].message)
        raise
    finally:
        stream_close(stream_id=stream_id)


def _append(stream_id: str, fields: dict[str, str]) -> str:
    ttl = settings.API_SSE_STREAM_TTL_SECONDS
    key = stream_key(stream_id)
    pipe = redis_sync().pipeline(transaction=True)
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
