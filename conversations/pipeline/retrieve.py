"""The pipeline's side of retrieval: the bot's settings and the caller's boundary → `rag.retrieval`, and
retrieved hits → the answer engine's `RetrievedChunk` (score = cosine similarity, which the offline
provider and the confidence threshold are measured on)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from conversations.types import RetrievedChunk
from prompts.engine import BotSettings
from rag.embeddings import embed_texts
from rag.retrieval import RetrievalResult, RetrievalScope, RetrievedHit, chunks_retrieve


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
    *, bot: BotSettings, scope: RetrievalScope, question: str, keywords: Sequence[str] = ()
) -> tuple[list[RetrievedChunk], RetrievalResult]:
    result = chunks_retrieve(
        scope=scope,
        question=question,
        keywords=keywords,
        lexicon=[entry.terms for entry in bot.lexicon],
        top_k=bot.retrieval.top_k,
        score_threshold=bot.retrieval.score_threshold,
        language=bot.rules.locale.split("-")[0],
    )
    return [retrieved_chunk(hit) for hit in result.hits], result


def retrieved_chunk(hit: RetrievedHit) -> RetrievedChunk:
    return RetrievedChunk(
        id=hit.chunk_id,
        text=hit.text,
        score=max(0.0, min(1.0, hit.vector_score)),
        rank=hit.rank,
        document_id=hit.document_id,
        title=hit.title,
        page=hit.page_number,
        source=hit.filename,
        start_time=hit.start_time,
        # Known clean at the document's edges; elsewhere the offline provider judges the edge sentence.
        starts_clean=True if hit.document_start else None,
        ends_clean=True if hit.document_end else None,
        vector_score=hit.vector_score,
        vector_rank=hit.vector_rank,
        text_score=hit.text_score,
        text_rank=hit.text_rank,
        fused_score=hit.fused_score,
        rerank_score=hit.rerank_score,
    )


def embedder_for(*, model_id: str) -> Callable[[Sequence[str]], list[list[float]]]:
    """An embedding model as the offline provider's `embed` callable."""
    return lambda texts: embed_texts(list(texts), model_id=model_id)
