"""The plain-data result of retrieval, shared as it is by the answer pipeline up to the audit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetrievedChunk:
    """One chunk retrieval returned, the one type it keeps up to the audit: the answer engine, the
    offline provider and the contract read it as it is, and the prompt engine through its `ChunkLike`
    protocol (the one conversion is `as_audit`, to the JSON the audit columns store).

    `score` is the relevance estimate (`rag.relevance`): the probability that the chunk is about what
    the question asks, on one scale for every model and language pair, which retrieval's score
    threshold, the offline provider and the confidence threshold read. `rank` starts at 1.
    """

    id: str
    text: str
    score: float
    rank: int
    document_id: str = ""
    title: str = ""
    page: int | None = None
    # Where the chunk comes from (file name or URL), shown to the LLM with the chunk.
    source: str = ""
    start_time: float | None = None
    # Whether the chunk's first / last character is a sentence boundary of its document (True at
    # the document's start and end); None: unknown, the offline provider judges the edge sentence.
    starts_clean: bool | None = None
    ends_clean: bool | None = None
    # Hybrid retrieval's detail, for the audit: cosine similarity and full-text score, each side's
    # rank (None when that side did not return the chunk), the fused score and the reranker's.
    vector_score: float | None = None
    vector_rank: int | None = None
    text_score: float | None = None
    text_rank: int | None = None
    fused_score: float | None = None
    rerank_score: float | None = None
    # The multilingual side's cosine similarity and rank (None: that side did not return the chunk).
    multi_score: float | None = None
    multi_rank: int | None = None
    # The web page the chunk's document was read from (a knowledge source's page), "" for an upload:
    # the citation links there.
    url: str = ""

    def as_audit(self) -> dict[str, object]:
        """What a turn stores about this chunk (a short preview only: the chunk row keeps the text)."""
        return {
            "chunk_id": self.id,
            "document_id": self.document_id,
            "title": self.title,
            "url": self.url,
            "page": self.page,
            "start_time": self.start_time,
            "score": round(self.score, 6),
            "rank": self.rank,
            "vector_score": _rounded(self.vector_score),
            "vector_rank": self.vector_rank,
            "text_score": _rounded(self.text_score),
            "text_rank": self.text_rank,
            "multi_score": _rounded(self.multi_score),
            "multi_rank": self.multi_rank,
            "fused_score": _rounded(self.fused_score),
            "rerank_score": _rounded(self.rerank_score),
            "text_preview": self.text[:TEXT_PREVIEW_CHARS],
        }


TEXT_PREVIEW_CHARS = 200


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
