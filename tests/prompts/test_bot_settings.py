"""bot_settings_get gives the pipeline every setting as plain data; the demo bot is complete and idempotent."""

from __future__ import annotations

import dataclasses

import pytest

from bots.models import Bot, BotLocaleText
from bots.texts import BUILT_IN_TEXTS
from prompt_context.models import SMALL_TALK, Topic
from prompts.engine import prompt_build
from prompts.selectors import BotNotFound, bot_settings_get
from prompts.services.demo import demo_bot_ensure
from tests.support.factories import BotFactory, LexiconGroupFactory, TopicFactory, WorkspaceFactory


@pytest.mark.django_db
def test_settings_carry_rules_topics_lexicon_texts_and_llm_settings(
    django_assert_num_queries,
) -> None:
    bot = BotFactory(
        escalation_allowed=True,
        escalation_triggers="talk to a human\n\n agent ",
        llm_model="gpt-4o-mini",
        retrieval_top_k=8,
        refusal_text="Out of scope.",
    )
    BotLocaleText.objects.create(
        bot=bot, locale="fr", refusal_text="Hors sujet.", no_answer_text="Rien trouvé."
    )
    (
        TopicFactory(bot=bot, name="Battery"),
        TopicFactory(bot=bot, name="Cars", kind=Topic.Kind.EXCLUDED),
    )
    LexiconGroupFactory(bot=bot, terms=["e-bike", "pedelec"], definition="A bike with a motor.")

    with django_assert_num_queries(
        1
    ):  # the bot, with its locale texts, active templates, topics and lexicon
        settings = bot_settings_get(bot_id=bot.pk)
    assert settings.rules.name == bot.name and settings.covered_topics == ("Battery",)
    assert settings.excluded_topics == ("Cars",)
    assert settings.lexicon[0].terms == ("e-bike", "pedelec")
    assert settings.escalation.triggers == ("talk to a human", "agent")
    assert settings.redirection_intents == ("human_escalation",)
    assert (settings.llm.model, settings.retrieval.top_k) == ("gpt-4o-mini", 8)
    # The bot's own texts first (fr-CA finds fr); a language it has none in gets Parley's own texts in
    # that language; one Parley has none in either gets the bot's default locale's.
    assert settings.texts("fr-CA").refusal == "Hors sujet."
    assert settings.texts("de").refusal == BUILT_IN_TEXTS["de"]["refusal"]
    assert settings.texts("nl").refusal == "Out of scope."
    assert dataclasses.asdict(settings)["rules"]["name"] == bot.name  # plain data all the way down


@pytest.mark.django_db
def test_a_bot_outside_the_workspace_is_not_found() -> None:
    bot = BotFactory()
    with pytest.raises(BotNotFound):
        bot_settings_get(bot_id=bot.pk, workspace_id=WorkspaceFactory().pk)


@pytest.mark.django_db
def test_the_demo_bot_is_fully_configured_and_created_once() -> None:
    first, second = demo_bot_ensure(), demo_bot_ensure()
    assert first.pk == second.pk and Bot.objects.count() == 1
    settings = bot_settings_get(bot_id=first.pk)
    rules = dataclasses.asdict(settings.rules)
    assert all(rules.values()), f"empty section 2 fields: {[k for k, v in rules.items() if not v]}"
    assert SMALL_TALK in settings.covered_topics and len(settings.covered_topics) == 5
    assert "Warranty & repairs" in settings.covered_topics and settings.excluded_topics
    assert all(len(entry.terms) >= 2 for entry in settings.lexicon) and len(settings.lexicon) >= 5
    text = prompt_build(
        bot=settings, question="When will my order arrive?", history=[], chunks=[]
    ).text
    assert "Lumen Bikes" in text and "# SECTION 4" in text
