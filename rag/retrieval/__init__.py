"""Hybrid retrieval over the real Chunk table (vector + full text, fused as calibrated per workspace, optional
HTTP reranker)."""

from rag.retrieval.planning import (
    FUSION,
    FusionSettings,
    RetrievalScope,
    document_languages_foreign,
    query_expand,
)
from rag.retrieval.service import RetrievalResult, chunks_retrieve
from rag.retrieval.types import RetrievedChunk

__all__ = [
    "FUSION",
    "FusionSettings",
    "RetrievalResult",
    "RetrievalScope",
    "RetrievedChunk",
    "chunks_retrieve",
    "document_languages_foreign",
    "query_expand",
]
