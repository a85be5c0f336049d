"""Plain-data types of the answer engine: what the bot's rules and the contract exchange (the chunks
are retrieval's own type, `rag.retrieval.RetrievedChunk`).

Nothing here touches the database or the network, so retrieval (rag), the prompt builder
(prompt_context) and the bot's settings (bots) meet the engine through thin adapters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

SMALL_TALK_TOPIC = "Small talk"
UNKNOWN_TOPIC = "unknown"
HUMAN_ESCALATION_INTENT = "human_escalation"


class AnswerStatus(StrEnum):
    FOUND_IN_CONTEXT = "found_in_context"
    NOT_FOUND_IN_CONTEXT = "not_found_in_context"
    SMALL_TALK = "small_talk"
    OUT_OF_SCOPE = "out_of_scope"
    HUMAN_ESCALATION = "human_escalation"
    INJECTION_ATTEMPT = "injection_attempt"


@dataclass(frozen=True)
class BotRules:
    """The bot settings the contract, routing and offline provider need (sections 2.2 and 2.6)."""

    covered_topics: tuple[str, ...] = ()
    excluded_topics: tuple[str, ...] = ()
    # Intents the bot declares for redirection_intent; human_escalation is declared by default.
    redirection_intents: tuple[str, ...] = (HUMAN_ESCALATION_INTENT,)
    handoff_allowed: bool = True
    refusal_text: str = "I can't help with that request."
    out_of_scope_text: str = "That question is outside what I can help with."
    no_answer_text: str = "I couldn't find the answer in my documents."
    handoff_text: str = "I'm passing you to a member of our team."
    handoff_unavailable_text: str = (
        "No one from our team is available in this chat; please contact us directly."
    )
    # not_found_in_context shows the LLM's answer (True) or no_answer_text (False).
    not_found_shows_answer: bool = True
    # Answers below this confidence count as weak; see routing.
    confidence_threshold: float = 0.5
    escalate_below_threshold: bool = False
    # Offer a human after this many not_found_in_context answers in a row (0: never).
    offer_human_after_misses: int = 0
    # The injection detector's score at or above which a message is refused (the bot's setting).
    injection_threshold: float = 0.6
    # The turn's language (the texts above are in it; "": undecided, a greeting's reply follows the
    # greeting) and the offline answer's length in passages.
    locale: str = ""
    max_answer_sentences: int = 3
    # What an LLM answer left without support becomes (conversations/contract/support/apply.py):
    # "strict" says "not found" (or escalates), "relaxed" shows it marked, with the statement.
    rag_strictness: str = "strict"
    relaxation_statement: str = ""

    def declares_intent(self, intent: str) -> bool:
        if intent == HUMAN_ESCALATION_INTENT and not self.handoff_allowed:
            return False
        return intent in self.redirection_intents


@dataclass(frozen=True)
class ChunkUsage:
    chunk: str
    sentences: tuple[str, ...] = ()
    used_in_response: bool = False
    reason: str | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "chunk": self.chunk,
            "sentences": list(self.sentences),
            "used_in_response": self.used_in_response,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Answer:
    """The LLM's structured answer (spec section 4) once parsed and made consistent."""

    status: AnswerStatus
    answer: str
    display_answer: bool = True
    confidence_score: float = 0.0
    topic: str = UNKNOWN_TOPIC
    suggested_topics: tuple[str, ...] = ()
    understanding: str = ""
    redirection_intent: str | None = None
    context_usage: tuple[ChunkUsage, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {
            "status": self.status.value,
            "answer": self.answer,
            "display_answer": self.display_answer,
            "confidence_score": self.confidence_score,
            "topic": self.topic,
            "suggested_topics": list(self.suggested_topics),
            "understanding": self.understanding,
            "redirection_intent": self.redirection_intent,
            "context_usage": [usage.as_json() for usage in self.context_usage],
        }

    @property
    def used_chunk_ids(self) -> tuple[str, ...]:
        return tuple(usage.chunk for usage in self.context_usage if usage.used_in_response)


@dataclass(frozen=True)
class Repair:
    """One change the server made to the LLM's answer: a stable code and a readable message."""

    code: str
    message: str
    field: str = ""

    def as_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "field": self.field}


@dataclass(frozen=True)
class EnforcedAnswer:
    answer: Answer
    repairs: tuple[Repair, ...] = field(default_factory=tuple)

    @property
    def repair_codes(self) -> tuple[str, ...]:
        return tuple(repair.code for repair in self.repairs)
