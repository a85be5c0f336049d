"""Question condensing: a follow-up plus the chat history → a standalone question and full-text keywords.

With a remote LLM the bot's condensing prompt (`prompts.engine.condense_prompt_build`) is sent
once, without retries on a bad output: any failure keeps the question as asked. The offline
provider has no model to rewrite with, so it keeps the question and adds the previous visitor
message as keywords, which gives the full-text side the conversation's subject.
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


def question_condense(
    *, bot: BotSettings, question: str, history: Sequence[HistoryTurn], endpoint: LLMEndpoint | None
) -> CondensedQuestion:
    if not history:
        return CondensedQuestion(question=question)
    started = time.monotonic()
    if endpoint is None:
        previous = [turn.content for turn in history if turn.role == "user"][-1:]
        return CondensedQuestion(question, tuple(previous), "offline", ms=_ms(started))
    prompt = condense_prompt_build(
        bot=bot, question=question, history=history, locale=bot.rules.locale
    )
    try:
        raw = llm_complete(endpoint=endpoint, messages=prompt.messages).text
    except LLMError as error:
        return CondensedQuestion(
            question, (), f"failed:{error.code}", prompt.sha256, ms=_ms(started)
        )
    standalone, keywords = _parse(raw)
    if not standalone:
        return CondensedQuestion(
            question, (), "failed:unparsable", prompt.sha256, raw, _ms(started)
        )
    return CondensedQuestion(standalone, keywords, "llm", prompt.sha256, raw, _ms(started))


def _parse(raw: str) -> tuple[str, tuple[str, ...]]:
    match = _OBJECT.search(raw)
    try:
        data = json.loads(match.group(0)) if match else None
    except ValueError:
        return "", ()
    if not isinstance(data, dict) or not isinstance(data.get("standalone_question"), str):
        return "", ()
    keywords = data.get("keywords")
    if not isinstance(keywords, list):
        keywords = []
    words = tuple(str(word).strip() for word in keywords if isinstance(word, str) and word.strip())
    return data["standalone_question"].strip(), words[:MAX_KEYWORDS]


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
