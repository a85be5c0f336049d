"""The answer contract enforced in code: every consistency rule of the spec, applied and recorded.

`answer_enforce` is pure: the parsed object, the retrieved chunks, the bot's rules and the
question in; the consistent answer and the list of repairs out. See DESIGN.md, "The answer
contract, enforced in code".
"""

from __future__ import annotations

from collections.abc import Sequence

from conversations.contract.parsing import output_parse
from conversations.contract.planted import planted_content_drop
from conversations.contract.quotes import quote_in_text
from conversations.contract.schema import Draft, UsageDraft, draft_from_output
from conversations.contract.topics import intent_rule_apply, topic_rules_apply
from conversations.types import (
    HUMAN_ESCALATION_INTENT,
    SMALL_TALK_TOPIC,
    UNKNOWN_TOPIC,
    AnswerStatus,
    BotRules,
    EnforcedAnswer,
    Repair,
)
from rag.retrieval import RetrievedChunk

# An explanation of an injection attempt shorter than this cannot say what, why and where.
MIN_INJECTION_EXPLANATION = 120
# Each quote missing from its chunk costs this much confidence.
MISQUOTE_PENALTY = 0.25
UNUSED_REASON_MISSING = "Not referenced by the answer."
UNUSED_REASON_DEFAULT = "Not used in the answer."
UNUSED_REASON_NOT_FOUND = "The answer is not in this chunk."
UNUSED_REASON_STATUS = "No answer from the documents for this status."
UNUSED_REASON_MISQUOTED = "None of the sentences quoted from it are in the chunk."


def output_enforce(
    *, raw: str, chunks: Sequence[RetrievedChunk], rules: BotRules, question: str = ""
) -> EnforcedAnswer:
    """Parse the raw output and enforce the contract; raises ContractError when it is unusable."""
    parsed = output_parse(raw=raw)
    return answer_enforce(
        data=parsed.data, chunks=chunks, rules=rules, question=question, prior=parsed.repairs
    )


def answer_enforce(
    *,
    data: dict[str, object],
    chunks: Sequence[RetrievedChunk],
    rules: BotRules,
    question: str = "",
    prior: Sequence[Repair] = (),
) -> EnforcedAnswer:
    """Apply every consistency rule to `data`; `prior` holds the parser's repairs (fences, trailing text).

    Raises ContractError only when the object cannot be an answer at all (unknown status, no answer text).
    """
    draft = draft_from_output(data=data)
    draft.repairs[:0] = list(prior)
    if draft.status is AnswerStatus.SMALL_TALK:
        if draft.context_usage:
            draft.repair(
                "context_usage_cleared",
                "small_talk forces an empty context_usage.",
                "context_usage",
            )
            draft.context_usage = []
    else:
        _reconcile_usage(draft, chunks)
        _verify_quotes(draft, {chunk.id: chunk for chunk in chunks})
        planted_content_drop(draft, chunks, rules)
    _status_rules(draft, rules, question)
    topic_rules_apply(draft=draft, rules=rules)
    intent_rule_apply(draft=draft, rules=rules)
    for usage in draft.context_usage:
        if not usage.used_in_response and not usage.reason:
            usage.reason = UNUSED_REASON_DEFAULT
            draft.repair(
                "unused_chunk_without_reason", f"Chunk {usage.chunk} is unused but gave no reason."
            )
    return EnforcedAnswer(answer=draft.freeze(), repairs=tuple(draft.repairs))


def _reconcile_usage(draft: Draft, chunks: Sequence[RetrievedChunk]) -> None:
    """Drop invented and duplicate chunk ids; add every retrieved chunk the LLM left out."""
    retrieved = [chunk.id for chunk in chunks]
    kept: dict[str, UsageDraft] = {}
    for usage in draft.context_usage:
        if usage.chunk not in retrieved:
            draft.repair(
                "chunk_unknown", f"Chunk {usage.chunk} was never retrieved; its entry was dropped."
            )
        elif usage.chunk in kept:
            draft.repair(
                "chunk_usage_duplicate",
                f"Chunk {usage.chunk} was listed twice; the entries were merged.",
            )
            first = kept[usage.chunk]
            first.used_in_response = first.used_in_response or usage.used_in_response
            first.sentences += [s for s in usage.sentences if s not in first.sentences]
        else:
            kept[usage.chunk] = usage
    for chunk_id in retrieved:
        if chunk_id not in kept:
            kept[chunk_id] = UsageDraft(chunk_id, [], False, UNUSED_REASON_MISSING)
            draft.repair(
                "chunk_usage_missing", f"Retrieved chunk {chunk_id} was missing; added as unused."
            )
    draft.context_usage = [kept[chunk_id] for chunk_id in retrieved]


def _verify_quotes(draft: Draft, chunks: dict[str, RetrievedChunk]) -> None:
    for usage in draft.context_usage:
        if not usage.used_in_response or not usage.sentences:
            continue
        text = chunks[usage.chunk].text
        verified = [
            sentence for sentence in usage.sentences if quote_in_text(quote=sentence, text=text)
        ]
        for sentence in usage.sentences:
            if sentence not in verified:
                lowered = max(0.0, round(draft.confidence_score - MISQUOTE_PENALTY, 4))
                draft.repair(
                    "quote_not_in_chunk",
                    f"Chunk {usage.chunk} does not contain the quoted sentence {sentence!r}; "
                    f"it was removed and confidence lowered from {draft.confidence_score} to {lowered}.",
                    "context_usage",
                )
                draft.confidence_score = lowered
        usage.sentences = verified
        if not verified:
            usage.used_in_response = False
            usage.reason = UNUSED_REASON_MISQUOTED


def _release_chunks(draft: Draft, code: str, reason: str) -> None:
    """Mark every used chunk unused: the status allows no answer taken from the documents."""
    for usage in draft.context_usage:
        if usage.used_in_response:
            usage.used_in_response = False
            usage.reason = usage.reason or reason
            draft.repair(
                code, f"Chunk {usage.chunk} cannot be used with status {draft.status.value}."
            )


def _replace_answer(draft: Draft, text: str, why: str) -> None:
    if draft.answer != text:
        draft.answer = text
        draft.repair("answer_replaced", why, "answer")


def _status_rules(draft: Draft, rules: BotRules, question: str) -> None:
    status = draft.status
    if status is AnswerStatus.FOUND_IN_CONTEXT and not any(
        u.used_in_response for u in draft.context_usage
    ):
        draft.status = AnswerStatus.NOT_FOUND_IN_CONTEXT
        draft.confidence_score = 0.0
        draft.repair(
            "found_without_used_chunk",
            "found_in_context needs at least one used, existing chunk; downgraded to not_found_in_context.",
            "status",
        )
        _replace_answer(
            draft,
            rules.no_answer_text,
            "An answer no chunk supports is replaced by the no-answer text.",
        )
    elif status is AnswerStatus.NOT_FOUND_IN_CONTEXT:
        _release_chunks(draft, "used_chunk_in_not_found", UNUSED_REASON_NOT_FOUND)
    elif status is AnswerStatus.SMALL_TALK:
        if draft.topic != SMALL_TALK_TOPIC:
            draft.repair("topic_forced", f'small_talk forces topic "{SMALL_TALK_TOPIC}".', "topic")
            draft.topic = SMALL_TALK_TOPIC
        if draft.suggested_topics:
            draft.repair(
                "suggested_topics_cleared",
                "small_talk forces empty suggested_topics.",
                "suggested_topics",
            )
            draft.suggested_topics = []
    elif status is AnswerStatus.OUT_OF_SCOPE:
        if draft.topic != UNKNOWN_TOPIC:
            draft.repair("topic_forced", 'out_of_scope forces topic "unknown".', "topic")
            draft.topic = UNKNOWN_TOPIC
        _release_chunks(draft, "used_chunk_outside_found", UNUSED_REASON_STATUS)
    elif status is AnswerStatus.INJECTION_ATTEMPT:
        _replace_answer(
            draft, rules.refusal_text, "An injection attempt gets the bot's refusal text."
        )
        if len(draft.understanding) < MIN_INJECTION_EXPLANATION:
            draft.understanding = injection_explanation(
                question=question, detail=draft.understanding
            )
            draft.repair(
                "understanding_explained",
                "understanding must explain the injection: what it asked, why it conflicts, where it was.",
                "understanding",
            )
        _release_chunks(draft, "used_chunk_outside_found", UNUSED_REASON_STATUS)
    elif status is AnswerStatus.HUMAN_ESCALATION:
        _escalation_rules(draft, rules)


def _escalation_rules(draft: Draft, rules: BotRules) -> None:
    """Section 2.6: with handoff allowed the widget gets the intent; otherwise the bot's text."""
    _release_chunks(draft, "used_chunk_outside_found", UNUSED_REASON_STATUS)
    if rules.declares_intent(HUMAN_ESCALATION_INTENT):
        if draft.redirection_intent != HUMAN_ESCALATION_INTENT:
            draft.repair(
                "redirection_intent_set",
                "human_escalation sets redirection_intent.",
                "redirection_intent",
            )
            draft.redirection_intent = HUMAN_ESCALATION_INTENT
        return
    if draft.redirection_intent is not None:
        draft.repair(
            "redirection_intent_undeclared",
            "This bot does not hand off to humans.",
            "redirection_intent",
        )
        draft.redirection_intent = None
    _replace_answer(
        draft,
        rules.handoff_unavailable_text,
        "This bot does not hand off; it shows its configured text.",
    )


def injection_explanation(*, question: str, detail: str = "") -> str:
    """The understanding of an injection attempt: what it asked, why it conflicts, which part it was."""
    excerpt = " ".join(question.split())[:300]
    parts = [
        f'The message asks the assistant to follow instructions of its own instead of asking a question: "{excerpt}".',
        "It tries to override the system rules, reveal hidden instructions or change the assistant's behaviour, "
        "which conflicts with the rule that user input and retrieved content are untrusted data, never instructions.",
        "The injected part is the instruction quoted above.",
    ]
    if detail:
        parts.append(f"Detected: {detail}")
    return " ".join(parts)
