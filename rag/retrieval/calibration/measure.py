"""Measuring fusion methods on calibration pairs: each pair's candidate lists, per side.

Each pair's three candidate lists come from the product's own statements (`text_rows`, and `hybrid_rows`
with one vector side's weight alone: the workspace model's, the multilingual model's), over the whole
workspace's shared documents, as a search would see them (the monolingual side stays off for a question
in another language than its model's and its weight goes to the multilingual side, as in
`chunks_retrieve`: `sides_applied`). Every method of the grid is then replayed on them in Python
(`rag.retrieval.calibration.choose`, `rag.retrieval.fusion`).

A pair's target is its chunk (synthetic pairs) or, for an evaluation case, its expected documents (then
counted by document, as bench/retrieval and the evaluation runs count). An evaluation case is searched in
its bot's scope. The pairs are split in two halves by a hash of their chunk (an evaluation case: its bot
and question): `held_out` marks the half the choice is checked on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.conf import settings

from rag.models import Chunk
from rag.retrieval.calibration.pairs import CalibrationPair
from rag.retrieval.calibration.withheld import WithheldSides, withheld_lists
from rag.retrieval.fusion import Ranked
from rag.retrieval.planning import FUSION, vector_side_used
from rag.retrieval.sql import HybridParams, hybrid_rows, text_rows
from textmodels.embeddings import embed_texts
from textmodels.language import language_detect

EMBED_BATCH = 64


@dataclass(frozen=True)
class PairLists:
    targets: frozenset[str]  # the chunk the query was made from, or the expected documents
    vector: Ranked
    text: Ranked
    held_out: bool
    # chunk id -> document id, when the targets are documents (None: they are chunks)
    documents: dict[str, str] | None = None
    multi: Ranked = ()
    # Whether the monolingual side reads this query (its language), and the workspace has a multilingual one.
    vector_on: bool = True
    multi_on: bool = False


def pair_lists(
    *, workspace_id: str, model_id: str, pairs: Sequence[CalibrationPair], multi_model_id: str = ""
) -> list[PairLists]:
    """Each pair's three candidate lists (top `FUSION.candidates` of each side, as a search takes)."""
    queries = [pair.query for pair in pairs]
    vectors = _embedded(queries, model_id=model_id)
    multis = _embedded(queries, model_id=multi_model_id) if multi_model_id else [[]] * len(pairs)
    ef_search = max(FUSION.ef_search or settings.RETRIEVAL_HNSW_EF_SEARCH, FUSION.candidates)
    out = []
    for pair, vector, multi in zip(pairs, vectors, multis, strict=True):
        language = language_detect(pair.query) or pair.language
        params = HybridParams(
            workspace_id=workspace_id,
            model_id=model_id,
            query_text=pair.query,
            query_language=language,
            query_embedding=(),
            bot_ids=[pair.bot_id] if pair.bot_id else None,
            conversation_id=None,
            external_user_id=None,
            document_ids=None,
            vector_weight=1.0,
            text_weight=1.0,
            rrf_k=FUSION.rrf_k,
            candidates=FUSION.candidates,
            pool=FUSION.candidates,
            multi_model_id=multi_model_id,
        )
        text = [(hit.chunk_id, hit.score) for hit in text_rows(params=params)]
        vector_on = vector_side_used(model_id=model_id, query_language=language)

        full = replace(params, query_embedding=vector, multi_embedding=multi, text_weight=0.0)
        vector_hits = (
            _side_hits(replace(full, multi_weight=0.0), ef_search=ef_search) if vector_on else []
        )
        multi_hits = (
            _side_hits(replace(full, vector_weight=0.0, multi_weight=1.0), ef_search=ef_search)
            if multi_model_id
            else []
        )
        if pair.withheld:  # the inverse cloze task: its sentence is withheld before scoring
            text, vector_hits, multi_hits = withheld_lists(
                pair=pair,
                workspace_id=workspace_id,
                sides=WithheldSides(
                    text=text,
                    vector=vector_hits,
                    multi=multi_hits,
                    model_id=model_id,
                    query_vector=vector,
                    multi_model_id=multi_model_id,
                    multi_vector=multi,
                ),
            )
        targets = frozenset(pair.document_ids or (pair.chunk_id,))
        out.append(
            PairLists(
                targets=targets,
                vector=vector_hits,
                text=text,
                held_out=held_out_half(pair.key),
                multi=multi_hits,
                vector_on=vector_on,
                multi_on=bool(multi_model_id),
            )
        )
    return _by_document(out, pairs)


def _side_hits(params: HybridParams, *, ef_search: int) -> Ranked:
    """One vector side's candidates (the statement with only that side's weight), with its cosine."""
    rows = hybrid_rows(
        params=params,
        text=[],
        ef_search=ef_search,
        exact_max=settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS,
    )
    if params.vector_weight > 0:
        return [(row.chunk_id, row.vector_score) for row in rows]
    return [(row.chunk_id, row.multi_score or 0.0) for row in rows]


def _embedded(texts: list[str], *, model_id: str) -> list[list[float]]:
    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        vectors.extend(embed_texts(texts[start : start + EMBED_BATCH], model_id=model_id))
    return vectors


def _by_document(lists: list[PairLists], pairs: Sequence[CalibrationPair]) -> list[PairLists]:
    """Give the pairs whose targets are documents their chunks' documents (one query for all)."""
    wanted = {
        chunk_id
        for item, pair in zip(lists, pairs, strict=True)
        if pair.document_ids
        for chunk_id, _ in (*item.vector, *item.multi, *item.text)
    }
    if not wanted:
        return lists
    documents = {
        str(chunk_id): str(document_id)
        for chunk_id, document_id in Chunk.objects.filter(pk__in=wanted).values_list(
            "pk", "document_id"
        )
    }
    return [
        replace(item, documents=documents) if pair.document_ids else item
        for item, pair in zip(lists, pairs, strict=True)
    ]


def held_out_half(key: str) -> bool:
    """Half of the pairs, fixed by their key (`CalibrationPair.key`): the same split on every run over
    the same chunks and questions."""
    return hashlib.sha256(key.encode()).digest()[0] % 2 == 1
