"""The adapters from a real bot's settings (prompts.selectors.bot_settings_get) to the answer engine."""

from __future__ import annotations

import pytest

from bots.models import Bot
from conversations.adapters import bot_rules_from_settings, llm_endpoint_for_bot
from prompts.engine import prompt_build
from prompts.selectors import bot_settings_get
from rag.relevance import answer_threshold_default
from rag.retrieval import RetrievedChunk
from tests.support.factories import BotFactory, TopicFactory

pytestmark = pytest.mark.django_db


def test_bot_rules_follow_the_bot(settings) -> None:  # type: ignore[no-untyped-def]
    bot: Bot = BotFactory(
        escalation_allowed=True,
        escalation_confidence_threshold=0.7,
        llm_provider="openai",
        llm_model="mistral-small",
        llm_timeout_seconds=20,
    )
    TopicFactory(bot=bot)
    bot_settings = bot_settings_get(bot_id=bot.pk)

    rules = bot_rules_from_settings(bot=bot_settings)
    endpoint = llm_endpoint_for_bot(bot=bot_settings)

    assert rules.covered_topics == bot_settings.covered_topics and rules.covered_topics
    assert (rules.handoff_allowed, rules.redirection_intents) == (True, ("human_escalation",))
    assert (rules.confidence_threshold, rules.escalate_below_threshold) == (0.7, True)
    assert (rules.refusal_text, rules.out_of_scope_text) == (
        bot.injection_refusal_text,
        bot.refusal_text,
    )
    assert (rules.no_answer_text, rules.handoff_text) == (bot.no_answer_text, bot.escalation_text)
    assert rules.handoff_unavailable_text == bot.escalation_unavailable_text
    assert endpoint is not None
    assert (endpoint.model, endpoint.read_timeout, endpoint.base_url) == (
        "mistral-small",
        20.0,
        settings.LLM_BASE_URL,
    )


def test_a_default_bot_is_offline_and_does_not_hand_off() -> None:
    bot_settings = bot_settings_get(bot_id=BotFactory().pk)

    rules = bot_rules_from_settings(bot=bot_settings)

    assert llm_endpoint_for_bot(bot=bot_settings) is None
    assert (rules.handoff_allowed, rules.redirection_intents) == (False, ())
    assert (rules.confidence_threshold, rules.escalate_below_threshold) == (
        answer_threshold_default(),
        False,
    )


def test_retrieved_chunks_render_into_the_prompt() -> None:
    bot_settings = bot_settings_get(bot_id=BotFactory().pk)
    chunks = [
        RetrievedChunk(
            id="c-41",
            text="Helmets come with every rental.",
            score=0.8,
            rank=1,
            title="Rental guide",
            source="guide.md",
            page=3,
        )
    ]

    rendered = prompt_build(bot=bot_settings, question="Helmet?", history=[], chunks=chunks)

    assert "c-41" in rendered.text
    assert "Helmets come with every rental." in rendered.text
    assert rendered.messages[-1] == {"role": "user", "content": "Helmet?"}
