"""The relevance estimate for retrieved chunks: their stored units and vectors read in one query, the
question embedded once with the multilingual model (the query vector retrieval computed, kept per
process), the estimate made on plain data (`rag.relevance.estimate`).

A chunk whose units were not made yet (ingested before passages, or not backfilled) is split and embedded
now. A workspace without the multilingual model is estimated on its own model's vectors, their cosines
mapped onto the multilingual model's scale by the measured quantiles (exact for all-MiniLM-L6-v2, a
stand-in for another model).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from django.db import connection

from rag.passages.prepared import ChunkUnits, chunk_units, units_texts, vectors_normalised
from rag.passages.selectors import chunk_passages_get
from rag.relevance.estimate import ChunkEstimate, ChunkInput, Scale, chunks_estimate
from textmodels.embeddings import MULTI_MODEL_ID, embed_query, embed_texts
from textmodels.embeddings.multilingual import multilingual_scale


class ChunkLike(Protocol):
    """What the estimate reads of a retrieved chunk (rag.retrieval.RetrievedChunk)."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def starts_clean(self) -> bool | None: ...
    @property
    def ends_clean(self) -> bool | None: ...
    @property
    def vector_rank(self) -> int | None: ...
    @property
    def text_rank(self) -> int | None: ...
    @property
    def multi_rank(self) -> int | None: ...


@dataclass(frozen=True)
class EstimateInputs:
    chunks: list[ChunkInput]
    question_vector: np.ndarray
    scale: Scale | None


def retrieved_estimate(
    *,
    question: str,
    question_language: str,
    chunks: Sequence[ChunkLike],
    model_id: str,
    multi_model_id: str,
    probabilities: Mapping[str, float] | None = None,
    known: Mapping[str, ChunkInput] | None = None,
) -> list[ChunkEstimate]:
    """One estimate per chunk, in the order given (`probabilities`: see `chunks_estimate`; `known`: the
    chunks' inputs a caller already read, by chunk id: retrieval's, so a turn reads them once)."""
    if not chunks:
        return []
    inputs = retrieved_inputs(
        question=question,
        chunks=chunks,
        model_id=model_id,
        multi_model_id=multi_model_id,
        known=known,
    )
    return chunks_estimate(
        question=question,
        question_language=question_language,
        question_vector=inputs.question_vector,
        chunks=inputs.chunks,
        scale=inputs.scale,
        probabilities=probabilities,
    )


def retrieved_inputs(
    *,
    question: str,
    chunks: Sequence[ChunkLike],
    model_id: str,
    multi_model_id: str,
    known: Mapping[str, ChunkInput] | None = None,
) -> EstimateInputs:
    """What the estimate reads of the chunks and the question (bench.answer's fit reads it too); the
    chunks in `known` are taken from it, the others read (two queries) or made."""
    known = known or {}
    if all(chunk.id in known for chunk in chunks):
        return EstimateInputs(
            [known[chunk.id] for chunk in chunks],
            _question_vector(question, multi_model_id or model_id),
            None if multi_model_id else multilingual_scale,
        )
    multilingual = bool(multi_model_id)
    vectors_model = multi_model_id if multilingual else model_id
    stored = chunk_passages_get(
        chunk_ids=[chunk.id for chunk in chunks if _stored_id(chunk.id)],
        model_id=MULTI_MODEL_ID if multilingual else model_id,
        multilingual=multilingual,
    )
    rare = rare_terms_support(
        question=question, chunk_ids=[c.id for c in chunks if _stored_id(c.id)]
    )
    inputs: list[ChunkInput] = []
    missing: list[tuple[int, ChunkLike]] = []
    for chunk in chunks:
        hit = stored.get(chunk.id)
        if hit is None:
            missing.append((len(inputs), chunk))
            inputs.append(_input(chunk, _NO_UNITS, _EMPTY, rare))
            continue
        inputs.append(_input(chunk, hit.units, hit.vectors, rare))
    for place, chunk in missing:
        units = chunk_units(
            text=chunk.text, starts_clean=chunk.starts_clean, ends_clean=chunk.ends_clean
        )
        texts = units_texts(units, title=chunk.title, titled=multilingual)
        vectors = (
            vectors_normalised(embed_texts(texts, model_id=vectors_model)) if texts else _EMPTY
        )
        inputs[place] = _input(chunk, units, vectors, rare)
    return EstimateInputs(
        inputs,
        _question_vector(question, vectors_model),
        None if multilingual else multilingual_scale,
    )


def _question_vector(question: str, model_id: str) -> np.ndarray:
    vector: np.ndarray = vectors_normalised([embed_query(question, model_id=model_id)])[0]
    return vector


# The question's lexemes in each chunk's text-search configuration, weighted by BM25's idf over the chunk's
# workspace (the statistics the full-text side keeps, rag_termstat and rag_corpusstat): the share of that
# weight the chunk's lexemes hold.
_RARE_TERMS_SQL = """
WITH c AS (
  SELECT id, workspace_id, search_config, search_vector FROM rag_chunk WHERE id = ANY(%(ids)s::uuid[])
), cfg AS (SELECT DISTINCT workspace_id, search_config FROM c),
q AS (
  SELECT cfg.workspace_id, cfg.search_config, t.lexeme,
         ln(1 + (cs.chunks - coalesce(ts.chunks, 0) + 0.5) / (coalesce(ts.chunks, 0) + 0.5)) AS idf
  FROM cfg
  CROSS JOIN LATERAL unnest(tsvector_to_array(parley_tsvector(cfg.search_config, %(question)s)))
       AS t(lexeme)
  JOIN rag_corpusstat AS cs ON cs.workspace_id = cfg.workspace_id AND cs.config = cfg.search_config
  LEFT JOIN rag_termstat AS ts ON ts.workspace_id = cfg.workspace_id
       AND ts.config = cfg.search_config AND ts.term = t.lexeme
)
SELECT c.id::text,
       coalesce(sum(q.idf) FILTER (WHERE q.lexeme = ANY(tsvector_to_array(c.search_vector))), 0),
       coalesce(sum(q.idf), 0)
FROM c LEFT JOIN q ON q.workspace_id = c.workspace_id AND q.search_config = c.search_config
GROUP BY c.id
"""


def rare_terms_support(*, question: str, chunk_ids: Sequence[str]) -> dict[str, float]:
    """Per chunk id, the idf-weighted share of the question's lexemes its text holds (0 when the
    question has none in the chunk's configuration)."""
    if not chunk_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_RARE_TERMS_SQL, {"ids": list(chunk_ids), "question": question[:4000]})
        return {
            chunk_id: float(held) / float(total) if total else 0.0
            for chunk_id, held, total in cursor.fetchall()
        }


AGREEING_RANK = 3


def _input(
    chunk: ChunkLike, units: ChunkUnits, vectors: np.ndarray, rare: Mapping[str, float]
) -> ChunkInput:
    return ChunkInput(
        chunk_id=chunk.id,
        text=chunk.text,
        title=chunk.title,
        units=units,
        vectors=vectors,
        rare_terms=rare.get(chunk.id),
        sides_agree=_sides_agree(chunk),
    )


def _sides_agree(chunk: ChunkLike) -> bool:
    """Whether two of retrieval's sides (vector, multilingual, full text) both rank the chunk in their
    first `AGREEING_RANK`: words and meaning point at it together."""
    ranks = (chunk.vector_rank, chunk.multi_rank, chunk.text_rank)
    return sum(rank is not None and rank <= AGREEING_RANK for rank in ranks) >= 2


def _stored_id(chunk_id: str) -> bool:
    """A chunk row's id (a curated answer's chunk, or a caller's own, has none to look up)."""
    try:
        uuid.UUID(str(chunk_id))
    except ValueError:
        return False
    return True


_EMPTY = np.zeros((0, 0), dtype=np.float32)
_NO_UNITS = ChunkUnits(language="", units=(), asked=())
