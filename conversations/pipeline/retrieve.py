"""The pipeline's side of retrieval: the bot's settings and the caller's boundary → `rag.retrieval`,
whose `RetrievedChunk`s the answer engine reads as they are."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from conversations.llm.choose import Estimate
from prompts.engine import BotSettings
from rag.relevance.estimate import ChunkEstimate, ChunkInput
from rag.relevance.service import retrieved_estimate
from rag.retrieval import RetrievalResult, RetrievalScope, RetrievedChunk, chunks_retrieve
from textmodels.embeddings import embed_query, embed_texts


def scope_for(
    *,
    workspace_id: str,
    bot_id: str | None,
    conversation_id: str | None,
    external_user_id: str | None,
    document_ids: Sequence[str] | None = None,
) -> RetrievalScope:
    """The documents a turn (or a rag_search) may read: the bot's (or the whole workspace's shared ones),
    the session's own, and only the given external user's private ones."""
    return RetrievalScope(
        workspace_id=workspace_id,
        bot_ids=[bot_id] if bot_id else None,
        conversation_id=conversation_id,
        external_user_id=external_user_id or "",
        document_ids=list(document_ids) if document_ids is not None else None,
    )


def chunks_for_question(
    *,
    bot: BotSettings,
    scope: RetrievalScope,
    question: str,
    keywords: Sequence[str] = (),
    query_embedding: Sequence[float] | None = None,
) -> tuple[list[RetrievedChunk], RetrievalResult]:
    """`query_embedding`: the question's vector when the turn already computed it (see curated)."""
    result = chunks_retrieve(
        scope=scope,
        question=question,
        keywords=keywords,
        lexicon=[entry.terms for entry in bot.lexicon],
        top_k=bot.retrieval.top_k,
        score_threshold=bot.retrieval.score_threshold,
        language=bot.rules.locale.split("-")[0],
        query_embedding=query_embedding,
    )
    return result.hits, result


def embedder_for(*, model_id: str) -> Callable[[Sequence[str]], list[list[float]]]:
    """An embedding model as the offline provider's `embed` callable. One text alone is the question
    (the composer's passages are stored): the query's vector, which retrieval has just computed and
    which a local model keeps (`embed_query`)."""

    def embed(texts: Sequence[str]) -> list[list[float]]:
        if len(texts) == 1:
            return [embed_query(texts[0], model_id=model_id)]
        return embed_texts(list(texts), model_id=model_id)

    return embed


def estimator_for(
    *, model_id: str, multi_model_id: str, known: Mapping[str, ChunkInput] | None = None
) -> Estimate:
    """The relevance estimate of chunks' units with the workspace's models, as the offline composer
    reads it (the chunks' stored units and vectors, the question's vector that retrieval computed, and
    each chunk's probability as retrieval estimated it: its score). `known`: what retrieval read of the
    chunks (`RetrievalResult.relevance_inputs`), so a turn reads it once."""

    def estimate(
        question: str, language: str, chunks: Sequence[RetrievedChunk]
    ) -> list[ChunkEstimate]:
        return retrieved_estimate(
            question=question,
            question_language=language,
            chunks=chunks,
            model_id=model_id,
            multi_model_id=multi_model_id,
            probabilities={chunk.id: chunk.score for chunk in chunks},
            known=known,
        )

    return estimate
