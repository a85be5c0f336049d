"""Getting a usable answer: one retry with the error fed back, then a safe not_found_in_context answer.

The LLM call is a callable, so this runs unchanged against the gateway, the offline provider
or a test double. When the remote LLM is down (an LLMError after the gateway's own
retries), an optional fallback generator (the offline provider) answers instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from conversations.contract.enforce import UNUSED_REASON_STATUS, answer_enforce
from conversations.contract.parsing import ContractError, output_parse
from conversations.types import (
    UNKNOWN_TOPIC,
    Answer,
    AnswerStatus,
    BotRules,
    ChunkUsage,
    EnforcedAnswer,
    Repair,
)
from core.llm.errors import LLMError
from rag.retrieval import RetrievedChunk

logger = logging.getLogger(__name__)

SOURCE_LLM = "llm"
SOURCE_FALLBACK_GENERATOR = "fallback_generator"
SOURCE_SAFE_FALLBACK = "safe_fallback"

# generate(feedback) -> raw output. feedback is None on the first call, then the error to fix.
Generate = Callable[[str | None], str]


@dataclass(frozen=True)
class AttemptRecord:
    raw_output: str
    error_code: str = ""
    error_message: str = ""
    generator: str = SOURCE_LLM

    def as_json(self) -> dict[str, str]:
        return {
            "generator": self.generator,
            "error_code": self.error_code,
            "error_message": self.error_message,
            "raw_output": self.raw_output,
        }


@dataclass(frozen=True)
class AnswerOutcome:
    enforced: EnforcedAnswer
    source: str
    attempts: tuple[AttemptRecord, ...]
    llm_error: LLMError | None = None
    # The JSON object the accepted output held, before enforcement (None for the safe fallback).
    parsed: dict[str, object] | None = None

    @property
    def raw_output(self) -> str:
        return self.attempts[-1].raw_output if self.attempts else ""


def retry_feedback(error: ContractError) -> str:
    """The message sent back to the LLM with its rejected output."""
    return (
        f"Your previous output was rejected ({error.code}): {error.message} "
        "Reply again with only the complete JSON object described in the output specification."
    )


def answer_obtain(
    *,
    generate: Generate,
    chunks: Sequence[RetrievedChunk],
    rules: BotRules,
    question: str,
    fallback_generate: Callable[[], str] | None = None,
    max_attempts: int = 2,
) -> AnswerOutcome:
    """Call `generate` until its output honours the contract (at most `max_attempts` times)."""
    attempts: list[AttemptRecord] = []
    feedback: str | None = None
    for _ in range(max_attempts):
        try:
            raw = generate(feedback)
        except LLMError as error:
            if fallback_generate is None:
                raise
            logger.warning("LLM unavailable (%s); answering with the fallback generator", error)
            return _from_fallback_generator(
                fallback_generate, chunks, rules, question, attempts, error
            )
        try:
            parsed, enforced = _enforce(raw, chunks, rules, question)
        except ContractError as error:
            attempts.append(AttemptRecord(raw, error.code, error.message))
            feedback = retry_feedback(error)
            continue
        attempts.append(AttemptRecord(raw))
        return AnswerOutcome(
            enforced=enforced, source=SOURCE_LLM, attempts=tuple(attempts), parsed=parsed
        )
    last = attempts[-1]
    logger.error(
        "LLM output unusable after %d attempts (%s): %s",
        len(attempts),
        last.error_code,
        last.error_message,
    )
    return AnswerOutcome(
        enforced=safe_fallback(
            chunks=chunks, rules=rules, question=question, cause=last.error_code
        ),
        source=SOURCE_SAFE_FALLBACK,
        attempts=tuple(attempts),
    )


def _from_fallback_generator(
    fallback_generate: Callable[[], str],
    chunks: Sequence[RetrievedChunk],
    rules: BotRules,
    question: str,
    attempts: list[AttemptRecord],
    error: LLMError,
) -> AnswerOutcome:
    raw = fallback_generate()
    try:
        parsed, enforced = _enforce(raw, chunks, rules, question)
    except ContractError as contract_error:
        attempts.append(
            AttemptRecord(
                raw, contract_error.code, contract_error.message, SOURCE_FALLBACK_GENERATOR
            )
        )
        enforced = safe_fallback(
            chunks=chunks, rules=rules, question=question, cause=contract_error.code
        )
        return AnswerOutcome(
            enforced=enforced,
            source=SOURCE_SAFE_FALLBACK,
            attempts=tuple(attempts),
            llm_error=error,
        )
    attempts.append(AttemptRecord(raw, generator=SOURCE_FALLBACK_GENERATOR))
    return AnswerOutcome(
        enforced=enforced,
        source=SOURCE_FALLBACK_GENERATOR,
        attempts=tuple(attempts),
        llm_error=error,
        parsed=parsed,
    )


def _enforce(
    raw: str, chunks: Sequence[RetrievedChunk], rules: BotRules, question: str
) -> tuple[dict[str, object], EnforcedAnswer]:
    parsed = output_parse(raw=raw)
    enforced = answer_enforce(
        data=parsed.data, chunks=chunks, rules=rules, question=question, prior=parsed.repairs
    )
    return parsed.data, enforced


def safe_fallback(
    *, chunks: Sequence[RetrievedChunk], rules: BotRules, question: str, cause: str
) -> EnforcedAnswer:
    """A consistent not_found_in_context answer, used when no output could be trusted."""
    answer = Answer(
        status=AnswerStatus.NOT_FOUND_IN_CONTEXT,
        answer=rules.no_answer_text,
        confidence_score=0.0,
        topic=UNKNOWN_TOPIC,
        understanding=" ".join(question.split()),
        context_usage=tuple(
            ChunkUsage(chunk.id, (), False, UNUSED_REASON_STATUS) for chunk in chunks
        ),
    )
    repair = Repair(
        "fallback_after_invalid_output",
        f"The model's output was unusable ({cause}) after a retry; the no-answer fallback was used.",
        "status",
    )
    return EnforcedAnswer(answer=answer, repairs=(repair,))
