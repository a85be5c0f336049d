"""Build the prompts of one chat turn from plain data: the answer prompt and the question-condensing prompt.

This is the engine's public entry point for the answer pipeline; it does no I/O beyond
reading template files and knows nothing about HTTP or the database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from jinja2 import Template

from prompts.engine.data import (
    BotSettings,
    Chunk,
    ChunkLike,
    HistoryTurn,
    RenderedPrompt,
    TemplateSource,
)
from prompts.engine.environment import (
    ANSWER_TEMPLATE,
    CONDENSE_TEMPLATE,
    prompt_environment,
    template_compile,
)

TEMPLATE_VARIABLES = frozenset(
    {
        "context",
        "chat_history",
        "question",
        "locale",
        "covered_topics",
        "excluded_topics",
        "lexicon_groups",
        "explainability",
        "bot",
        "document_languages",
    }
)


def prompt_variables(
    *,
    bot: BotSettings,
    question: str,
    history: Sequence[HistoryTurn | Mapping[str, Any]],
    chunks: Sequence[ChunkLike | Mapping[str, Any]],
    locale: str | None,
    document_languages: Sequence[str] = (),
) -> dict[str, Any]:
    """The variables every prompt template receives (spec section 3, plus `bot` for section 2, and the
    languages of the searched documents when they differ from the question's)."""
    language = locale or bot.rules.locale
    texts = bot.texts(language)
    rules = bot.rules
    return {
        "context": [_chunk_json(Chunk.coerce(chunk)) for chunk in chunks],
        "chat_history": [
            {"role": t.role, "content": t.content} for t in map(HistoryTurn.coerce, history)
        ],
        "question": question,
        "locale": language,
        "covered_topics": list(bot.covered_topics),
        "excluded_topics": list(bot.excluded_topics),
        "lexicon_groups": [
            {"terms": list(e.terms), "definition": e.definition} for e in bot.lexicon
        ],
        "explainability": bot.explainability,
        "document_languages": list(document_languages),
        "bot": {
            **{name: getattr(rules, name) for name in rules.__dataclass_fields__},
            "rag_strictness": bot.rag_strictness,
            "relaxation_statement": bot.relaxation_statement,
            "escalation": {
                "allowed": bot.escalation.allowed,
                "triggers": list(bot.escalation.triggers),
            },
            "texts": {
                "refusal": texts.refusal,
                "no_answer": texts.no_answer,
                "injection_refusal": texts.injection_refusal,
                "escalation": texts.escalation,
                "escalation_unavailable": texts.escalation_unavailable,
            },
        },
    }


def prompt_build(
    *,
    bot: BotSettings,
    question: str,
    history: Sequence[HistoryTurn | Mapping[str, Any]],
    chunks: Sequence[ChunkLike | Mapping[str, Any]],
    locale: str | None = None,
) -> RenderedPrompt:
    """The four-section answer prompt as chat messages: the prompt as system message, the question as user's."""
    variables = prompt_variables(
        bot=bot, question=question, history=history, chunks=chunks, locale=locale
    )
    text = _template(bot.answer_template, ANSWER_TEMPLATE).render(variables)
    return _rendered(text, question, bot.answer_template)


def condense_prompt_build(
    *,
    bot: BotSettings,
    question: str,
    history: Sequence[HistoryTurn | Mapping[str, Any]],
    locale: str | None = None,
    document_languages: Sequence[str] = (),
) -> RenderedPrompt:
    """The prompt that turns a follow-up into a standalone question plus full-text keywords.

    The model is asked for `{"standalone_question": str, "keywords": [str, ...]}`, and with
    `document_languages` (the documents are in other languages than the question) also for
    `"translations": {language: {"question": str, "keywords": [str, ...]}}`.
    """
    variables = prompt_variables(
        bot=bot,
        question=question,
        history=history,
        chunks=[],
        locale=locale,
        document_languages=document_languages,
    )
    text = _template(bot.condense_template, CONDENSE_TEMPLATE).render(variables)
    return _rendered(text, question, bot.condense_template)


def _template(choice: TemplateSource, default_name: str) -> Template:
    if choice.source is not None:
        return template_compile(choice.source)
    return prompt_environment().get_template(default_name)


def _rendered(text: str, question: str, choice: TemplateSource) -> RenderedPrompt:
    messages = [{"role": "system", "content": text}, {"role": "user", "content": question}]
    digest = hashlib.sha256(text.encode()).hexdigest()
    return RenderedPrompt(messages=messages, text=text, template=choice.label, sha256=digest)


def _chunk_json(chunk: ChunkLike) -> dict[str, Any]:
    return {
        "id": chunk.id,
        "title": chunk.title,
        "source": chunk.source,
        "page": chunk.page,
        "text": chunk.text,
    }
