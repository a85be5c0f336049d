"""The owner moves every handoff is made of.

Every move is one conditional UPDATE on ``Conversation.owner`` (the row lock makes concurrent
moves serialize; the loser updates nothing) plus one ``OwnerEvent``, in the transaction that writes
what the move implies (the ``Handoff`` row); live events and the timeout go out after the commit.
The moves themselves are grouped by the owner they take the conversation from: the bot's hand-over and
the wait's timeout (`handover`), an agent's claim, return and resolution (`agent_moves`).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.utils import timezone

from conversations.channels import channel_relay_on_commit
from conversations.models import Conversation
from core.errors import ErrorKind, ParleyError
from handoff.live import conversation_channel, queue_channel
from handoff.models import OwnerEvent
from handoff.names import agent_display_name
from streams.live import live_publish_on_commit

Owner = Conversation.Owner
MUTED_OWNERS = frozenset({Owner.WAITING_AGENT, Owner.AGENT})


class HandoffError(ParleyError):
    """A move that the conversation's current state does not allow; ``code`` is stable."""

    kind = ErrorKind.CONFLICT

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


def conversation_get(*, conversation_id: uuid.UUID) -> Conversation:
    """The conversation every move starts from, with its bot (for names, the locale, the policy) and the
    bot's workspace (for its privacy settings: stored text redacted or not)."""
    return Conversation.objects.select_related("bot__workspace").get(pk=conversation_id)


def owner_move(
    *,
    conversation: Conversation,
    from_owners: set[str],
    to_owner: str,
    actor: str,
    agent: Any = None,
    reason: str = "",
) -> str | None:
    """The conditional UPDATE; returns the previous owner when this call made the move, else None."""
    previous = (
        Conversation.objects.select_for_update()
        .filter(pk=conversation.pk, owner__in=from_owners)
        .values_list("owner", flat=True)
        .first()
    )
    if previous is None:
        return None
    Conversation.objects.filter(pk=conversation.pk, owner=previous).update(
        owner=to_owner, updated_at=timezone.now()
    )
    OwnerEvent.objects.create(
        conversation=conversation,
        from_owner=previous,
        to_owner=to_owner,
        actor=actor,
        agent=agent,
        reason=reason,
    )
    conversation.owner = to_owner
    channel_relay_on_commit(conversation=conversation)  # the handoff notice, on a platform
    live_publish_on_commit(
        channel=conversation_channel(conversation=conversation),
        event="owner_changed",
        data={
            "owner": to_owner,
            "previous": previous,
            "reason": reason,
            "agent": agent_display_name(agent, locale=conversation.bot.locale),
        },
    )
    return previous


def queue_changed(conversation: Conversation, change: str) -> None:
    """The agents' queue of the workspace learns of a change (after the commit)."""
    live_publish_on_commit(
        channel=queue_channel(workspace_id=conversation.bot.workspace_id),
        event="queue_changed",
        data={"conversation_id": str(conversation.pk), "change": change},
    )
