"""Reads for the answer pipeline and the admin: a bot's settings as plain data, and template versions.

bot_settings_get is the only way other apps should learn about a bot's configuration.
"""

from __future__ import annotations

import difflib
from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import OuterRef
from django.db.models.functions import JSONObject

from bots.models import Bot, BotLocaleText, PromptTemplateVersion
from prompt_context.selectors import prompt_context_annotations, prompt_context_from_row
from prompts.engine import (
    BotSettings,
    BotTexts,
    BusinessRules,
    EscalationSettings,
    LexiconEntry,
    LLMSettings,
    RetrievalSettings,
    TemplateSource,
)


class BotNotFound(Exception):
    code = "bot_not_found"


def bot_settings_get(*, bot_id: Any, workspace_id: Any | None = None) -> BotSettings:
    """Everything about one bot that a chat turn needs; raises BotNotFound (optionally scoped to a workspace).

    One query: the locale texts, the active templates, the topics and the lexicon come as array
    subqueries on the bot's row (a turn reads this on every message).
    """
    locale_texts = BotLocaleText.objects.filter(bot_id=OuterRef("pk")).order_by("locale")
    templates = PromptTemplateVersion.objects.filter(bot_id=OuterRef("pk"), is_active=True)
    queryset = Bot.objects.annotate(
        extra_texts=ArraySubquery(
            locale_texts.values(json=JSONObject(locale="locale", refusal="refusal_text", no_answer="no_answer_text"))
        ),
        active_templates=ArraySubquery(
            templates.values(json=JSONObject(kind="kind", number="number", source="source"))
        ),
        **prompt_context_annotations(),
    )
    if workspace_id is not None:
        queryset = queryset.filter(workspace_id=workspace_id)
    bot = queryset.filter(pk=bot_id).first()
    if bot is None:
        raise BotNotFound("no such bot")
    context = prompt_context_from_row(bot)
    active = {row["kind"]: row for row in bot.active_templates}
    return BotSettings(
        bot_id=str(bot.pk),
        workspace_id=str(bot.workspace_id),
        rules=BusinessRules(**{name: getattr(bot, name) for name in BusinessRules.__dataclass_fields__}),
        rag_strictness=bot.rag_strictness,
        relaxation_statement=bot.relaxation_statement,
        explainability=bot.explainability,
        covered_topics=context.covered_topics,
        excluded_topics=context.excluded_topics,
        lexicon=tuple(LexiconEntry(terms=terms, definition=definition) for terms, definition in context.lexicon),
        escalation=EscalationSettings(
            allowed=bot.escalation_allowed,
            triggers=tuple(line.strip() for line in bot.escalation_triggers.splitlines() if line.strip()),
            confidence_threshold=bot.escalation_confidence_threshold,
        ),
        llm=LLMSettings(
            provider=bot.llm_provider,
            model=bot.llm_model,
            temperature=bot.llm_temperature,
            max_output_tokens=bot.llm_max_output_tokens,
            timeout_seconds=bot.llm_timeout_seconds,
        ),
        retrieval=RetrievalSettings(
            top_k=bot.retrieval_top_k, score_threshold=bot.retrieval_score_threshold, hybrid=bot.retrieval_hybrid
        ),
        texts_by_locale=_texts_by_locale(bot),
        answer_template=_template_source(active.get(PromptTemplateVersion.Kind.ANSWER)),
        condense_template=_template_source(active.get(PromptTemplateVersion.Kind.CONDENSE)),
    )


def template_versions_list(*, bot_id: Any, kind: str) -> list[PromptTemplateVersion]:
    return list(
        PromptTemplateVersion.objects.filter(bot_id=bot_id, kind=kind).select_related("author").order_by("-number")
    )


def template_versions_diff(*, bot_id: Any, kind: str, old: int, new: int) -> list[str]:
    """A unified diff between two versions of one bot's template, line by line."""
    sources = dict(
        PromptTemplateVersion.objects.filter(bot_id=bot_id, kind=kind, number__in=[old, new]).values_list(
            "number", "source"
        )
    )
    before, after = sources.get(old, ""), sources.get(new, "")
    return list(
        difflib.unified_diff(before.splitlines(), after.splitlines(), fromfile=f"v{old}", tofile=f"v{new}", lineterm="")
    )


def _texts_by_locale(bot: Bot) -> dict[str, BotTexts]:
    def texts(refusal: str, no_answer: str) -> BotTexts:
        return BotTexts(
            refusal=refusal,
            no_answer=no_answer,
            injection_refusal=bot.injection_refusal_text,
            escalation=bot.escalation_text,
            escalation_unavailable=bot.escalation_unavailable_text,
        )

    result = {bot.locale.lower(): texts(bot.refusal_text, bot.no_answer_text)}
    for row in bot.extra_texts:
        result.setdefault(row["locale"].lower(), texts(row["refusal"], row["no_answer"]))
    return result


def _template_source(version: dict[str, Any] | None) -> TemplateSource:
    if version is None:
        return TemplateSource()
    return TemplateSource(source=version["source"], version=version["number"])
