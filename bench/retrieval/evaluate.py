"""Accuracy on one corpus through the product's retrieval: `chunks_retrieve` in each mode (vector only,
full-text only, hybrid, and hybrid with the HTTP reranker when RERANKER_URL is set).

Every query goes through the whole product path (the question's embedding, language detection, the
one-statement SQL with its scope, the fusion; query vectors are computed once per run, in batches, by
the product's provider), on the corpus loaded into Parley's own tables. No score
threshold applies (-1: recall measures the ranking), and top_k is the whole fused pool so that ten
distinct documents can be counted. `--sweep fusion` recomputes weighted RRF in Python from the product's
vector-only and full-text-only lists (top-100 of each), to show the figures behind the default weights.
The last row is a textbook BM25 (`bench.retrieval.reference`, bm25s) on the same stored chunks.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path

from django.conf import settings
from django.test import override_settings

from bench.retrieval.corpus import Corpus, corpus_load
from bench.retrieval.embed import (
    MULTI_MODEL_NAME,
    embeddings_cached,
    query_vectors_prefill,
    tokenizer_load,
)
from bench.retrieval.load import workspace_load
from bench.retrieval.metrics import Scores, rrf_fuse, score_fuse, scores_compute
from bench.retrieval.reference import bm25_reference_rank
from rag.retrieval import FUSION, FusionSettings, RetrievalScope, chunks_retrieve

NO_THRESHOLD = -1.0
SWEEP_DEPTH = 100  # candidates of each side for the Python fusion grids


@dataclass
class Prepared:
    corpus: Corpus
    scope: RetrievalScope
    vector: list[list[tuple[str, float]]]  # per query: (chunk id, cosine), best first, top-100
    text: list[list[tuple[str, float]]]  # per query: (chunk id, ts_rank), best first, top-100
    titles: dict[str, str]  # chunk id → document title (the corpus document id)


def corpus_prepare(folder: Path, *, limit_queries: int | None) -> tuple[Corpus, RetrievalScope]:
    corpus = corpus_load(folder, tokenizer=tokenizer_load(), limit_queries=limit_queries)
    texts = [c.text for c in corpus.chunks]
    vectors = embeddings_cached(f"{corpus.name}-chunks", texts)
    multi_vectors = embeddings_cached(f"{corpus.name}-chunks", texts, model=MULTI_MODEL_NAME)
    rows = [(chunk.doc_id, chunk.lang, chunk.text) for chunk in corpus.chunks]
    workspace, bot = workspace_load(f"bench-{corpus.name}", rows, vectors, multi_vectors)
    query_vectors_prefill([query.text for query in corpus.queries])
    return corpus, RetrievalScope(
        workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)], external_user_id=""
    )


def _ranked(
    corpus: Corpus, scope: RetrievalScope, mode: str, fusion: FusionSettings = FUSION
) -> list[list[str]]:
    """Per query, the documents (titles) of the returned chunks, best first."""
    out = []
    for query in corpus.queries:
        result = chunks_retrieve(
            scope=scope,
            question=query.text,
            top_k=2 * fusion.candidates,
            mode=mode,  # type: ignore[arg-type]
            score_threshold=NO_THRESHOLD,
            language=query.lang,
            fusion=fusion,
        )
        out.append([hit.title for hit in result.hits])
    return out


def _scores(corpus: Corpus, ranked: list[list[str]], keep: list[bool] | None = None) -> Scores:
    """Scores over the queries (those `keep` marks, when given)."""
    keep = keep or [True] * len(corpus.queries)
    documents = [
        list(dict.fromkeys(titles))[:10] for titles, kept in zip(ranked, keep, strict=True) if kept
    ]
    relevant = [q.relevant for q, kept in zip(corpus.queries, keep, strict=True) if kept]
    return scores_compute(documents, relevant)


VECTOR_ROW = "vector only (MiniLM)"
MULTI_ROW = "multilingual only (USE v3)"
TEXT_ROW = "full-text only"
HYBRID_ROW = "hybrid (calibrated)"
REFERENCE_ROW = "BM25 reference (bm25s)"


def strategies_rank(corpus: Corpus, scope: RetrievalScope) -> dict[str, list[list[str]] | None]:
    """Each row's ranked documents per query, through `chunks_retrieve` (None: no reranker configured)."""
    with override_settings(RERANKER_URL=""):
        ranked: dict[str, list[list[str]] | None] = {
            VECTOR_ROW: _ranked(corpus, scope, "vector"),
            MULTI_ROW: _ranked(corpus, scope, "multi"),
            TEXT_ROW: _ranked(corpus, scope, "text"),
            HYBRID_ROW: _ranked(corpus, scope, "hybrid"),
        }
    ranked["hybrid + reranker"] = (
        _ranked(corpus, scope, "hybrid") if settings.RERANKER_URL else None
    )
    questions = [query.text for query in corpus.queries]
    ranked[REFERENCE_ROW] = bm25_reference_rank(scope=scope, questions=questions)
    return ranked


def strategies_score(
    corpus: Corpus, ranked: dict[str, list[list[str]] | None], *, language: str = ""
) -> dict[str, Scores | None]:
    """The side-by-side rows over every query, or over the queries the set labels `language`."""
    keep = [not language or q.labelled_language == language for q in corpus.queries]
    return {
        name: _scores(corpus, lists, keep) if lists is not None else None
        for name, lists in ranked.items()
    }


def corpus_languages(corpus: Corpus) -> list[str]:
    """The question languages the set labels (xquad-dev: en, de, es), in order of first appearance."""
    return list(dict.fromkeys(q.labelled_language for q in corpus.queries if q.labelled_language))


def done_when(rows: dict[str, Scores | None]) -> str:
    """The issue's rule on one table: hybrid R@5 at least the best single side's and the reference's."""
    hybrid = rows[HYBRID_ROW]
    sides = [rows[name] for name in (VECTOR_ROW, MULTI_ROW, TEXT_ROW, REFERENCE_ROW)]
    if hybrid is None:
        return "  hybrid >= best side and reference: n/a"
    best = max(s.recall[5] for s in sides if s is not None)
    verdict = "yes" if hybrid.recall[5] >= best - 1e-9 else "NO"
    return (
        f"  hybrid R@5 {hybrid.recall[5]:.3f} >= best single side / reference {best:.3f}: {verdict}"
    )


def reference_ratio(rows: dict[str, Scores | None]) -> str:
    """The done-when figure: Parley's full-text R@5 as a share of the BM25 reference's."""
    text, reference = rows[TEXT_ROW], rows[REFERENCE_ROW]
    if text is None or reference is None or not reference.recall[5]:
        return "  full-text / BM25 reference R@5: n/a"
    return f"  full-text / BM25 reference R@5: {text.recall[5] / reference.recall[5]:.3f}"


def sweep_prepare(corpus: Corpus, scope: RetrievalScope) -> Prepared:
    """Each side's top-100 through the product (for the fusion grids)."""
    deep = replace(FUSION, candidates=SWEEP_DEPTH)
    lists: dict[str, list[list[tuple[str, float]]]] = {"vector": [], "text": []}
    titles: dict[str, str] = {}
    with override_settings(RERANKER_URL=""):
        for mode in lists:
            for query in corpus.queries:
                result = chunks_retrieve(
                    scope=scope,
                    question=query.text,
                    top_k=SWEEP_DEPTH,
                    mode=mode,  # type: ignore[arg-type]
                    score_threshold=NO_THRESHOLD,
                    language=query.lang,
                    fusion=deep,
                )
                score = (
                    (lambda h: h.vector_score)
                    if mode == "vector"
                    else (lambda h: h.text_score or 0.0)
                )
                lists[mode].append([(hit.id, score(hit)) for hit in result.hits])
                titles.update((hit.id, hit.title) for hit in result.hits)
    return Prepared(
        corpus=corpus, scope=scope, vector=lists["vector"], text=lists["text"], titles=titles
    )


RATIOS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0)  # vector weight / text weight
RRF_KS = (10, 60)
DEPTHS = (20, 40, 100)


def _fused_titles(prepared: Prepared, fuse) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """Per query, the documents of `fuse(vector hits, text hits)` (chunk ids in, chunk ids out)."""
    return [
        [prepared.titles[chunk_id] for chunk_id in fuse(vector, text)]
        for vector, text in zip(prepared.vector, prepared.text, strict=True)
    ]


def fusion_sweep(prepared: Prepared) -> dict[tuple[int, int], list[Scores]]:
    """(rrf_k, depth N) → Scores for each vector/text weight ratio in RATIOS (text weight 1)."""
    return {
        (rrf_k, depth): [
            _scores(
                prepared.corpus,
                _fused_titles(
                    prepared,
                    lambda v, t, r=ratio, k=rrf_k, d=depth: rrf_fuse(
                        v, t, vector_weight=r, text_weight=1.0, rrf_k=k, depth=d
                    ),
                ),
            )
            for ratio in RATIOS
        ]
        for rrf_k in RRF_KS
        for depth in DEPTHS
    }


SHARES = (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9)


def score_fusion_sweep(prepared: Prepared, depth: int = 40) -> list[Scores]:
    return [
        _scores(
            prepared.corpus,
            _fused_titles(
                prepared, lambda v, t, s=share: score_fuse(v, t, vector_weight=s, depth=depth)
            ),
        )
        for share in SHARES
    ]


def latency_summary(values: list[float]) -> str:
    ordered = sorted(values)
    return f"p50 {statistics.median(ordered):.1f} ms, p95 {ordered[int(0.95 * (len(ordered) - 1))]:.1f} ms"
