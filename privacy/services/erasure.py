"""A visitor's erasure: recorded first (a `VisitorErasure` row), then carried out in idempotent steps,
so a run a failure or a killed process cut short is simply run again (the task, and the sweep that
finds unfinished rows) until it is done. The order matters once: the steps that need the visitor's
text to find its copies (gap clusters' examples) run before the turns are emptied.

What goes: private documents (chunks and files), searches, security events, messages. What is
emptied: the turns' text and audit (status, confidence, timings and feedback ratings stay, so the
analytics keep their counts), feedback comments, handoff details, the conversations' visitor ids
(the session's and the widget's) and external user ids. Then the Redis buffers, and the rollups
of the days touched are recomputed; last, Valkey's append-only file and snapshot are rewritten
(privacy.services.valkey_files).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import CharField, F
from django.db.models.functions import Cast
from django.utils import timezone

from conversations.models import Conversation, RagSearchExecution, SecurityEvent, Turn
from core.redaction import pii_redact
from handoff.models import Handoff, Message, TurnFeedback
from insights.models import EvaluationCase, EvaluationResult, FaqCandidate, GapCluster
from insights.services.rollups import turn_rollup_day_compute
from privacy.models import VisitorErasure
from privacy.services.redis_purge import visitor_redis_purge
from privacy.services.valkey_files import valkey_files_rewrite
from privacy.subjects import (
    EXTERNAL_USER,
    VISITOR,
    VisitorNotFound,
    VisitorSubject,
    visitor_subject_get,
)
from rag.models import Document
from rag.services import document_delete

ERASED_LABEL = "[erased]"


@dataclass(frozen=True)
class _Scope:
    subject: VisitorSubject
    conversation_ids: list[uuid.UUID]


def visitor_erasure_request(
    *,
    workspace_id: uuid.UUID | str | None,
    external_user_id: str | None = None,
    conversation_id: uuid.UUID | str | None = None,
    visitor_id: str | None = None,
    requested_by: str = "",
) -> VisitorErasure:
    """Record the erasure of a visitor (not carried out yet: `visitor_erasure_execute`).

    VisitorNotFound when nothing of them is stored, unless an earlier erasure of the same id is
    done: that one is returned, so a repeated request is answered rather than refused."""
    try:
        subject = visitor_subject_get(
            workspace_id=workspace_id,
            external_user_id=external_user_id,
            conversation_id=conversation_id,
            visitor_id=visitor_id,
        )
    except VisitorNotFound:
        if (external_user_id or visitor_id) and workspace_id is not None:
            asked = VisitorSubject(
                workspace_id=uuid.UUID(str(workspace_id)),
                kind=VISITOR if visitor_id else EXTERNAL_USER,
                value=str(visitor_id or external_user_id),
            )
            done = VisitorErasure.objects.filter(
                workspace_id=asked.workspace_id, subject_digest=asked.digest, status="done"
            ).first()
            if done is not None:
                return done
        raise
    return VisitorErasure.objects.create(
        workspace_id=subject.workspace_id,
        subject_kind=subject.kind,
        subject=subject.value,
        subject_digest=subject.digest,
        conversation_ids=subject.conversation_ids(),
        requested_by=requested_by[:80],
    )


def visitor_erasure_get(
    *, workspace_id: uuid.UUID | str, erasure_id: uuid.UUID | str
) -> VisitorErasure:
    erasure = VisitorErasure.objects.filter(pk=erasure_id, workspace_id=workspace_id).first()
    if erasure is None:
        raise VisitorNotFound("no such erasure")
    return erasure


def visitor_erasure_execute(*, erasure_id: uuid.UUID | str) -> VisitorErasure:
    """Run (or resume) the erasure; done when it returns. A step that fails leaves the row `failed`
    with its reason, and the error goes up to the caller (the task retries it)."""
    erasure = VisitorErasure.objects.filter(pk=erasure_id).first()
    if erasure is None:  # its workspace was deleted meanwhile: nothing left to erase
        raise VisitorNotFound("no such erasure")
    if erasure.status == VisitorErasure.Status.DONE:
        return erasure
    VisitorErasure.objects.filter(pk=erasure.pk).update(attempts=F("attempts") + 1)
    scope = _Scope(
        subject=VisitorSubject(
            workspace_id=erasure.workspace_id, kind=erasure.subject_kind, value=erasure.subject
        ),
        conversation_ids=list(erasure.conversation_ids),
    )
    counts = dict(erasure.counts)
    try:
        for name, step in STEPS:
            counts[name] = counts.get(name, 0) + step(scope)
            VisitorErasure.objects.filter(pk=erasure.pk).update(counts=counts)
    except Exception as error:
        VisitorErasure.objects.filter(pk=erasure.pk).update(
            status=VisitorErasure.Status.FAILED,
            error_code=type(error).__name__[:60],
            # The reason may quote what was being erased: it is redacted, and cut short.
            error_message=pii_redact(str(error))[:1000],
        )
        raise
    # Last, once the live keys are clean: Valkey's files on disk (what it refuses is a note).
    notes = valkey_files_rewrite()
    VisitorErasure.objects.filter(pk=erasure.pk).update(
        notes=notes,
        status=VisitorErasure.Status.DONE,
        subject="",
        conversation_ids=[],
        counts=counts,
        error_code="",
        error_message="",
        completed_at=timezone.now(),
    )
    erasure.refresh_from_db()
    return erasure


def visitor_erasures_unfinished(*, older_than: datetime) -> list[uuid.UUID]:
    """Erasures not done and untouched since `older_than`: the sweep resumes them."""
    rows = VisitorErasure.objects.exclude(status=VisitorErasure.Status.DONE).filter(
        updated_at__lt=older_than
    )
    return list(rows.values_list("pk", flat=True))


def _turn_ids(scope: _Scope) -> list[uuid.UUID]:
    return list(
        Turn.objects.filter(conversation_id__in=scope.conversation_ids).values_list("pk", flat=True)
    )


def _insights_copies(scope: _Scope) -> int:
    """The visitor's questions copied into the insights: gap clusters' examples and labels, FAQ
    candidates drawn from their handoffs, evaluation cases made from their turns (and their results)."""
    turns = Turn.objects.filter(conversation_id__in=scope.conversation_ids).exclude(user_text="")
    texts = {" ".join(text.split()) for text in turns.values_list("user_text", flat=True)}
    turn_ids = _turn_ids(scope)
    changed = 0
    with transaction.atomic():
        holding = GapCluster.objects.filter(turns__in=turn_ids).values("pk")
        for cluster in GapCluster.objects.filter(pk__in=holding).select_for_update():
            examples = [example for example in cluster.examples if example not in texts]
            label = cluster.label
            if any(text[:500] == label for text in texts):
                label = examples[0][:500] if examples else ERASED_LABEL
            if examples != cluster.examples or label != cluster.label:
                cluster.examples, cluster.label = examples, label
                cluster.save(update_fields=["examples", "label"])
                changed += 1
        cases = EvaluationCase.objects.filter(source_turn_id__in=turn_ids)
        EvaluationResult.objects.filter(case__in=cases).delete()
        changed += cases.delete()[0]
        changed += FaqCandidate.objects.filter(
            handoff__conversation_id__in=scope.conversation_ids
        ).delete()[0]
    return changed


def _searches(scope: _Scope) -> int:
    rows = RagSearchExecution.objects.filter(scope.subject.searches_filter(scope.conversation_ids))
    return rows.delete()[0]


def _documents(scope: _Scope) -> int:
    ids = Document.objects.filter(
        scope.subject.documents_filter(scope.conversation_ids)
    ).values_list("pk", flat=True)
    found = list(ids)
    for document_id in found:
        # Each in its own transaction: its file, figures and previews go right after its commit.
        document_delete(document_id=document_id)
    return len(found)


def _security_events(scope: _Scope) -> int:
    return SecurityEvent.objects.filter(conversation_id__in=scope.conversation_ids).delete()[0]


def _messages(scope: _Scope) -> int:
    return Message.objects.filter(conversation_id__in=scope.conversation_ids).delete()[0]


def _feedback_comments(scope: _Scope) -> int:
    rows = TurnFeedback.objects.filter(turn__conversation_id__in=scope.conversation_ids)
    return rows.exclude(comment="").update(comment="")


def _handoff_details(scope: _Scope) -> int:
    rows = Handoff.objects.filter(conversation_id__in=scope.conversation_ids)
    return rows.exclude(detail="").update(detail="")


def _turns(scope: _Scope) -> int:
    """Every text and JSON column holding words emptied; what the analytics count stays."""
    rows = Turn.objects.filter(conversation_id__in=scope.conversation_ids).exclude(
        user_text="", answer="", reply_text="", raw_output=""
    )
    return rows.update(
        client_message_id=Cast("id", output_field=CharField()),
        user_text="",
        condensed_question="",
        retrieved_chunks=[],
        answer="",
        suggested_topics=[],
        understanding="",
        context_usage=[],
        reply_text="",
        raw_output="",
        attempts=[],
        parsed_output=None,
        repairs=[],
        llm_error_message="",
    )


def _redis(scope: _Scope) -> int:
    subject = scope.subject
    visitors = Conversation.objects.filter(pk__in=scope.conversation_ids).values_list(
        "visitor_id", flat=True
    )
    purged = visitor_redis_purge(
        workspace_id=str(subject.workspace_id),
        conversation_ids=[str(pk) for pk in scope.conversation_ids],
        external_user_id=subject.value if subject.kind == EXTERNAL_USER else None,
        visitor_ids=list(visitors),
    )
    return purged.streams + purged.entries + purged.counters


def _conversations(scope: _Scope) -> int:
    rows = Conversation.objects.filter(pk__in=scope.conversation_ids)
    return rows.update(external_user_id="", visitor_id="", widget_visitor_id="")


_DAYS_SQL = """
SELECT DISTINCT c.bot_id, (t.created_at AT TIME ZONE %(tz)s)::date
FROM conversations_turn AS t JOIN conversations_conversation AS c ON c.id = t.conversation_id
WHERE c.id = ANY(%(ids)s::uuid[])
"""


def _rollups(scope: _Scope) -> int:
    """The days of the visitor's turns counted again: the same counts, without the suggested topics
    their emptied turns no longer carry."""
    ids = [str(pk) for pk in scope.conversation_ids]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_DAYS_SQL, {"ids": ids, "tz": settings.TIME_ZONE})
        days = cursor.fetchall()
        for bot_id, day in days:
            turn_rollup_day_compute(cursor=cursor, bot_id=str(bot_id), day=day)
    return len(days)


# In order; each step finds nothing left to do when run again.
STEPS: list[tuple[str, Callable[[_Scope], int]]] = [
    ("insights_copies", _insights_copies),
    ("searches", _searches),
    ("documents", _documents),
    ("security_events", _security_events),
    ("messages", _messages),
    ("feedback_comments", _feedback_comments),
    ("handoff_details", _handoff_details),
    ("turns", _turns),
    ("redis", _redis),
    ("conversations", _conversations),
    ("rollups", _rollups),
]
