"""Live events of a handoff, without importing the API app that owns the streams.

Two kinds of channel: one per conversation (what the widget and the agent watching it read)
and one per workspace (the agents' queue). The API app registers the sink that writes them to
Redis Streams when it loads (``api.apps``), so this app stays below ``api``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.db import transaction

from core.errors import ParleyError
from streams.live import LiveChannel

LiveSink = Callable[[LiveChannel, str, dict[str, Any]], str]
_sinks: list[LiveSink] = []


class LiveSinkMissing(ParleyError):
    code = "live_sink_missing"


def live_sink_set(sink: LiveSink) -> None:
    _sinks[:] = [sink]


def conversation_channel(*, conversation: Any) -> LiveChannel:
    return LiveChannel(
        workspace_id=str(conversation.bot.workspace_id),
        stream_id=uuid.UUID(str(conversation.pk)).hex,
        bot_id=str(conversation.bot_id),
        conversation_id=str(conversation.pk),
        visitor_id=conversation.visitor_id or None,
        external_user_id=conversation.external_user_id or None,
    )


def queue_channel(*, workspace_id: Any) -> LiveChannel:
    stream_id = uuid.uuid5(uuid.NAMESPACE_URL, f"parley:agent-queue:{workspace_id}").hex
    return LiveChannel(workspace_id=str(workspace_id), stream_id=stream_id)


def live_publish(*, channel: LiveChannel, event: str, data: dict[str, Any]) -> str:
    """Publishes now; returns the event id."""
    if not _sinks:
        raise LiveSinkMissing("no live sink registered (is the api app installed?)")
    return _sinks[0](channel, event, data)


def live_publish_on_commit(*, channel: LiveChannel, event: str, data: dict[str, Any]) -> None:
    """Publishes once the current transaction commits, so nobody sees an event for a rolled-back write."""
    transaction.on_commit(lambda: live_publish(channel=channel, event=event, data=data))
