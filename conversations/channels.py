"""A conversation's channel, seen from below the apps that serve it.

Conversations that came through a connector (Slack, e-mail) read what the handoff app writes for the
visitor (agents' replies, owner moves, the bot's answers to what an agent left unanswered) on their
platform. The `connectors` app sits above `handoff`, so `handoff` cannot call it: it asks for the
relay by the task's name (as stream runners are named by their path), and the connector's task reads
what is new back from the database, so a relay asked twice, or late, sends each thing once.
"""

from __future__ import annotations

from typing import Any

from celery import current_app
from django.db import transaction

from conversations.models import Conversation

CONNECTOR_CHANNELS = frozenset(
    set(Conversation.Channel) - {Conversation.Channel.WIDGET, Conversation.Channel.API}
)
RELAY_TASK = "connectors.conversation_relay"


def channel_relay_on_commit(*, conversation: Any) -> None:
    """After the current transaction commits, have the conversation's connector send what is new;
    nothing for the widget's and the API's conversations (they read the live events)."""
    if conversation.channel not in CONNECTOR_CHANNELS:
        return
    conversation_id = str(conversation.pk)
    transaction.on_commit(lambda: current_app.send_task(RELAY_TASK, args=[conversation_id]))
