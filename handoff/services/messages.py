"""A handoff's messages: stored (redacted where the workspace asks), relayed live, and the typing signal."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from conversations.channels import channel_relay_on_commit
from conversations.models import Conversation
from core.redaction import pii_redact
from handoff.live import conversation_channel
from handoff.models import Message
from handoff.names import agent_display_name
from streams.live import live_publish, live_publish_on_commit


def message_data(message: Message) -> dict[str, Any]:
    """A message as visitors and agents read it; an agent's ``author`` is the display name."""
    return {
        "id": str(message.id),
        "role": message.role,
        "text": message.text,
        "created_at": message.created_at.isoformat(),
        "author": agent_display_name(message.author, locale=message.conversation.bot.locale),
    }


def message_create(
    *,
    conversation: Conversation,
    role: str,
    text: str,
    author: Any = None,
    client_message_id: str = "",
) -> Message:
    """A message of `role` stored and published; a repeated `client_message_id` returns the first one."""
    redact = conversation.bot.workspace.redact_personal_data
    try:
        with transaction.atomic():
            message = Message.objects.create(
                conversation=conversation,
                role=role,
                text=pii_redact(text) if redact else text,
                author=author,
                client_message_id=client_message_id,
            )
        # The row keeps the redacted text; the live event and the sender's answer carry the message
        # as it was written (redaction never changes what the conversation shows while it happens).
        message.text = text
    except IntegrityError:
        if not client_message_id:
            raise
        existing = Message.objects.select_related("author__agent_profile").get(
            conversation=conversation, client_message_id=client_message_id
        )
        existing.conversation = conversation
        return existing
    if role != Message.Role.VISITOR:  # an agent's reply or a system notice, on a platform
        channel_relay_on_commit(conversation=conversation)
    live_publish_on_commit(
        channel=conversation_channel(conversation=conversation),
        event=f"{role}_message",
        data=message_data(message),
    )
    return message


def typing_signal(*, conversation: Conversation, who: str) -> None:
    """Ephemeral: not stored, only relayed (``agent_typing`` to the widget, ``visitor_typing`` to the agent)."""
    if who not in {"agent", "visitor"}:
        raise ValueError(who)
    live_publish(
        channel=conversation_channel(conversation=conversation), event=f"{who}_typing", data={}
    )
