"""What a turn's answer is built from: the bot's curated answer the question matches, or the chunks
retrieval finds; the stream's retrieval phases; the chunks whose relevance reaches the bot's threshold."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from conversations.pipeline.condense import CondensedQuestion
from conversations.pipeline.curated import (
    CuratedMatch,
    curated_answer_match,
    curated_answers_get,
    curated_chunk,
)
from conversations.pipeline.events import PipelineEmitter
from conversations.pipeline.retrieve import chunks_for_question
from conversations.pipeline.run.timing import ms_since
from conversations.types import BotRules
from prompts.engine import BotSettings
from rag.retrieval import RetrievalResult, RetrievalScope, RetrievedChunk
from textmodels.embeddings import embed_query


@dataclass(frozen=True)
class TurnContext:
    """What the answer is built from: the condensed question, and the chunks found for it (by
    retrieval, or the one curated answer that matched). A guarded message has none."""

    condensed: CondensedQuestion
    retrieval: RetrievalResult | None = None
    chunks: list[RetrievedChunk] = field(default_factory=list)
    curated: CuratedMatch | None = None
    curated_ms: dict[str, int] = field(default_factory=dict)


def context_find(
    *, bot: BotSettings, scope: RetrievalScope, condensed: CondensedQuestion, curated_answers: bool
) -> TurnContext:
    """The chunks the answer is built from: the curated answer the question matches, else what
    retrieval finds (with the question's vector when the curated look-up embedded it)."""
    vector, curated, curated_ms = (
        curated_lookup(bot=bot, scope=scope, question=condensed.question)
        if curated_answers
        else (None, None, {})
    )
    if curated is not None:
        return TurnContext(
            condensed=condensed,
            chunks=[curated_chunk(match=curated)],
            curated=curated,
            curated_ms=curated_ms,
        )
    chunks, retrieval = chunks_for_question(
        bot=bot,
        scope=scope,
        question=condensed.question,
        keywords=(*condensed.keywords, *condensed.translations),
        query_embedding=vector,
    )
    return TurnContext(
        condensed=condensed, retrieval=retrieval, chunks=chunks, curated_ms=curated_ms
    )


def retrieval_report(*, emitter: PipelineEmitter, context: TurnContext) -> None:
    """The stream's retrieval, reranking and compiling phases, once the chunks are known."""
    retrieval = context.retrieval
    emitter.retrieval_completed(
        retrieved_count=retrieval.candidates if retrieval else len(context.chunks)
    )
    if retrieval is not None and retrieval.reranked:
        count = retrieval.candidates
        emitter.reranking_completed(
            initial_count=count, reranked_count=count, kept_count=len(context.chunks)
        )
    emitter.compiling_results_started()


def relevant(chunks: Sequence[RetrievedChunk], rules: BotRules) -> list[RetrievedChunk]:
    """The chunks whose relevance (rag.relevance's probability) reaches the bot's threshold."""
    return [chunk for chunk in chunks if chunk.score >= rules.confidence_threshold]


def curated_lookup(
    *, bot: BotSettings, scope: RetrievalScope, question: str
) -> tuple[list[float] | None, CuratedMatch | None, dict[str, int]]:
    """The question's vector (None when the bot has no curated answer: retrieval embeds it), the
    curated answer it matches, and the milliseconds spent embedding and matching (the look-up alone
    when there is nothing to match: it is a step of the turn all the same)."""
    started = time.monotonic()
    curated = curated_answers_get(bot_id=bot.bot_id, workspace_id=scope.workspace_id)
    if curated is None:
        return None, None, {"match": ms_since(started)}
    embedding_started = time.monotonic()
    vector = embed_query(question, model_id=curated.model_id)
    embed_ms = ms_since(embedding_started)
    match = curated_answer_match(curated=curated, vector=vector)
    return vector, match, {"embed": embed_ms, "match": ms_since(started) - embed_ms}
