"""`PipelineRun`: what one question's run through the pipeline produced, stage by stage, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field

from conversations.answering import GeneratedAnswer
from conversations.pipeline.condense import CondensedQuestion
from conversations.pipeline.curated import CuratedMatch
from conversations.routing import RouteDecision
from conversations.types import BotRules
from guard.detector import Detection
from prompts.engine import RenderedPrompt
from rag.retrieval import RetrievalResult, RetrievedChunk


@dataclass(frozen=True)
class PipelineRun:
    question: str
    condensed: CondensedQuestion
    retrieval: RetrievalResult | None  # None when a guard answered
    chunks: list[RetrievedChunk]
    prompt: RenderedPrompt
    generated: GeneratedAnswer
    rules: BotRules
    route: RouteDecision
    latencies: dict[str, int] = field(default_factory=dict)
    # The curated answer that answered the question instead of retrieval and the LLM.
    curated: CuratedMatch | None = None
    # The detector's verdict when the message fell in the bot's watch band: answered, recorded.
    watched: Detection | None = None
