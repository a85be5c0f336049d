"""A widget visitor's "Forget me": the erasure of the conversations their browser proves it holds,
each by the session token it reads that conversation's history with. The widget's visitor id only
names the record: sending someone's visitor id proves nothing, so it reaches nothing."""

from __future__ import annotations

import uuid

from conversations.models import Conversation
from privacy.models import VisitorErasure
from privacy.subjects import VISITOR, VisitorNotFound, VisitorSubject


def visitor_forget_request(
    *,
    workspace_id: uuid.UUID,
    conversation_ids: list[uuid.UUID],
    widget_visitor_id: str,
    requested_by: str,
) -> VisitorErasure:
    """Record the erasure of exactly these conversations (the caller proved each one); carried out by
    `visitor_erasure_execute`. VisitorNotFound when none of them is left."""
    found = list(
        Conversation.objects.filter(pk__in=conversation_ids, bot__workspace_id=workspace_id)
        .order_by("created_at")
        .values_list("pk", flat=True)
    )
    if not found:
        raise VisitorNotFound("no such conversation")
    subject = VisitorSubject(
        workspace_id=workspace_id, kind=VISITOR, value=widget_visitor_id or str(found[0])
    )
    return VisitorErasure.objects.create(
        workspace_id=workspace_id,
        subject_kind=subject.kind,
        subject=subject.value,
        subject_digest=subject.digest,
        conversation_ids=found,
        requested_by=requested_by[:80],
    )
