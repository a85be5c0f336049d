"""`chunks_retrieve`: hybrid retrieval for one question, from text to ranked, scored, scoped chunks.

Steps: plan the search (`rag.retrieval.planning`: the workspace's models and calibrated fusion, the
question's language, which sides are on, the full-text query expanded with the condensed keywords and the
bot's lexicon synonyms); start the full-text statement (`rag.retrieval.concurrent`: on its own connection)
while the question is embedded with the workspace's model and its multilingual model (`_query_vectors`);
run both vector sides and the fusion (`rag.retrieval.sql`, its planner settings and statement in one round
trip); keep the chunks whose relevance reaches the bot's threshold, optionally reranked over HTTP, cut to
top k (`rag.retrieval.selection`). Database work per question: the workspace models and fusion look-up,
the full-text statement, then the planner settings and the hybrid statement.
`mode` runs one side alone ("vector", "multi" or "text") through the same statement, for bench/retrieval.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from django.conf import settings

from rag.relevance.estimate import ChunkInput
from rag.retrieval.concurrent import text_search_start
from rag.retrieval.fusion import FusionChoice
from rag.retrieval.planning import (
    FUSION,
    FusionSettings,
    RetrievalMode,
    RetrievalScope,
    SearchPlan,
    search_plan,
)
from rag.retrieval.selection import hits_select
from rag.retrieval.sql import HybridParams, hybrid_rows
from rag.retrieval.types import RetrievedChunk
from textmodels.embeddings import embed_query


@dataclass(frozen=True)
class RetrievalResult:
    hits: list[RetrievedChunk]
    query_text: str  # what the full-text side searched (question + keywords + synonyms)
    model_id: str
    candidates: int  # fused candidates before threshold, reranking and top k
    reranked: bool
    latencies: dict[str, int] = field(default_factory=dict)
    fusion: str = ""  # the fusion this search used (`FusionChoice.label`)
    multi_model_id: str = ""  # the workspace's multilingual model ("" when it has none)
    # What the relevance estimate read of the returned chunks (their units and vectors), by chunk id.
    relevance_inputs: dict[str, ChunkInput] = field(default_factory=dict)


def chunks_retrieve(
    *,
    scope: RetrievalScope,
    question: str,
    keywords: Sequence[str] = (),
    lexicon: Sequence[Sequence[str]] = (),
    top_k: int = 6,
    score_threshold: float = 0.0,
    language: str = "",
    fusion: FusionSettings = FUSION,
    mode: RetrievalMode = "hybrid",
    choice: FusionChoice | None = None,
    query_embedding: Sequence[float] | None = None,
) -> RetrievalResult:
    """The top_k chunks in scope for a (standalone) question, best first, with their scores and ranks.

    `choice` None: the workspace's calibrated fusion (the defaults until it has one). `mode` "vector",
    "multi" or "text" keeps one retriever (its rank order, the same scope and threshold).
    `query_embedding`: the question's vector with the workspace's model when the caller already has it (a
    turn that compared it with its curated answers), so the question is not embedded twice."""
    started = time.perf_counter()
    plan = search_plan(
        scope=scope,
        question=question,
        keywords=keywords,
        lexicon=lexicon,
        language=language,
        fusion=fusion,
        mode=mode,
        choice=choice,
        pool=max(top_k, fusion.rerank_pool),
    )
    text_hits = text_search_start(params=plan.params)  # runs while the question is embedded
    params = _query_vectors(plan=plan, question=question, query_embedding=query_embedding)
    embedded = time.perf_counter()
    ef_search = fusion.ef_search or settings.RETRIEVAL_HNSW_EF_SEARCH
    rows = hybrid_rows(
        params=params,
        text=text_hits(),
        ef_search=max(ef_search, fusion.candidates),
        exact_max=settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS,
    )
    searched = time.perf_counter()
    hits, reranked, relevance_inputs = hits_select(
        rows=rows,
        question=question,
        score_threshold=score_threshold,
        top_k=top_k,
        params=params,
    )
    selected = time.perf_counter()
    latencies = {  # choosing the hits counts as reranking when a reranker ran, as search otherwise
        "embed": _ms(embedded - started),
        "search": _ms((searched if reranked else selected) - embedded),
        "rerank": _ms(selected - searched) if reranked else 0,
    }
    return RetrievalResult(
        hits=hits,
        query_text=plan.params.query_text,
        model_id=plan.params.model_id,
        candidates=len(rows),
        reranked=reranked,
        latencies=latencies,
        fusion=plan.choice.label(),
        multi_model_id=plan.params.multi_model_id,
        relevance_inputs=relevance_inputs,
    )


def _query_vectors(
    *, plan: SearchPlan, question: str, query_embedding: Sequence[float] | None
) -> HybridParams:
    """The plan's parameters with the question's vectors: the workspace model's always (the rows report
    its cosine), the multilingual model's when that side is searched."""
    params = plan.params
    vector = (
        query_embedding
        if query_embedding is not None
        else embed_query(question, model_id=params.model_id)
    )
    multi: Sequence[float] = ()
    if params.multi_weight > 0 and params.multi_model_id:
        multi = embed_query(question, model_id=params.multi_model_id)
    return replace(params, query_embedding=list(vector), multi_embedding=list(multi))


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
