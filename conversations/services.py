"""Writes of the conversations app: starting a turn idempotently, recording its answer and audit, and the
audit of a rag_search execution (one INSERT when it starts, one conditional UPDATE when it ends).

`turn_start` relies on the (conversation, client_message_id) unique constraint, so two
deliveries of one message make one turn (one INSERT; a repeat reads the stored turn);
`turn_complete` is one conditional UPDATE, so an answer is recorded once even when two
workers race, and the caller's turn instance carries what was stored (no re-read).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from conversations.audit import ERROR_MESSAGE_LIMIT, AnswerRecord, answer_audit_complete
from conversations.models import RagSearchExecution, SecurityEvent, Turn
from conversations.types import AnswerStatus
from core.redaction import pii_redact
from guard.detector import DEFAULT_THRESHOLD, LABEL_CLASSIFIER, Detection, injection_detect

SECURITY_EXCERPT_LIMIT = 2000
# A security event's label when the LLM flagged the message and the detector did not.
LABEL_MODEL_FLAG = "model_flag"


@dataclass(frozen=True)
class TurnStarted:
    turn: Turn
    created: bool


def turn_start(
    *, conversation_id: uuid.UUID, client_message_id: str, user_text: str, redact: bool = False
) -> TurnStarted:
    """The turn for this client message: created now, or the one an earlier delivery created.

    The INSERT comes first (the common case costs one statement); the unique constraint turns a
    repeated delivery into an IntegrityError, and only then is the stored turn read. With `redact`
    (the workspace's choice) the question is stored with its personal data replaced.
    """
    turn = Turn(
        conversation_id=conversation_id,
        client_message_id=client_message_id,
        user_text=pii_redact(user_text) if redact else user_text,
    )
    try:
        with _savepoint_when_nested():
            turn.save(force_insert=True)
    except IntegrityError:
        stored = Turn.objects.filter(
            conversation_id=conversation_id, client_message_id=client_message_id
        ).first()
        if stored is None:  # another constraint failed (the conversation is gone)
            raise
        return TurnStarted(turn=stored, created=False)
    return TurnStarted(turn=turn, created=True)


def turn_complete(
    *,
    turn: Turn,
    record: AnswerRecord,
    injection_threshold: float = DEFAULT_THRESHOLD,
    redact: bool = False,
    watched: Detection | None = None,
) -> bool:
    """Record the answer and its audit on `turn` (the row, and the instance when the row was updated);
    False when the turn was already completed. `injection_threshold` (the bot's) tells a security
    event whether the detector or only the model flagged the message; `watched`, the detector's
    verdict on a message of the watch band, records a security event of its own beside the answer.
    With `redact` the row keeps the text with personal data replaced; the instance keeps the answer
    as the visitor gets it."""
    answer = record.outcome.enforced.answer
    refused = record.route.security_event and answer.status is AnswerStatus.INJECTION_ATTEMPT
    security_event = refused or watched is not None
    # One UPDATE needs no transaction of its own; with the security event it is two statements.
    with transaction.atomic() if security_event else nullcontext():
        stored = answer_audit_complete(
            rows=Turn.objects.filter(pk=turn.pk, completed_at__isnull=True),
            record=record,
            own=_turn_fields(record=record),
            redact=redact,
        )
        if stored is not None:
            for name, value in stored.items():
                setattr(turn, name, value)
            if refused:
                security_event_record(
                    turn=turn,
                    explanation=pii_redact(answer.understanding)
                    if redact
                    else answer.understanding,
                    model=record.model,
                    threshold=injection_threshold,
                )
            elif watched is not None:
                security_event_watched_record(
                    turn=turn, detection=watched, model=record.model, redact=redact
                )
    return stored is not None


def _savepoint_when_nested() -> AbstractContextManager[object]:
    """In autocommit a failed INSERT undoes itself; inside a caller's transaction a savepoint keeps the
    failure from breaking that transaction. (Outside one, `atomic()` would add BEGIN and COMMIT: two
    round trips per turn for nothing.)"""
    return transaction.atomic() if connection.in_atomic_block else nullcontext()


def _turn_fields(*, record: AnswerRecord) -> dict[str, Any]:
    """A turn's own columns: the answer's fields and the route (the retrieved chunks' audit is one
    JSON value)."""
    answer = record.outcome.enforced.answer
    return {
        "condensed_question": record.condensed,
        "retrieved_chunks": [chunk.as_audit() for chunk in record.chunks],
        "status": answer.status.value,
        "answer": answer.answer,
        "topic": answer.topic,
        "suggested_topics": list(answer.suggested_topics),
        "understanding": answer.understanding,
        "confidence": answer.confidence_score,
        "redirection_intent": answer.redirection_intent or "",
        "display_answer": answer.display_answer,
        "context_usage": [usage.as_json() for usage in answer.context_usage],
        "route_action": record.route.action.value,
        "route_reason": record.route.reason,
        "reply_text": record.route.text,
    }


def security_event_record(
    *, turn: Turn, explanation: str, model: str = "", threshold: float = DEFAULT_THRESHOLD
) -> SecurityEvent:
    """Record an injection attempt on `turn` (once per turn), with the detector's score, cue and excerpt
    (the guard scored this text earlier in the turn: the detector's cache answers). The excerpt comes
    from the turn's stored question: redacted when the workspace redacts."""
    detection = injection_detect(text=turn.user_text)
    event, _ = SecurityEvent.objects.get_or_create(
        turn=turn,
        kind=SecurityEvent.Kind.INJECTION_ATTEMPT,
        defaults={
            "conversation_id": turn.conversation_id,
            "excerpt": (detection.excerpt or turn.user_text)[:SECURITY_EXCERPT_LIMIT],
            "explanation": explanation,
            "model": model,
            "score": detection.score,
            "label": detection.label if detection.flagged(threshold) else LABEL_MODEL_FLAG,
        },
    )
    return event


def security_event_watched_record(
    *, turn: Turn, detection: Detection, model: str = "", redact: bool = False
) -> SecurityEvent:
    """Record a message of the detector's watch band on `turn` (answered, not refused): its score,
    cue and excerpt, for the admins to review and the analytics to count. The excerpt was cut from
    the message as typed: with `redact` its personal data is replaced, as the stored question's is."""
    excerpt = (detection.excerpt or turn.user_text)[:SECURITY_EXCERPT_LIMIT]
    event, _ = SecurityEvent.objects.get_or_create(
        turn=turn,
        kind=SecurityEvent.Kind.INJECTION_WATCHED,
        defaults={
            "conversation_id": turn.conversation_id,
            "excerpt": pii_redact(excerpt) if redact else excerpt,
            "explanation": "Answered: the detector's score fell in the bot's watch band.",
            "model": model,
            "score": detection.score,
            "label": detection.label or LABEL_CLASSIFIER,
        },
    )
    return event


@dataclass(frozen=True)
class HistoryMessage:
    """A message outside the bot's turns (an agent's reply, a visitor's message to the agent) for the
    bot's history. The handoff app, above this one, reads them and passes them down to `turn_answer`."""

    created_at: datetime
    role: str  # "user" for the visitor, "assistant" for the team's side
    content: str


@dataclass(frozen=True)
class RagSearchCaller:
    """Who asked a rag_search, as the API edge knows it (plain data: the api app sits above this one)."""

    workspace_id: uuid.UUID | str
    bot_id: uuid.UUID | str | None = None
    conversation_id: uuid.UUID | str | None = None
    external_user_id: str = ""
    kind: str = ""  # "server" or "widget"; empty when called from code
    api_key_id: uuid.UUID | str | None = None


def rag_search_execution_start(
    *,
    caller: RagSearchCaller,
    query: str,
    document_ids: Sequence[uuid.UUID | str] | None,
    redact: bool = False,
) -> RagSearchExecution:
    """The audit row of a rag_search that starts now, `running` until completed or failed (its query
    with personal data replaced when the workspace asks for `redact`)."""
    return RagSearchExecution.objects.create(
        workspace_id=caller.workspace_id,
        bot_id=caller.bot_id,
        conversation_id=caller.conversation_id,
        caller_kind=caller.kind,
        api_key_id=caller.api_key_id,
        external_user_id=caller.external_user_id or "",
        query=pii_redact(query) if redact else query,
        document_ids=[str(d) for d in document_ids] if document_ids is not None else None,
    )


def rag_search_execution_complete(
    *,
    execution_pk: uuid.UUID,
    record: AnswerRecord,
    response: str,
    sources_used: Sequence[int],
    redact: bool = False,
) -> bool:
    """Record the answer (`response` with its citation markers, the ranks it cites) and its audit;
    False when the execution had already finished."""
    cited = set(sources_used)
    contexts = [
        {**chunk.as_audit(), "used_in_response": chunk.rank in cited} for chunk in record.chunks
    ]
    stored = answer_audit_complete(
        rows=RagSearchExecution.objects.filter(
            pk=execution_pk, status=RagSearchExecution.Status.RUNNING
        ),
        record=record,
        own={
            "status": RagSearchExecution.Status.COMPLETED,
            "condensed_query": record.condensed,
            "expanded_query": record.expanded_query,
            "contexts": contexts,
            "answer_status": record.outcome.enforced.answer.status.value,
            "response": response,
            "sources_used": list(sources_used),
        },
        redact=redact,
    )
    return stored is not None


def rag_search_execution_fail(
    *,
    execution_pk: uuid.UUID,
    error_code: str,
    error_message: str,
    latencies: Mapping[str, int],
    redact: bool = False,
) -> bool:
    """Record why a rag_search failed; False when the execution had already finished."""
    updated = RagSearchExecution.objects.filter(
        pk=execution_pk, status=RagSearchExecution.Status.RUNNING
    ).update(
        status=RagSearchExecution.Status.FAILED,
        completed_at=timezone.now(),
        error_code=error_code or "internal_error",
        error_message=(pii_redact(error_message) if redact else error_message)[
            :ERROR_MESSAGE_LIMIT
        ],
        latencies=dict(latencies),
    )
    return bool(updated)
