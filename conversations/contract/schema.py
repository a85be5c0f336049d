"""Field-level coercion of a parsed output into a typed draft answer (spec section 4 schema).

Wrong but recoverable types are coerced and recorded as repairs; an unknown status or a
missing answer text cannot be repaired and raises ContractError.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conversations.contract.parsing import ContractError
from conversations.types import UNKNOWN_TOPIC, Answer, AnswerStatus, ChunkUsage, Repair

_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


@dataclass
class UsageDraft:
    chunk: str
    sentences: list[str]
    used_in_response: bool
    reason: str | None


@dataclass
class Draft:
    """A mutable answer under enforcement; `freeze()` turns it into the immutable Answer."""

    status: AnswerStatus
    answer: str
    display_answer: bool
    confidence_score: float
    topic: str
    suggested_topics: list[str]
    understanding: str
    redirection_intent: str | None
    context_usage: list[UsageDraft]
    repairs: list[Repair] = field(default_factory=list)

    def repair(self, code: str, message: str, field_name: str = "") -> None:
        self.repairs.append(Repair(code, message, field_name))

    def freeze(self) -> Answer:
        return Answer(
            status=self.status,
            answer=self.answer,
            display_answer=self.display_answer,
            confidence_score=self.confidence_score,
            topic=self.topic,
            suggested_topics=tuple(self.suggested_topics),
            understanding=self.understanding,
            redirection_intent=self.redirection_intent,
            context_usage=tuple(
                ChunkUsage(u.chunk, tuple(u.sentences), u.used_in_response, u.reason)
                for u in self.context_usage
            ),
        )


def draft_from_output(*, data: dict[str, object]) -> Draft:
    status = _status(data.get("status"))
    answer = data.get("answer")
    if not isinstance(answer, str):
        raise ContractError("answer_missing", 'The "answer" field must be a string.')
    draft = Draft(
        status=status,
        answer=answer.strip(),
        display_answer=True,
        confidence_score=0.0,
        topic=UNKNOWN_TOPIC,
        suggested_topics=[],
        understanding="",
        redirection_intent=None,
        context_usage=[],
    )
    draft.display_answer = _display_answer(draft, data)
    draft.confidence_score = _confidence(draft, data.get("confidence_score"))
    draft.topic = _topic(draft, data.get("topic"))
    draft.suggested_topics = _string_list(draft, data.get("suggested_topics"), "suggested_topics")
    draft.understanding = _understanding(draft, data.get("understanding"))
    draft.redirection_intent = _intent(draft, data.get("redirection_intent"))
    draft.context_usage = _context_usage(draft, data.get("context_usage"))
    return draft


def _status(value: object) -> AnswerStatus:
    text = value.strip().lower() if isinstance(value, str) else ""
    try:
        return AnswerStatus(text)
    except ValueError:
        allowed = ", ".join(status.value for status in AnswerStatus)
        raise ContractError(
            "status_invalid", f'"status" must be one of: {allowed}; got {value!r}.'
        ) from None


def _boolean(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    return None


def _display_answer(draft: Draft, data: dict[str, object]) -> bool:
    if "display_answer" not in data:
        draft.repair(
            "display_answer_defaulted",
            "display_answer was missing; it defaults to true.",
            "display_answer",
        )
        return True
    value = data["display_answer"]
    coerced = _boolean(value)
    if coerced is None:
        draft.repair(
            "display_answer_defaulted",
            f"display_answer {value!r} is not a boolean; true.",
            "display_answer",
        )
        return True
    if not isinstance(value, bool):
        draft.repair(
            "display_answer_coerced",
            f"display_answer {value!r} was read as {coerced}.",
            "display_answer",
        )
    return coerced


def _confidence(draft: Draft, value: object) -> float:
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
        except ValueError:
            number = None
        if number is not None:
            draft.repair(
                "confidence_coerced",
                f"confidence_score {value!r} was a string.",
                "confidence_score",
            )
    if number is None or number != number:  # NaN never equals itself
        draft.repair(
            "confidence_invalid",
            f"confidence_score {value!r} is not a number; 0.",
            "confidence_score",
        )
        return 0.0
    if not 0.0 <= number <= 1.0:
        clamped = min(1.0, max(0.0, number))
        draft.repair(
            "confidence_clamped",
            f"confidence_score {number} was clamped to {clamped}.",
            "confidence_score",
        )
        return clamped
    return number


def _topic(draft: Draft, value: object) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    draft.repair("topic_missing", f'topic {value!r} is not a topic name; "unknown".', "topic")
    return UNKNOWN_TOPIC


def _string_list(draft: Draft, value: object, name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        draft.repair(f"{name}_coerced", f"{name} was a string, not a list.", name)
        return [value.strip()] if value.strip() else []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value if item.strip()]
    draft.repair(f"{name}_invalid", f"{name} is not a list of strings; emptied.", name)
    return []


def _understanding(draft: Draft, value: object) -> str:
    if isinstance(value, str):
        return value.strip()
    draft.repair(
        "understanding_missing", "understanding was missing or not a string.", "understanding"
    )
    return ""


def _intent(draft: Draft, value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        return None if text.lower() in {"", "null", "none"} else text
    draft.repair(
        "redirection_intent_invalid",
        f"redirection_intent {value!r} is not a string.",
        "redirection_intent",
    )
    return None


def _context_usage(draft: Draft, value: object) -> list[UsageDraft]:
    if value is None:
        return []
    if not isinstance(value, list):
        draft.repair(
            "context_usage_invalid", "context_usage is not a list; rebuilt.", "context_usage"
        )
        return []
    entries: list[UsageDraft] = []
    for item in value:
        chunk = item.get("chunk") if isinstance(item, dict) else None
        if isinstance(chunk, int) and not isinstance(chunk, bool):
            chunk = str(chunk)
        if not isinstance(chunk, str) or not chunk.strip():
            draft.repair(
                "context_usage_entry_invalid",
                f"A context_usage entry without a chunk id: {item!r}.",
            )
            continue
        sentences = item.get("sentences")
        if isinstance(sentences, str):
            sentences = [sentences]
        if not isinstance(sentences, list):
            sentences = []
        used = _boolean(item.get("used_in_response"))
        if used is None:
            draft.repair(
                "used_in_response_invalid",
                f"Chunk {chunk}: used_in_response is not a boolean; false.",
            )
            used = False
        reason = item.get("reason")
        entries.append(
            UsageDraft(
                chunk=chunk.strip(),
                sentences=[s for s in sentences if isinstance(s, str) and s.strip()],
                used_in_response=used,
                reason=reason.strip() if isinstance(reason, str) and reason.strip() else None,
            )
        )
    return entries
