"""The support check applied to an LLM answer before it is shown: unsupported sentences removed (and
their quotes), each removal recorded as a repair whose code names the kind of fact
(`unsupported_<kind>_removed`), and the bot's strictness followed when nothing that answers is left:
- strict: the no-answer text, status not_found_in_context; or a human escalation where the bot
  escalates below its threshold and may hand off;
- relaxed: the answer kept, the unsupported sentences marked, and the bot's relaxation statement after it.

The offline provider quotes its passages and is not checked here (the bench checks it as a control).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from conversations.contract.support.check import Embed, SupportPassage, answer_check
from conversations.types import (
    HUMAN_ESCALATION_INTENT,
    Answer,
    AnswerStatus,
    BotRules,
    ChunkUsage,
    EnforcedAnswer,
    Repair,
)

logger = logging.getLogger(__name__)

SUPPORT_KINDS = (
    "number",
    "amount",
    "percentage",
    "quantity",
    "date",
    "email",
    "phone",
    "url",
    "name",
    "unit",
    "negation",
    "claim",
)
CHECKED_STATUSES = frozenset({AnswerStatus.FOUND_IN_CONTEXT, AnswerStatus.NOT_FOUND_IN_CONTEXT})
# How a relaxed bot marks a sentence it shows without support.
UNSUPPORTED_MARK = "⚠"


@dataclass(frozen=True)
class SupportInputs:
    """What a turn checks its LLM answer against: the passages given to the model, the answer's
    language, and the sentences' embedding with the passages' vectors' model."""

    passages: tuple[SupportPassage, ...]
    language: str
    embed: Embed | None

    def sentence_supported(self, sentence: str) -> bool:
        """Whether one streamed sentence passes (the relay streams only those); True on any failure."""
        try:
            verdicts = answer_check(
                answer=sentence, language=self.language, passages=self.passages, embed=self.embed
            )
        except Exception:
            logger.exception("support check failed on a streamed sentence")
            return True
        return all(verdict.supported for verdict in verdicts)


def removal_code(kind: str) -> str:
    return f"unsupported_{kind}_removed"


def support_apply(
    *,
    enforced: EnforcedAnswer,
    passages: Sequence[SupportPassage],
    language: str,
    rules: BotRules,
    embed: Embed | None,
) -> EnforcedAnswer:
    """`enforced` with its unsupported sentences dealt with; unchanged when every sentence holds (or
    when the check itself fails: it never fails a turn)."""
    answer = enforced.answer
    if answer.status not in CHECKED_STATUSES or not answer.answer.strip():
        return enforced
    try:
        verdicts = answer_check(
            answer=answer.answer, language=language, passages=passages, embed=embed
        )
    except Exception:
        logger.exception("support check failed; the answer is shown as the contract left it")
        return enforced
    failed = [verdict for verdict in verdicts if not verdict.supported]
    if not failed:
        return enforced
    repairs = [
        Repair(
            removal_code(verdict.kind or "claim"),
            f"Removed {verdict.sentence!r}: it {verdict.reason}.",
            "answer",
        )
        for verdict in failed
    ]
    kept = [verdict.sentence for verdict in verdicts if verdict.supported]
    answers = any(verdict.supported and verdict.support is not None for verdict in verdicts)
    removed = {verdict.sentence for verdict in failed}
    usage = tuple(
        dataclasses.replace(u, sentences=tuple(s for s in u.sentences if s.strip() not in removed))
        for u in answer.context_usage
    )
    if kept and answers:
        changed = dataclasses.replace(answer, answer=" ".join(kept), context_usage=usage)
    elif rules.rag_strictness == "relaxed":
        marked = [
            f"{UNSUPPORTED_MARK} {v.sentence}" if not v.supported else v.sentence for v in verdicts
        ]
        text = " ".join([*marked, rules.relaxation_statement]).strip()
        changed = dataclasses.replace(answer, answer=text, context_usage=usage)
        repairs.append(
            Repair(
                "unsupported_answer_marked",
                "Nothing supported answered the question: the relaxed bot shows the answer marked, "
                "with its relaxation statement.",
                "answer",
            )
        )
    else:
        changed = _strict(answer, rules, usage)
        repairs.append(
            Repair(
                "unsupported_answer_replaced",
                "Nothing supported answered the question: the strict bot says "
                + (
                    "it escalates."
                    if changed.status is AnswerStatus.HUMAN_ESCALATION
                    else "it did not find the answer."
                ),
                "answer",
            )
        )
    return EnforcedAnswer(answer=changed, repairs=(*enforced.repairs, *repairs))


def _strict(answer: Answer, rules: BotRules, usage: tuple[ChunkUsage, ...]) -> Answer:
    released = tuple(
        dataclasses.replace(
            u, used_in_response=False, sentences=(), reason=u.reason or "Unsupported."
        )
        for u in usage
    )
    if rules.escalate_below_threshold and rules.declares_intent(HUMAN_ESCALATION_INTENT):
        return dataclasses.replace(
            answer,
            status=AnswerStatus.HUMAN_ESCALATION,
            answer=rules.handoff_text,
            confidence_score=0.0,
            redirection_intent=HUMAN_ESCALATION_INTENT,
            context_usage=released,
        )
    return dataclasses.replace(
        answer,
        status=AnswerStatus.NOT_FOUND_IN_CONTEXT,
        answer=rules.no_answer_text,
        confidence_score=0.0,
        context_usage=released,
    )
