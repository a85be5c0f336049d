"""The audit shape of an answer, one for a chat turn and a rag_search: the record the pipeline hands
over (`AnswerRecord`) and the one writer of the shared columns (`answer_audit_complete`, on
`models.AnswerAudit`). Each kind adds its own columns: a turn its answer fields and route, a
rag_search its cited response and status."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from conversations.contract.attempts import AnswerOutcome
from conversations.models import AnswerAudit
from conversations.routing import RouteDecision
from core.redaction import pii_redact_json
from rag.retrieval import RetrievedChunk

ERROR_MESSAGE_LIMIT = 2000


@dataclass(frozen=True)
class AnswerRecord:
    """Everything a finished answer stores, as plain data from the pipeline."""

    outcome: AnswerOutcome
    route: RouteDecision
    chunks: Sequence[RetrievedChunk] = ()
    # The condensed question; "" when the question was searched as it was asked.
    condensed: str = ""
    # What full-text search ran: the question, its keywords and the lexicon's synonyms.
    expanded_query: str = ""
    prompt_version: str = ""
    prompt_hash: str = ""
    # "offline", the endpoint's model, or "offline-fallback(<model>)".
    model: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latencies: Mapping[str, int] = field(default_factory=dict)


def answer_audit_fields(*, record: AnswerRecord) -> dict[str, Any]:
    """The columns of `AnswerAudit` a finished answer sets."""
    outcome = record.outcome
    error = outcome.llm_error
    return {
        "completed_at": timezone.now(),
        "prompt_version": record.prompt_version,
        "prompt_hash": record.prompt_hash,
        "raw_output": outcome.raw_output,
        "attempts": [attempt.as_json() for attempt in outcome.attempts],
        "parsed_output": outcome.parsed,
        "repairs": [repair.as_json() for repair in outcome.enforced.repairs],
        "llm_error_code": error.code if error else "",
        "llm_error_message": error.message[:ERROR_MESSAGE_LIMIT] if error else "",
        "model": record.model,
        "prompt_tokens": record.prompt_tokens,
        "completion_tokens": record.completion_tokens,
        "latencies": dict(record.latencies),
    }


# Columns holding codes, figures or times, never free text: redaction leaves them as they are.
_NOT_TEXT = frozenset(
    {
        "completed_at",
        "prompt_version",
        "prompt_hash",
        "llm_error_code",
        "model",
        "prompt_tokens",
        "completion_tokens",
        "latencies",
        "status",
        "answer_status",
        "route_action",
        "route_reason",
        "redirection_intent",
        "display_answer",
        "confidence",
        "sources_used",
    }
)


def answer_audit_redacted(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` with personal data replaced by placeholders in every text and JSON column."""
    return {
        name: value if name in _NOT_TEXT else pii_redact_json(value)
        for name, value in values.items()
    }


def answer_audit_complete(
    *, rows: QuerySet[Any], record: AnswerRecord, own: Mapping[str, Any], redact: bool = False
) -> dict[str, Any] | None:
    """One conditional UPDATE of `rows` (the answer's row while it is unfinished) with the shared
    audit and the model's `own` columns, or None when it was already finished, so an answer is
    recorded once even when two workers race.

    With `redact` (the workspace's choice) the row stores the text with personal data replaced, and
    the values returned stay as the model wrote them: they are what the visitor is answered now."""
    assert issubclass(rows.model, AnswerAudit)
    values = {**answer_audit_fields(record=record), **own}
    stored = answer_audit_redacted(values) if redact else values
    return values if rows.update(**stored) else None
