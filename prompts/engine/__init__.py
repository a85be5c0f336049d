"""The prompt engine: plain data in, rendered prompt messages out (see render.prompt_build)."""

from prompts.engine.data import (
    BotSettings,
    BotTexts,
    BusinessRules,
    Chunk,
    ChunkLike,
    EscalationSettings,
    HistoryTurn,
    LexiconEntry,
    LLMSettings,
    RenderedPrompt,
    RetrievalSettings,
    TemplateSource,
)
from prompts.engine.render import TEMPLATE_VARIABLES, condense_prompt_build, prompt_build
from prompts.engine.validation import TemplateProblem, template_check

__all__ = [
    "TEMPLATE_VARIABLES",
    "BotSettings",
    "BotTexts",
    "BusinessRules",
    "Chunk",
    "ChunkLike",
    "EscalationSettings",
    "HistoryTurn",
    "LLMSettings",
    "LexiconEntry",
    "RenderedPrompt",
    "RetrievalSettings",
    "TemplateProblem",
    "TemplateSource",
    "condense_prompt_build",
    "prompt_build",
    "template_check",
]
