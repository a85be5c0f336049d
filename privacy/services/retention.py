"""Retention: per workspace that sets `retention_days`, what is older than that many days is deleted,
from a periodic task. Conversations silent since then go whole (turns and their audits, messages,
handoffs, feedback, security events, session documents); in conversations still in use, the turns
and messages older than that; rag_search audits and security events older than that.

The analytics keep their counts: the rollups are brought up to date first, the cut falls on the
start of a day (so a day's turns go all together and a later recount never finds half a day), and a
day without turns keeps its rollups (insights.services.rollups)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from conversations.models import Conversation, RagSearchExecution, SecurityEvent, Turn
from core.models import Workspace
from handoff.models import Message
from insights.services.rollups import turn_rollups_refresh
from rag.models import Document
from rag.services import document_delete

BATCH = 500


@dataclass(frozen=True)
class RetentionApplied:
    workspaces: int
    conversations: int
    turns: int
    messages: int
    searches: int
    security_events: int


def retention_cutoff(*, days: int, now: datetime | None = None) -> datetime:
    """The start of the day (in the project's time zone) `days` days before now: older goes."""
    local = timezone.localtime(now or timezone.now())
    return (local - timedelta(days=days)).replace(hour=0, minute=0, second=0, microsecond=0)


def retention_apply(*, now: datetime | None = None) -> RetentionApplied:
    """Apply every workspace's retention; returns what was deleted."""
    workspaces = [
        (workspace_id, days)
        for workspace_id, days in Workspace.objects.filter(
            retention_days__isnull=False
        ).values_list("pk", "retention_days")
        if days
    ]
    if not workspaces:
        return RetentionApplied(
            workspaces=0, conversations=0, turns=0, messages=0, searches=0, security_events=0
        )
    turn_rollups_refresh()  # every turn about to go is counted first
    totals = [0, 0, 0, 0, 0]
    for workspace_id, days in workspaces:
        done = workspace_retention_apply(
            workspace_id=workspace_id, cutoff=retention_cutoff(days=days, now=now)
        )
        totals = [total + part for total, part in zip(totals, done, strict=True)]
    conversations, turns, messages, searches, security_events = totals
    return RetentionApplied(
        workspaces=len(workspaces),
        conversations=conversations,
        turns=turns,
        messages=messages,
        searches=searches,
        security_events=security_events,
    )


def workspace_retention_apply(
    *, workspace_id: uuid.UUID, cutoff: datetime
) -> tuple[int, int, int, int, int]:
    """(conversations, turns, messages, searches, security events) deleted in the workspace."""
    recent_turns = Turn.objects.filter(conversation=OuterRef("pk"), created_at__gte=cutoff)
    recent_messages = Message.objects.filter(conversation=OuterRef("pk"), created_at__gte=cutoff)
    silent = Conversation.objects.filter(
        bot__workspace_id=workspace_id, created_at__lt=cutoff
    ).exclude(Exists(recent_turns) | Exists(recent_messages))
    conversations = 0
    while ids := list(silent.values_list("pk", flat=True)[:BATCH]):
        # Session documents go through rag's delete (their files too), before their conversation.
        for document_id in Document.objects.filter(conversation_id__in=ids).values_list(
            "pk", flat=True
        ):
            document_delete(document_id=document_id)
        with transaction.atomic():
            conversations += (
                Conversation.objects.filter(pk__in=ids).delete()[1].get(Conversation._meta.label, 0)
            )
    in_use = {"conversation__bot__workspace_id": workspace_id, "created_at__lt": cutoff}
    turns = Turn.objects.filter(**in_use).delete()[1].get(Turn._meta.label, 0)
    messages = Message.objects.filter(**in_use).delete()[0]
    searches = RagSearchExecution.objects.filter(
        workspace_id=workspace_id, created_at__lt=cutoff
    ).delete()[0]
    events = SecurityEvent.objects.filter(**in_use).delete()[0]
    return conversations, turns, messages, searches, events
