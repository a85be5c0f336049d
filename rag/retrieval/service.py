"""`chunks_retrieve`: hybrid retrieval for one question, from text to ranked, scored, scoped chunks.

Steps (one function each): plan the search (`_search_plan`: the workspace's models and calibrated fusion,
the question's language, which sides are on, the full-text query expanded with the condensed keywords and
the bot's lexicon synonyms); start the full-text statement (`rag.retrieval.concurrent`: on its own
connection) while the question is embedded with the workspace's model and its multilingual model
(`_query_vectors`); run both vector sides and the fusion (`rag.retrieval.sql`, its planner settings and
statement in one round trip); estimate each fused chunk's relevance (`rag.relevance`: the probability that it
is about what the question asks), keep those reaching the bot's threshold, optionally rerank over HTTP, cut
to top k (`_hits_select`). Database work per question: the workspace models and
fusion look-up, the full-text statement, then the planner settings and the hybrid statement.
The fusion is the workspace's calibrated one (`WorkspaceFusion`, read with the models in one query).
`mode` runs one side alone ("vector", "multi", "text") through the same statement, for bench/retrieval.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from django.conf import settings

from rag.embeddings import LOCAL_MODEL_ID, embed_query
from rag.language import language_detect
from rag.relevance.estimate import ChunkInput, chunks_probability
from rag.relevance.service import retrieved_inputs
from rag.retrieval.concurrent import text_search_start
from rag.retrieval.fusion import FusionChoice, sides_applied
from rag.retrieval.rerank import rerank_scores
from rag.retrieval.sql import HybridParams, HybridRow, hybrid_rows, scope_languages
from rag.retrieval.types import RetrievedChunk
from rag.selectors import workspace_search_setup


@dataclass(frozen=True)
class FusionSettings:
    """Top-40 of each side; ef_search None: the RETRIEVAL_HNSW_EF_SEARCH setting (measured: 100 keeps HNSW
    recall of the top-40 at 0.99 at 10k chunks, 0.97 at 100k). The method and weights (RRF k=10, vector:text
    2:1) are only the defaults of a workspace that has no calibration yet (`rag.retrieval.calibration`
    measures and stores its own, `WorkspaceFusion`). Either way the vector side is off for a question in
    another language than a monolingual embedding model's (`MODEL_LANGUAGES`); the multilingual side
    (weight `multi_weight`) stays on."""

    rrf_k: float = 10.0
    candidates: int = 40
    text_weight: float = 0.5
    vector_weight_native: float = 1.0
    multi_weight: float = 0.5
    ef_search: int | None = None
    rerank_pool: int = 20


FUSION = FusionSettings()
RetrievalMode = Literal["hybrid", "vector", "multi", "text"]
# The language each embedding model was trained on; models absent here are treated as multilingual.
MODEL_LANGUAGES = {LOCAL_MODEL_ID: "en"}


@dataclass(frozen=True)
class RetrievalScope:
    workspace_id: str
    bot_ids: Sequence[str] | None = None  # None: every shared document of the workspace
    conversation_id: str | None = None
    external_user_id: str | None = (
        None  # None: no boundary; "" : only documents of no external user
    )
    document_ids: Sequence[str] | None = None


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


def vector_side_used(*, model_id: str, query_language: str) -> bool:
    """False for a question in another language than a monolingual model's (its vectors mean little there)."""
    native = MODEL_LANGUAGES.get(model_id)
    return native is None or native == query_language


def fusion_default(fusion: FusionSettings = FUSION) -> FusionChoice:
    """The fusion of a workspace that has not been calibrated yet (and only then)."""
    return FusionChoice(
        method="rrf",
        rrf_k=fusion.rrf_k,
        vector_weight=fusion.vector_weight_native,
        text_weight=fusion.text_weight,
        multi_weight=fusion.multi_weight,
    )


def sides_for_question(
    *, choice: FusionChoice, model_id: str, multi_model_id: str, query_language: str
) -> FusionChoice:
    """`choice` for the sides this question can use. A question in another language than a monolingual
    model's: that side is off and its weight goes to the multilingual side, the semantic side that can
    read the question (the calibration's pairs are in the documents' language, so it measured the
    semantic side's weight on the monolingual model; without a multilingual model the weight is dropped,
    as before). A workspace without a multilingual model: that side is off. A side alone that is off
    gives way to the other semantic side, else to full text."""
    return sides_applied(
        choice=choice,
        vector_on=vector_side_used(model_id=model_id, query_language=query_language),
        multi_on=bool(multi_model_id),
    )


def document_languages_foreign(
    *, scope: RetrievalScope, question: str, language: str = ""
) -> list[str]:
    """The languages of the documents in scope other than the question's (detected, else `language`), so
    the lexical side can also search in them; [] when the question's language is unknown."""
    query_language = language_detect(question) or language
    if not query_language:
        return []
    found = scope_languages(
        workspace_id=scope.workspace_id,
        bot_ids=scope.bot_ids,
        conversation_id=scope.conversation_id,
        external_user_id=scope.external_user_id,
        document_ids=scope.document_ids,
    )
    return [code for code in found if code != query_language]


def query_expand(
    *, question: str, keywords: Sequence[str] = (), lexicon: Sequence[Sequence[str]] = ()
) -> str:
    """The full-text query: the question, the condensing keywords, and the synonyms of lexicon terms it uses."""
    parts = [question, *keywords]
    haystack = " ".join(parts).lower()
    for group in lexicon:
        if any(
            re.search(rf"\b{re.escape(term.lower())}\b", haystack) for term in group if term.strip()
        ):
            parts.extend(term for term in group if term.lower() not in haystack)
    return " ".join(part for part in parts if part)


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
    plan = _search_plan(
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
    hits, reranked, relevance_inputs = _hits_select(
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


@dataclass(frozen=True)
class _Plan:
    choice: FusionChoice  # the fusion this question gets (sides it cannot use turned off)
    params: HybridParams  # without the query vectors yet


def _search_plan(
    *,
    scope: RetrievalScope,
    question: str,
    keywords: Sequence[str],
    lexicon: Sequence[Sequence[str]],
    language: str,
    fusion: FusionSettings,
    mode: RetrievalMode,
    choice: FusionChoice | None,
    pool: int,
) -> _Plan:
    """The workspace's models and fusion (calibrated, else the defaults, else the mode's one side), the
    sides this question can use, and the statement's parameters."""
    setup = workspace_search_setup(workspace_id=scope.workspace_id)
    if mode != "hybrid":
        choice = FusionChoice(method=mode)
    elif choice is None:
        choice = (
            FusionChoice.from_stored(method=setup.method, parameters=setup.parameters)
            if setup.method is not None
            else fusion_default(fusion)
        )
    query_language = language_detect(question) or language
    if mode == "hybrid":
        choice = sides_for_question(
            choice=choice,
            model_id=setup.model_id,
            multi_model_id=setup.multi_model_id,
            query_language=query_language,
        )
    vector_weight, multi_weight, text_weight = choice.weights()
    params = HybridParams(
        workspace_id=scope.workspace_id,
        model_id=setup.model_id,
        query_text=query_expand(question=question, keywords=keywords, lexicon=lexicon),
        query_language=query_language,
        query_embedding=(),
        bot_ids=scope.bot_ids,
        conversation_id=scope.conversation_id,
        external_user_id=scope.external_user_id,
        document_ids=scope.document_ids,
        vector_weight=vector_weight,
        text_weight=text_weight,
        rrf_k=choice.rrf_k,
        candidates=fusion.candidates,
        pool=pool,
        fusion_method="convex" if choice.method == "convex" else "rrf",
        vector_share=choice.vector_share,
        multi_model_id=setup.multi_model_id,
        multi_weight=multi_weight,
        multi_share=choice.multi_share,
    )
    return _Plan(choice=choice, params=params)


def _query_vectors(
    *, plan: _Plan, question: str, query_embedding: Sequence[float] | None
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


def _hits_select(
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


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
