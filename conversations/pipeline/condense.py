"""Question condensing: a follow-up plus the chat history → a standalone question and full-text keywords.

With a remote LLM the bot's condensing prompt (`prompts.engine.condense_prompt_build`) is sent
once, without retries on a bad output: any failure keeps the question as asked. The offline
provider has no model to rewrite with, so it keeps the question and adds the previous visitor
message as keywords, which gives the full-text side the conversation's subject.

When the documents searched are in other languages than the question (`document_languages`), the LLM is
asked even for a first question, and also gives the question and keywords in those languages
(`translations`), which the full-text side searches too: a French question then finds English chunks.
Offline there is nothing to translate with; the question is searched as asked.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from core.llm.errors import LLMError
from core.llm.gateway import llm_complete
from core.llm.types import LLMEndpoint
from prompts.engine import BotSettings, HistoryTurn, condense_prompt_build

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
MAX_KEYWORDS = 12


@dataclass(frozen=True)
class CondensedQuestion:
    question: str
    keywords: tuple[str, ...] = ()
    # "none" (no history), "llm", "offline", or "failed:<code>" (the question kept as asked).
    method: str = "none"
    prompt_hash: str = ""
    raw_output: str = ""
    ms: int = 0
    # the question and its keywords in each of the documents' other languages (for the full-text side)
    translations: tuple[str, ...] = ()


def question_condense(
    *,
    bot: BotSettings,
    question: str,
    history: Sequence[HistoryTurn],
    endpoint: LLMEndpoint | None,
    document_languages: Sequence[str] = (),
) -> CondensedQuestion:
    if not history and not (document_languages and endpoint is not None):
        return CondensedQuestion(question=question)
    started = time.monotonic()
    if endpoint is None:
        previous = [turn.content for turn in history if turn.role == "user"][-1:]
        return CondensedQuestion(
            question=question, keywords=tuple(previous), method="offline", ms=_ms(started)
        )
    prompt = condense_prompt_build(
        bot=bot,
        question=question,
        history=history,
        locale=bot.rules.locale,
        document_languages=document_languages,
    )
    try:
        raw = llm_complete(endpoint=endpoint, messages=prompt.messages).text
    except LLMError as error:
        return CondensedQuestion(
            question=question,
            keywords=(),
            method=f"failed:{error.code}",
            prompt_hash=prompt.sha256,
            ms=_ms(started),
        )
    data = _parse(raw)
    standalone = data.get("standalone_question") if data is not None else None
    if data is None or not isinstance(standalone, str) or not standalone.strip():
        return CondensedQuestion(
            question=question,
            keywords=(),
            method="failed:unparsable",
            prompt_hash=prompt.sha256,
            raw_output=raw,
            ms=_ms(started),
        )
    keywords = _words(data.get("keywords"))
    translations = _translations(data.get("translations"), languages=document_languages)
    return CondensedQuestion(
        question=standalone.strip(),
        keywords=keywords,
        method="llm",
        prompt_hash=prompt.sha256,
        raw_output=raw,
        ms=_ms(started),
        translations=translations,
    )


def _parse(raw: str) -> dict[str, object] | None:
    match = _OBJECT.search(raw)
    try:
        data = json.loads(match.group(0)) if match else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _words(value: object) -> tuple[str, ...]:
    items = value if isinstance(value, list) else []
    words = tuple(str(word).strip() for word in items if isinstance(word, str) and word.strip())
    return words[:MAX_KEYWORDS]


def _translations(value: object, *, languages: Sequence[str]) -> tuple[str, ...]:
    """'question keyword keyword…' for each language asked for (others the model added are ignored)."""
    if not isinstance(value, dict):
        return ()
    out = []
    for language in languages:
        entry = value.get(language)
        if not isinstance(entry, dict):
            continue
        question = entry.get("question") if isinstance(entry.get("question"), str) else ""
        text = " ".join([str(question).strip(), *_words(entry.get("keywords"))]).strip()
        if text:
            out.append(text)
    return tuple(out)


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
