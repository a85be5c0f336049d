"""A retrieval's parameters and results, and the values every retrieval statement binds from them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from rag.language import search_config_for, ts_config_map
from rag.retrieval.bm25 import EXACT_DEPTH


@dataclass(frozen=True)
class HybridParams:
    workspace_id: str
    model_id: str
    query_text: str
    query_embedding: Sequence[
        float
    ]  # () for the full-text statement, which runs before the embedding exists
    bot_ids: Sequence[str] | None  # None: every shared document of the workspace
    conversation_id: str | None
    external_user_id: str | None  # None: no boundary (a server key acting for nobody in particular)
    document_ids: Sequence[str] | None
    vector_weight: float
    text_weight: float
    rrf_k: float
    candidates: int
    pool: int  # fused rows returned (before the score threshold, the reranker and top k)
    fusion_method: str = "rrf"  # "rrf" (the weights and rrf_k) or "convex" (the shares)
    vector_share: float = 0.5
    # The multilingual side: its model ("" none), the question's vector of it, its RRF weight and share.
    multi_model_id: str = ""
    multi_embedding: Sequence[float] = ()
    multi_weight: float = 0.0
    multi_share: float = 0.0
    # The question's language (ISO 639-1, '' unknown): the full-text side drops its stop words before
    # analysing it in another language's configuration.
    query_language: str = ""


@dataclass(frozen=True)
class HybridRow:
    chunk_id: str
    document_id: str
    text: str
    page_number: int | None
    start_time: float | None
    title: str
    filename: str
    vector_score: float
    vector_rank: int | None
    text_score: float | None
    text_rank: int | None
    fused_score: float
    # The chunk's place in its document: 0 is its start, chunk_count - 1 its end.
    ordinal: int = 0
    chunk_count: int = 0
    # The multilingual side: cosine similarity (None without a vector of the current model) and rank.
    multi_score: float | None = None
    multi_rank: int | None = None
    # The document's web address (a crawled page's canonical URL; "" for an uploaded file).
    source_url: str = ""


@dataclass(frozen=True)
class TextHit:
    chunk_id: str
    score: float


def statement_values(params: HybridParams) -> dict[str, Any]:
    """The parameters the scope, full-text and hybrid statements bind, by name."""
    languages, configs = ts_config_map()
    return {
        "workspace_id": params.workspace_id,
        "model_id": params.model_id,
        "query_text": params.query_text,
        "query_config": _stop_words_config(params.query_language),
        "query_embedding": _literal(params.query_embedding),
        "multi_model_id": params.multi_model_id,
        "multi_embedding": _literal(params.multi_embedding),
        "multi_weight": float(params.multi_weight),
        "multi_share": float(params.multi_share),
        "multi_candidates": params.candidates
        if params.multi_weight > 0 and params.multi_embedding and params.multi_model_id
        else 0,
        "bot_ids": list(params.bot_ids) if params.bot_ids is not None else None,
        "conversation_id": params.conversation_id,
        "external_user_id": params.external_user_id,
        "document_ids": list(params.document_ids) if params.document_ids is not None else None,
        "languages": languages,
        "configs": configs,
        "vector_weight": float(params.vector_weight),
        "text_weight": float(params.text_weight),
        "rrf_k": float(params.rrf_k),
        "fusion_method": params.fusion_method,
        "vector_share": float(params.vector_share),
        "text_share": max(0.0, 1.0 - float(params.vector_share) - float(params.multi_share)),
        "vector_candidates": params.candidates
        if params.vector_weight > 0 and params.query_embedding
        else 0,
        "text_candidates": params.candidates if params.text_weight > 0 else 0,
        "pool": params.pool,
        "k1": float(settings.RETRIEVAL_BM25_K1),
        "b": float(settings.RETRIEVAL_BM25_B),
        "postings_budget": int(settings.RETRIEVAL_BM25_POSTINGS_BUDGET),
        "safety_budget": int(settings.RETRIEVAL_BM25_SAFETY_BUDGET),
        "exact_depth": EXACT_DEPTH,
    }


def _literal(vector: Sequence[float]) -> str | None:
    """pgvector's text form, or NULL for a side without a query vector (its LIMIT is then 0)."""
    if not vector:
        return None
    return "[" + ",".join(map(repr, map(float, vector))) + "]"


def _stop_words_config(language: str) -> str | None:
    """The text-search configuration whose stop list a question in `language` loses before it is
    analysed in another language's configuration (None: unknown language, nothing dropped)."""
    config = search_config_for(language) if language else "simple"
    return None if config == "simple" else config
