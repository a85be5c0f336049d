"""The answer contract's topic and intent rules: the answer's topic, suggestions and redirection intent
checked against what the bot declares (its covered topics and intents), repaired and recorded.

Part of `conversations.contract.enforce`, which applies them after the status rules.
"""

from __future__ import annotations

from conversations.contract.schema import Draft
from conversations.types import SMALL_TALK_TOPIC, UNKNOWN_TOPIC, AnswerStatus, BotRules


def topic_rules_apply(*, draft: Draft, rules: BotRules) -> None:
    """A topic must be a covered one (spelled as declared) or unknown; only an unknown topic carries
    one suggestion, and never a covered topic."""
    if draft.status is AnswerStatus.SMALL_TALK:
        return
    covered = {topic.casefold(): topic for topic in rules.covered_topics}
    if draft.topic != UNKNOWN_TOPIC:
        canonical = covered.get(draft.topic.casefold())
        if canonical is None:
            draft.repair(
                "topic_not_declared",
                f"Topic {draft.topic!r} is not a covered topic; unknown.",
                "topic",
            )
            if not draft.suggested_topics and draft.topic != SMALL_TALK_TOPIC:
                draft.suggested_topics = [draft.topic]
            draft.topic = UNKNOWN_TOPIC
        elif canonical != draft.topic:
            draft.repair(
                "topic_canonicalized", f"Topic {draft.topic!r} is spelled {canonical!r}.", "topic"
            )
            draft.topic = canonical
    if draft.topic != UNKNOWN_TOPIC:
        if draft.suggested_topics:
            draft.repair(
                "suggested_topics_cleared",
                "A known topic forces empty suggested_topics.",
                "suggested_topics",
            )
            draft.suggested_topics = []
        return
    suggestions = [s for s in draft.suggested_topics if s.casefold() not in covered]
    if len(suggestions) != len(draft.suggested_topics):
        draft.repair(
            "suggestion_is_covered_topic",
            "A suggestion must not be a covered topic.",
            "suggested_topics",
        )
    if len(suggestions) > 1:
        draft.repair(
            "suggested_topics_truncated",
            "An unknown topic allows one suggestion.",
            "suggested_topics",
        )
        suggestions = suggestions[:1]
    draft.suggested_topics = suggestions


def intent_rule_apply(*, draft: Draft, rules: BotRules) -> None:
    """A redirection intent the bot does not declare is dropped."""
    intent = draft.redirection_intent
    if intent is not None and not rules.declares_intent(intent):
        draft.repair(
            "redirection_intent_undeclared",
            f"Intent {intent!r} is not declared; null.",
            "redirection_intent",
        )
        draft.redirection_intent = None
