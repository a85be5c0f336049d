"""The pipeline's side of retrieval: the bot's settings and the caller's boundary → `rag.retrieval`,
whose `RetrievedChunk`s the answer engine reads as they are."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from conversations.llm.choose import PassagesLookup
from prompts.engine import BotSettings
from rag.embeddings import MULTI_MODEL_ID, embed_query, embed_texts
from rag.passages.selectors import StoredPassages, chunk_passages_get
from rag.retrieval import RetrievalResult, RetrievalScope, RetrievedChunk, chunks_retrieve


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


def passages_lookup_for(*, model_id: str) -> PassagesLookup:
    """The stored passages of retrieved chunks, as the offline composer reads them: the workspace
    model's vectors, or the multilingual model's for a question across languages."""

    def lookup(chunk_ids: Sequence[str], multilingual: bool) -> dict[str, StoredPassages]:
        return chunk_passages_get(
            chunk_ids=chunk_ids,
            model_id=MULTI_MODEL_ID if multilingual else model_id,
            multilingual=multilingual,
        )

    return lookup
