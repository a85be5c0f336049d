"""Hybrid retrieval over the real Chunk table (vector + full text + weighted RRF, optional HTTP reranker)."""

from rag.retrieval.service import (
    FUSION,
    FusionSettings,
    RetrievalResult,
    RetrievalScope,
    RetrievedHit,
    chunks_retrieve,
    query_expand,
)

__all__ = [
    "FUSION",
    "FusionSettings",
    "RetrievalResult",
    "RetrievalScope",
    "RetrievedHit",
    "chunks_retrieve",
    "query_expand",
]
