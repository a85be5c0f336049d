"""Long-lived channels (a conversation's, a workspace's agent queue) on Redis Streams: where an event
goes (`LiveChannel`), and publishing into it; read back with ``sse_response``."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from streams.sse import StreamOwner, stream_open, stream_publish


@dataclass(frozen=True)
class LiveChannel:
    """Where an event goes; ``stream_id`` is stable, so readers can resume with Last-Event-ID."""

    workspace_id: str
    stream_id: str
    bot_id: str | None = None
    conversation_id: str | None = None
    visitor_id: str | None = None
    external_user_id: str | None = None


def live_stream_ensure(*, channel: LiveChannel) -> str:
    """Creates the stream's owner record when missing (or expired); long-lived streams are re-opened on use."""
    owner = StreamOwner(
        workspace_id=channel.workspace_id,
        bot_id=channel.bot_id,
        conversation_id=channel.conversation_id,
        visitor_id=channel.visitor_id,
        external_user_id=channel.external_user_id,
    )
    with contextlib.suppress(ValueError):  # already open: its TTL is refreshed by every publish
        stream_open(owner=owner, stream_id=channel.stream_id)
    return channel.stream_id


def live_publish(*, channel: LiveChannel, event: str, data: dict[str, Any]) -> str:
    """Publishes now (re-opening a long-lived stream that expired); returns the event id."""
    live_stream_ensure(channel=channel)
    return stream_publish(stream_id=channel.stream_id, event=event, data=data)


def live_publish_on_commit(*, channel: LiveChannel, event: str, data: dict[str, Any]) -> None:
    """Publishes once the current transaction commits, so nobody sees an event for a rolled-back write."""
    transaction.on_commit(lambda: live_publish(channel=channel, event=event, data=data))
