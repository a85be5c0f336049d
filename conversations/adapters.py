"""Thin adapters from the prompt engine's plain data (prompts.engine) to the answer engine's types.

A turn reads the bot once with prompts.selectors.bot_settings_get; these turn that BotSettings
into the contract's BotRules and the gateway's LLMEndpoint. (Retrieved chunks need no adapter: the
prompt engine reads them through its `ChunkLike` protocol.)
"""

from __future__ import annotations

from conversations.types import BotRules
from core.llm.types import LLMEndpoint
from prompts.engine import BotSettings
from rag.relevance import answer_threshold_default


def bot_rules_from_settings(*, bot: BotSettings, locale: str | None = None) -> BotRules:
    """The bot's scope, texts (for `locale`), section 2.6 escalation and answer settings, as BotRules."""
    texts = bot.texts(locale)
    threshold = bot.escalation.confidence_threshold
    return BotRules(
        covered_topics=bot.covered_topics,
        excluded_topics=bot.excluded_topics,
        redirection_intents=bot.redirection_intents,
        handoff_allowed=bot.escalation.allowed,
        refusal_text=texts.injection_refusal,
        out_of_scope_text=texts.refusal,
        no_answer_text=texts.no_answer,
        handoff_text=texts.escalation,
        handoff_unavailable_text=texts.escalation_unavailable,
        # A probability that the best chunk is about the question (rag.relevance), whatever the model
        # and the language; the bot's own threshold when it sets one.
        confidence_threshold=threshold if threshold > 0 else answer_threshold_default(),
        escalate_below_threshold=threshold > 0,
        injection_threshold=bot.injection_threshold,
        locale=(locale or bot.rules.locale).lower(),
        max_answer_sentences=bot.answer_max_sentences,
        rag_strictness=bot.rag_strictness,
        relaxation_statement=bot.relaxation_statement,
    )


def llm_endpoint_for_bot(*, bot: BotSettings) -> LLMEndpoint | None:
    """The remote endpoint for a bot whose provider is "openai" (URL and key from settings), else None."""
    if bot.llm.provider != "openai":
        return None
    overrides: dict[str, object] = {
        "temperature": bot.llm.temperature,
        "max_tokens": bot.llm.max_output_tokens,
        "read_timeout": float(bot.llm.timeout_seconds),
    }
    if bot.llm.model:
        overrides["model"] = bot.llm.model
    return LLMEndpoint.from_settings(**overrides)
