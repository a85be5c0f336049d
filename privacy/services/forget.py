"""Erasures asked from the edges: a widget visitor's "Forget me" (the conversations their browser
proves it holds, each by the session token it reads that conversation's history with; the widget's
visitor id only names the record: sending someone's proves nothing, so it reaches nothing), and the
staff's admin action on conversations (each one's visitor, as a person)."""

from __future__ import annotations

import uuid

from conversations.models import Conversation
from privacy.models import VisitorErasure
from privacy.services.erasure import visitor_erasure_execute, visitor_erasure_request
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


def visitors_erase_by_conversations(
    *, conversation_ids: list[uuid.UUID], requested_by: str
) -> list[VisitorErasure]:
    """Erase the visitor of each conversation, as a person: every conversation of their widget's
    visitor id, else of their external user id, else of their session's visitor id, else the
    conversation alone. The staff's admin action; each visitor once, each erasure carried out now."""
    rows = Conversation.objects.filter(pk__in=conversation_ids).values_list(
        "pk", "bot__workspace_id", "widget_visitor_id", "external_user_id", "visitor_id"
    )
    subjects: dict[tuple[uuid.UUID, str, str], dict[str, str]] = {}
    for pk, workspace_id, widget_visitor, external_user, visitor in rows:
        if widget_visitor or visitor:
            whom = {"visitor_id": widget_visitor or visitor}
        elif external_user:
            whom = {"external_user_id": external_user}
        else:
            whom = {"conversation_id": str(pk)}
        ((kind, value),) = whom.items()
        subjects.setdefault((workspace_id, kind, value), whom)
    erasures = []
    for (workspace_id, _, _), whom in subjects.items():
        try:
            erasure = visitor_erasure_request(
                workspace_id=workspace_id, requested_by=requested_by, **whom
            )
        except VisitorNotFound:  # erased meanwhile by another request
            continue
        erasures.append(visitor_erasure_execute(erasure_id=erasure.pk))
    return erasures
