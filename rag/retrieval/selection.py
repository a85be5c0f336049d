"""The fused rows a search keeps: their relevance estimated (`rag.relevance`), those under the bot's threshold
dropped, reranked when a reranker is set, cut to top k and shaped as retrieved chunks."""

from __future__ import annotations

from rag.relevance.estimate import ChunkInput, chunks_probability
from rag.relevance.service import retrieved_inputs
from rag.retrieval.rerank import rerank_scores
from rag.retrieval.sql import HybridParams, HybridRow
from rag.retrieval.types import RetrievedChunk


def hits_select(
    *,
    rows: list[HybridRow],
    question: str,
    score_threshold: float,
    top_k: int,
    params: HybridParams,
) -> tuple[list[RetrievedChunk], bool, dict[str, ChunkInput]]:
    """The rows whose relevance reaches the threshold, reranked when a reranker is set, cut to top k.
    The relevance is `rag.relevance`'s estimate: the probability that the chunk is about what the
    question asks, one scale for every model and language pair. Also what the estimate read of the
    returned chunks, for the composer (`RetrievalResult.relevance_inputs`)."""
    hits = [_hit(row, rank, None) for rank, row in enumerate(rows, start=1)]
    inputs = retrieved_inputs(
        question=question,
        chunks=hits,
        model_id=params.model_id,
        multi_model_id=params.multi_model_id,
    )
    relevance = chunks_probability(
        question=question,
        question_language=params.query_language,
        question_vector=inputs.question_vector,
        chunks=inputs.chunks,
        scale=inputs.scale,
    )
    kept = [row for row in rows if relevance.get(row.chunk_id, 0.0) >= score_threshold]
    ordered, reranked = _reranked(question, kept)
    hits = [
        _hit(row, rank, score, relevance=relevance.get(row.chunk_id, 0.0))
        for rank, (row, score) in enumerate(ordered[:top_k], start=1)
    ]
    returned = {hit.id for hit in hits}
    read = {chunk.chunk_id: chunk for chunk in inputs.chunks if chunk.chunk_id in returned}
    return hits, reranked, read


def _reranked(
    question: str, rows: list[HybridRow]
) -> tuple[list[tuple[HybridRow, float | None]], bool]:
    scores = rerank_scores(query=question, texts=[row.text for row in rows])
    if scores is None:
        return [(row, None) for row in rows], False
    pairs = sorted(zip(rows, scores, strict=True), key=lambda pair: -pair[1])
    return [(row, score) for row, score in pairs], True


def _hit(
    row: HybridRow, rank: int, rerank_score: float | None, *, relevance: float = 0.0
) -> RetrievedChunk:
    return RetrievedChunk(
        id=row.chunk_id,
        text=row.text,
        score=max(0.0, min(1.0, relevance)),
        rank=rank,
        document_id=row.document_id,
        title=row.title,
        page=row.page_number,
        source=row.filename,
        url=row.source_url,
        start_time=row.start_time,
        vector_score=row.vector_score,
        vector_rank=row.vector_rank,
        text_score=row.text_score,
        text_rank=row.text_rank,
        fused_score=row.fused_score,
        rerank_score=rerank_score,
        multi_score=row.multi_score,
        multi_rank=row.multi_rank,
        # Known clean at the document's edges; elsewhere the offline provider judges the edge sentence.
        starts_clean=True if row.ordinal == 0 else None,
        ends_clean=True if row.ordinal == row.chunk_count - 1 else None,
    )
