"""The live channels of a handoff: one per conversation (what the widget and the agent watching it
read) and one per workspace (the agents' queue). Events go out through ``streams.live``, below."""

from __future__ import annotations

import uuid
from typing import Any

from streams.live import LiveChannel


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
