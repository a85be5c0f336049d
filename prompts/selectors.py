"""Reads for the answer pipeline and the admin: a bot's settings as plain data, and template versions.

bot_settings_get is the only way other apps should learn about a bot's configuration.
"""

from __future__ import annotations

import difflib
import json
import uuid
from types import SimpleNamespace
from typing import Any

from django.db import connection
from django.db.models import Count, Q

from bots.models import Bot, PromptTemplateVersion
from core.errors import ErrorKind, ParleyError
from prompt_context.selectors import PROMPT_CONTEXT_COLUMNS_SQL, prompt_context_from_json
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


class BotNotFound(ParleyError):
    code = "bot_not_found"
    kind = ErrorKind.NOT_FOUND


_SETTINGS_SQL = """
SELECT row_to_json(b)::text,
       (SELECT coalesce(json_agg(json_build_object('locale', t.locale, 'refusal', t.refusal_text,
                                                   'no_answer', t.no_answer_text,
                                                   'injection_refusal', t.injection_refusal_text,
                                                   'escalation', t.escalation_text,
                                                   'escalation_unavailable', t.escalation_unavailable_text)
                                 ORDER BY t.locale), '[]')::text
        FROM bots_botlocaletext AS t WHERE t.bot_id = b.id),
       (SELECT coalesce(json_agg(json_build_object('kind', v.kind, 'number', v.number, 'source', v.source)), '[]')::text
        FROM bots_prompttemplateversion AS v WHERE v.bot_id = b.id AND v.is_active),
       {prompt_context}
FROM bots_bot AS b
WHERE b.id = %(bot_id)s::uuid AND (%(workspace_id)s::uuid IS NULL OR b.workspace_id = %(workspace_id)s::uuid)
""".replace("{prompt_context}", PROMPT_CONTEXT_COLUMNS_SQL)


def bot_settings_get(*, bot_id: Any, workspace_id: Any | None = None) -> BotSettings:
    """Everything about one bot that a chat turn needs; raises BotNotFound (optionally scoped to a workspace).

    One statement, written in SQL: the bot's row, and its locale texts, active templates, topics and
    lexicon as JSON. A turn reads this on every message; the same read through the ORM (annotations or
    prefetches) spent many times the statement's own time building the query in Python
    (docs/decisions/answer-path-cpu.md).
    """
    try:
        ids = {
            "bot_id": str(uuid.UUID(str(bot_id))),
            "workspace_id": None if workspace_id is None else str(uuid.UUID(str(workspace_id))),
        }
    except ValueError as error:
        raise BotNotFound("no such bot") from error
    with connection.cursor() as cursor:
        cursor.execute(_SETTINGS_SQL, ids)
        row = cursor.fetchone()
    if row is None:
        raise BotNotFound("no such bot")
    bot = SimpleNamespace(**json.loads(row[0]))
    extra_texts, templates = json.loads(row[1]), json.loads(row[2])
    context = prompt_context_from_json(topics=row[3], lexicon=row[4])
    active = {template["kind"]: template for template in templates}
    return BotSettings(
        bot_id=str(bot.id),
        workspace_id=str(bot.workspace_id),
        rules=BusinessRules(
            **{name: getattr(bot, name) for name in BusinessRules.__dataclass_fields__}
        ),
        rag_strictness=bot.rag_strictness,
        relaxation_statement=bot.relaxation_statement,
        explainability=bot.explainability,
        covered_topics=context.covered_topics,
        excluded_topics=context.excluded_topics,
        lexicon=tuple(
            LexiconEntry(terms=terms, definition=definition)
            for terms, definition in context.lexicon
        ),
        escalation=EscalationSettings(
            allowed=bot.escalation_allowed,
            triggers=tuple(
                line.strip() for line in bot.escalation_triggers.splitlines() if line.strip()
            ),
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
            top_k=bot.retrieval_top_k,
            score_threshold=bot.retrieval_score_threshold,
            hybrid=bot.retrieval_hybrid,
        ),
        texts_by_locale=_texts_by_locale(bot, extra_texts),
        answer_locales=tuple(
            code for code in bot.answer_locales.replace(",", " ").lower().split() if code
        ),
        answer_max_sentences=bot.answer_max_sentences,
        answer_template=_template_source(active.get(PromptTemplateVersion.Kind.ANSWER)),
        condense_template=_template_source(active.get(PromptTemplateVersion.Kind.CONDENSE)),
        injection_threshold=bot.injection_threshold,
        injection_watch=bot.injection_watch,
    )


def template_versions_list(*, bot_id: Any, kind: str) -> list[PromptTemplateVersion]:
    return list(
        PromptTemplateVersion.objects.filter(bot_id=bot_id, kind=kind)
        .select_related("author")
        .order_by("-number")
    )


def template_versions_diff(*, bot_id: Any, kind: str, old: int, new: int) -> list[str]:
    """A unified diff between two versions of one bot's template, line by line."""
    sources = dict(
        PromptTemplateVersion.objects.filter(
            bot_id=bot_id, kind=kind, number__in=[old, new]
        ).values_list("number", "source")
    )
    before, after = sources.get(old, ""), sources.get(new, "")
    return list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile=f"v{old}",
            tofile=f"v{new}",
            lineterm="",
        )
    )


def _texts_by_locale(bot: Any, extra_texts: list[dict[str, str]]) -> dict[str, BotTexts]:
    """The default locale's texts from the bot's row, then each extra locale's (an empty text falls back)."""
    default = BotTexts(
        refusal=bot.refusal_text,
        no_answer=bot.no_answer_text,
        injection_refusal=bot.injection_refusal_text,
        escalation=bot.escalation_text,
        escalation_unavailable=bot.escalation_unavailable_text,
    )
    result = {bot.locale.lower(): default}
    for row in extra_texts:
        result.setdefault(
            row["locale"].lower(),
            BotTexts(
                refusal=row["refusal"],
                no_answer=row["no_answer"],
                injection_refusal=row["injection_refusal"] or default.injection_refusal,
                escalation=row["escalation"] or default.escalation,
                escalation_unavailable=row["escalation_unavailable"]
                or default.escalation_unavailable,
            ),
        )
    return result


def _template_source(version: dict[str, Any] | None) -> TemplateSource:
    if version is None:
        return TemplateSource()
    return TemplateSource(source=version["source"], version=version["number"])


def bot_documents_count(*, bot_id: Any) -> dict[str, int]:
    """The documents the bot answers from ("ready": ingested, given to it, not a conversation's own
    upload) and those on their way ("pending": given to it, still processing). With none ready the bot
    answers "not found" to every question: the bot's page and Try it say so (issue 51). Read through
    the bot's reverse relation, so this app need not import rag's models (the two sit side by side)."""
    try:
        pk = uuid.UUID(str(bot_id))
    except ValueError:  # the admin's change page answers a malformed id itself
        return {"ready": 0, "pending": 0}
    given = Q(documents__conversation__isnull=True)
    counts = Bot.objects.filter(pk=pk).aggregate(
        ready=Count("documents", filter=given & Q(documents__status="ready")),
        pending=Count(
            "documents", filter=given & Q(documents__status__in=("pending", "processing"))
        ),
    )
    return {"ready": counts["ready"] or 0, "pending": counts["pending"] or 0}
