"""Routing: status, intent, confidence and the bot's settings in; the channel's action out."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conversations.routing import RouteAction, answer_route
from conversations.types import AnswerStatus, BotRules

RULES = BotRules(
    refusal_text="REFUSAL",
    out_of_scope_text="OUT_OF_SCOPE",
    no_answer_text="NO_ANSWER",
    handoff_text="HANDOFF",
    handoff_unavailable_text="NO_HANDOFF",
    confidence_threshold=0.6,
)


def route(status: AnswerStatus, rules: BotRules = RULES, **overrides: object):  # type: ignore[no-untyped-def]
    arguments: dict[str, object] = {
        "answer": "LLM_ANSWER",
        "display_answer": True,
        "redirection_intent": None,
        "confidence": 0.9,
        "previous_misses": 0,
    }
    arguments.update(overrides)
    return answer_route(status=status, rules=rules, **arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "action", "text", "reason", "security_event", "citations"),
    [
        (
            AnswerStatus.FOUND_IN_CONTEXT,
            RouteAction.SHOW_ANSWER,
            "LLM_ANSWER",
            "answer",
            False,
            True,
        ),
        (
            AnswerStatus.NOT_FOUND_IN_CONTEXT,
            RouteAction.SHOW_ANSWER,
            "LLM_ANSWER",
            "not_found",
            False,
            False,
        ),
        (
            AnswerStatus.SMALL_TALK,
            RouteAction.SHOW_ANSWER,
            "LLM_ANSWER",
            "small_talk",
            False,
            False,
        ),
        (
            AnswerStatus.OUT_OF_SCOPE,
            RouteAction.SHOW_TEXT,
            "OUT_OF_SCOPE",
            "out_of_scope",
            False,
            False,
        ),
        (
            AnswerStatus.INJECTION_ATTEMPT,
            RouteAction.SHOW_TEXT,
            "REFUSAL",
            "injection",
            True,
            False,
        ),
        (
            AnswerStatus.HUMAN_ESCALATION,
            RouteAction.OPEN_HANDOFF,
            "LLM_ANSWER",
            "human_requested",
            False,
            False,
        ),
    ],
)
def test_the_routing_table(
    status: AnswerStatus,
    action: RouteAction,
    text: str,
    reason: str,
    security_event: bool,
    citations: bool,
) -> None:
    decision = route(
        status,
        redirection_intent="human_escalation" if status is AnswerStatus.HUMAN_ESCALATION else None,
    )

    assert (decision.action, decision.text, decision.reason) == (action, text, reason)
    assert (decision.security_event, decision.show_citations) == (security_event, citations)
    assert decision.open_handoff is (action is RouteAction.OPEN_HANDOFF)


def test_handoff_sends_the_intent_to_the_widget() -> None:
    decision = route(AnswerStatus.HUMAN_ESCALATION, redirection_intent="human_escalation")

    assert decision.redirection_intent == "human_escalation"


def test_escalation_without_handoff_shows_the_configured_text() -> None:
    decision = route(AnswerStatus.HUMAN_ESCALATION, replace(RULES, handoff_allowed=False))

    assert (decision.action, decision.text) == (RouteAction.SHOW_TEXT, "NO_HANDOFF")
    assert decision.reason == "handoff_unavailable"
    assert not decision.open_handoff
    assert decision.redirection_intent is None


def test_the_human_escalation_intent_on_another_status_opens_a_handoff() -> None:
    decision = route(AnswerStatus.NOT_FOUND_IN_CONTEXT, redirection_intent="human_escalation")

    assert (decision.action, decision.reason, decision.open_handoff) == (
        RouteAction.OPEN_HANDOFF,
        "intent_human_escalation",
        True,
    )


def test_another_declared_intent_is_passed_through() -> None:
    decision = route(AnswerStatus.FOUND_IN_CONTEXT, redirection_intent="open_ticket")

    assert (decision.action, decision.redirection_intent) == (
        RouteAction.SHOW_ANSWER,
        "open_ticket",
    )


def test_not_found_can_show_the_no_answer_text() -> None:
    decision = route(
        AnswerStatus.NOT_FOUND_IN_CONTEXT, replace(RULES, not_found_shows_answer=False)
    )

    assert (decision.action, decision.text, decision.reason) == (
        RouteAction.SHOW_TEXT,
        "NO_ANSWER",
        "no_answer_text",
    )


def test_low_confidence_escalates_when_the_bot_says_so() -> None:
    escalating = replace(RULES, escalate_below_threshold=True)

    low = route(AnswerStatus.FOUND_IN_CONTEXT, escalating, confidence=0.59)
    high = route(AnswerStatus.FOUND_IN_CONTEXT, escalating, confidence=0.6)
    not_configured = route(AnswerStatus.FOUND_IN_CONTEXT, confidence=0.1)
    no_handoff = route(
        AnswerStatus.FOUND_IN_CONTEXT, replace(escalating, handoff_allowed=False), confidence=0.1
    )

    assert (low.action, low.text, low.reason) == (
        RouteAction.OPEN_HANDOFF,
        "HANDOFF",
        "low_confidence",
    )
    assert high.action is not_configured.action is no_handoff.action is RouteAction.SHOW_ANSWER


@pytest.mark.parametrize(
    ("previous_misses", "offered"), [(0, False), (1, False), (2, True), (5, True)]
)
def test_a_human_is_offered_after_n_misses(previous_misses: int, offered: bool) -> None:
    rules = replace(RULES, offer_human_after_misses=3)

    decision = route(AnswerStatus.NOT_FOUND_IN_CONTEXT, rules, previous_misses=previous_misses)
    no_handoff = route(
        AnswerStatus.NOT_FOUND_IN_CONTEXT, replace(rules, handoff_allowed=False), previous_misses=9
    )

    assert decision.offer_human is offered
    assert decision.action is RouteAction.SHOW_ANSWER
    assert no_handoff.offer_human is False


def test_never_offered_when_disabled_or_on_found() -> None:
    assert route(AnswerStatus.NOT_FOUND_IN_CONTEXT, previous_misses=50).offer_human is False
    rules = replace(RULES, offer_human_after_misses=1)
    assert route(AnswerStatus.FOUND_IN_CONTEXT, rules, previous_misses=50).offer_human is False


def test_a_hidden_answer_shows_nothing() -> None:
    decision = route(AnswerStatus.FOUND_IN_CONTEXT, display_answer=False)

    assert (decision.action, decision.text) == (RouteAction.SHOW_ANSWER, "")


def test_an_injection_never_opens_a_handoff() -> None:
    decision = route(AnswerStatus.INJECTION_ATTEMPT, redirection_intent="human_escalation")

    assert (decision.action, decision.security_event, decision.open_handoff) == (
        RouteAction.SHOW_TEXT,
        True,
        False,
    )
