"""Routing: what the channel does with an enforced answer (DESIGN.md, "Routing").

One table maps each status to its base action; three rules then adjust it: a declared
human_escalation intent opens a handoff, a found answer below the bot's confidence threshold
can escalate, and repeated misses can offer a human.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conversations.types import HUMAN_ESCALATION_INTENT, Answer, AnswerStatus, BotRules


class RouteAction(StrEnum):
    SHOW_ANSWER = "show_answer"
    SHOW_TEXT = "show_text"
    OPEN_HANDOFF = "open_handoff"


@dataclass(frozen=True)
class RouteDecision:
    action: RouteAction
    # What the channel shows: the answer, a configured text, or "" when display_answer is false.
    text: str
    # A stable code saying which rule decided, for the audit and the admin.
    reason: str
    open_handoff: bool = False
    security_event: bool = False
    offer_human: bool = False
    show_citations: bool = False
    redirection_intent: str | None = None


@dataclass(frozen=True)
class _Rule:
    action: RouteAction
    # "answer" shows the answer; any other value names the BotRules text to show.
    text: str
    reason: str
    security_event: bool = False
    show_citations: bool = False


_TABLE: dict[AnswerStatus, _Rule] = {
    AnswerStatus.FOUND_IN_CONTEXT: _Rule(
        action=RouteAction.SHOW_ANSWER, text="answer", reason="answer", show_citations=True
    ),
    AnswerStatus.NOT_FOUND_IN_CONTEXT: _Rule(
        action=RouteAction.SHOW_ANSWER, text="answer", reason="not_found"
    ),
    AnswerStatus.SMALL_TALK: _Rule(
        action=RouteAction.SHOW_ANSWER, text="answer", reason="small_talk"
    ),
    AnswerStatus.OUT_OF_SCOPE: _Rule(
        action=RouteAction.SHOW_TEXT, text="out_of_scope_text", reason="out_of_scope"
    ),
    AnswerStatus.INJECTION_ATTEMPT: _Rule(
        action=RouteAction.SHOW_TEXT, text="refusal_text", reason="injection", security_event=True
    ),
    AnswerStatus.HUMAN_ESCALATION: _Rule(
        action=RouteAction.OPEN_HANDOFF, text="answer", reason="human_requested"
    ),
}


def answer_route(
    *,
    status: AnswerStatus,
    answer: str,
    display_answer: bool,
    redirection_intent: str | None,
    confidence: float,
    rules: BotRules,
    previous_misses: int = 0,
) -> RouteDecision:
    """Decide the channel's action. `previous_misses` counts the not_found answers just before this turn."""
    rule = _TABLE[status]
    action, reason = rule.action, rule.reason
    text = answer if rule.text == "answer" else getattr(rules, rule.text)
    if status is AnswerStatus.NOT_FOUND_IN_CONTEXT and not rules.not_found_shows_answer:
        action, text, reason = RouteAction.SHOW_TEXT, rules.no_answer_text, "no_answer_text"
    wants_human = (
        status is AnswerStatus.HUMAN_ESCALATION or redirection_intent == HUMAN_ESCALATION_INTENT
    )
    if status is AnswerStatus.INJECTION_ATTEMPT:
        wants_human = False
    low_confidence = (
        status is AnswerStatus.FOUND_IN_CONTEXT and confidence < rules.confidence_threshold
    )
    if low_confidence and rules.escalate_below_threshold and rules.handoff_allowed:
        wants_human, reason, text = True, "low_confidence", rules.handoff_text
    if wants_human:
        if rules.handoff_allowed:
            action = RouteAction.OPEN_HANDOFF
            text = text if display_answer and text else rules.handoff_text
            reason = (
                reason
                if reason in {"human_requested", "low_confidence"}
                else "intent_human_escalation"
            )
            return RouteDecision(
                action=action,
                text=text,
                reason=reason,
                open_handoff=True,
                redirection_intent=HUMAN_ESCALATION_INTENT,
            )
        action, text, reason = (
            RouteAction.SHOW_TEXT,
            rules.handoff_unavailable_text,
            "handoff_unavailable",
        )
    offer_human = (
        status is AnswerStatus.NOT_FOUND_IN_CONTEXT
        and rules.handoff_allowed
        and rules.offer_human_after_misses > 0
        and previous_misses + 1 >= rules.offer_human_after_misses
    )
    if action is RouteAction.SHOW_ANSWER and not display_answer:
        text = ""
    intent = redirection_intent if redirection_intent != HUMAN_ESCALATION_INTENT else None
    return RouteDecision(
        action=action,
        text=text,
        reason=reason,
        security_event=rule.security_event,
        offer_human=offer_human,
        show_citations=rule.show_citations and action is RouteAction.SHOW_ANSWER,
        redirection_intent=intent,
    )


def enforced_answer_route(
    *, answer: Answer, rules: BotRules, previous_misses: int = 0
) -> RouteDecision:
    """`answer_route` of an enforced answer, read from its fields."""
    return answer_route(
        status=answer.status,
        answer=answer.answer,
        display_answer=answer.display_answer,
        redirection_intent=answer.redirection_intent,
        confidence=answer.confidence_score,
        rules=rules,
        previous_misses=previous_misses,
    )
