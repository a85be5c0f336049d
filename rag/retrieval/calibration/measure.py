"""Measuring fusion methods on calibration pairs, and choosing one by its held-back figures.

Each pair's two candidate lists come from the product's own statements (`text_rows`, and `hybrid_rows`
with the full-text weight at 0), over the whole workspace's shared documents, as a search would see them
(the vector side stays off for a question in another language than a monolingual model's, as in
`chunks_retrieve`). Every method of the grid is then replayed in Python (`rag.retrieval.fusion`).

A pair's target is its chunk (synthetic pairs) or, for an evaluation case, its expected documents: the
fused chunks are then collapsed to their documents in order, and recall@5 and MRR@10 count by document
(as bench/retrieval and the evaluation runs count). An evaluation case is searched in its bot's scope.

The pairs are split in two halves by a hash of their chunk (an evaluation case: its bot and question):
each family's parameters (RRF: k and the weights; convex: the vector share) are picked on the fitting
half; the families' best and each side alone then compete on the held-back half, by recall@5 and
then MRR@10, a side alone winning a tie.
A fusion therefore never comes out below the better side on the held-back half.

No rule set by hand overrides that measurement: the measured best wins, subject only to the general rule
"never below the better single side". The pairs are what keeps it honest (`pairs.py`: real questions first,
else sentences withheld from the chunks they came from), not a preference written here.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.conf import settings

from rag.embeddings import embed_texts
from rag.language import language_detect
from rag.models import Chunk
from rag.retrieval.calibration.pairs import CalibrationPair
from rag.retrieval.calibration.withheld import withheld_lists
from rag.retrieval.fusion import FusionChoice, Ranked, fused_ids
from rag.retrieval.service import FUSION, vector_side_used
from rag.retrieval.sql import HybridParams, hybrid_rows, text_rows

RRF_KS = (10.0, 30.0, 60.0)
RRF_VECTOR_SHARES = (0.2, 1 / 3, 0.5, 2 / 3, 0.8)  # vector weight / (vector + text weight)
CONVEX_SHARES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
SIDES = (FusionChoice(method="vector"), FusionChoice(method="text"))
EMBED_BATCH = 64


@dataclass(frozen=True)
class PairLists:
    targets: frozenset[str]  # the chunk the query was made from, or the expected documents
    vector: Ranked
    text: Ranked
    held_out: bool
    # chunk id -> document id, when the targets are documents (None: they are chunks)
    documents: dict[str, str] | None = None


@dataclass(frozen=True)
class Figures:
    recall_at_5: float
    mrr: float
    # The standard error of the mean reciprocal rank over the pairs (0 when there are none).
    mrr_se: float = 0.0

    def key(self) -> tuple[float, float]:
        return (round(self.recall_at_5, 9), round(self.mrr, 9))


@dataclass(frozen=True)
class Measured:
    choice: FusionChoice
    fit: Figures
    held_out: Figures


@dataclass(frozen=True)
class Calibration:
    chosen: Measured
    candidates: list[Measured]  # every grid point and side, with both halves' figures
    vector: Measured
    text: Measured
    held_out_count: int


def grid() -> list[FusionChoice]:
    rrf = [
        FusionChoice(method="rrf", rrf_k=k, vector_weight=share, text_weight=1.0 - share)
        for k in RRF_KS
        for share in RRF_VECTOR_SHARES
    ]
    convex = [FusionChoice(method="convex", vector_share=share) for share in CONVEX_SHARES]
    return [*rrf, *convex, *SIDES]


def pair_lists(
    *, workspace_id: str, model_id: str, pairs: Sequence[CalibrationPair]
) -> list[PairLists]:
    """Each pair's two candidate lists (top `FUSION.candidates` of each side, as a search takes)."""
    vectors: list[list[float]] = []
    for start in range(0, len(pairs), EMBED_BATCH):
        batch = [pair.query for pair in pairs[start : start + EMBED_BATCH]]
        vectors.extend(embed_texts(batch, model_id=model_id))
    ef_search = max(FUSION.ef_search or settings.RETRIEVAL_HNSW_EF_SEARCH, FUSION.candidates)
    out = []
    for pair, vector in zip(pairs, vectors, strict=True):
        params = HybridParams(
            workspace_id=workspace_id,
            model_id=model_id,
            query_text=pair.query,
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
        )
        text = [(hit.chunk_id, hit.score) for hit in text_rows(params=params)]
        language = language_detect(pair.query) or pair.language
        vector_hits: Ranked = []
        if vector_side_used(model_id=model_id, query_language=language):
            rows = hybrid_rows(
                params=replace(params, query_embedding=vector, text_weight=0.0),
                text=[],
                ef_search=ef_search,
                exact_max=settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS,
            )
            vector_hits = [(row.chunk_id, row.vector_score) for row in rows]
        if pair.withheld:  # the inverse cloze task: its sentence is withheld before scoring
            text, vector_hits = withheld_lists(
                pair=pair,
                workspace_id=workspace_id,
                model_id=model_id,
                query_vector=vector,
                text=text,
                vector=vector_hits,
            )
        targets = frozenset(pair.document_ids or (pair.chunk_id,))
        out.append(
            PairLists(targets=targets, vector=vector_hits, text=text, held_out=_held_out(pair.key))
        )
    return _by_document(out, pairs)


def _by_document(lists: list[PairLists], pairs: Sequence[CalibrationPair]) -> list[PairLists]:
    """Give the pairs whose targets are documents their chunks' documents (one query for all)."""
    wanted = {
        chunk_id
        for item, pair in zip(lists, pairs, strict=True)
        if pair.document_ids
        for chunk_id, _ in (*item.vector, *item.text)
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


def calibration_choose(lists: Sequence[PairLists]) -> Calibration:
    """The measured best on the held-back half, never below the better single side."""
    return _calibration_measured(lists)


def _calibration_measured(lists: Sequence[PairLists]) -> Calibration:
    fit = [item for item in lists if not item.held_out]
    held = [item for item in lists if item.held_out]
    measured = [
        Measured(choice, _figures(fit, choice), _figures(held, choice)) for choice in grid()
    ]
    by_method: dict[str, list[Measured]] = {}
    for item in measured:
        by_method.setdefault(item.choice.method, []).append(item)
    # per family, the parameters that did best on the fitting half (the first of equals: grid order)
    finalists = [max(items, key=lambda m: m.fit.key()) for items in by_method.values()]
    vector, text = by_method["vector"][0], by_method["text"][0]
    # On the held-back half: best recall@5, then MRR. `max` keeps the first of equals and the reversed
    # list starts with the sides, so a side alone wins an exact tie with a fusion (the simpler search).
    chosen = max(reversed(finalists), key=lambda m: m.held_out.key())
    better_side = max((text, vector), key=lambda m: m.held_out.key())
    if (
        chosen.held_out.key() < better_side.held_out.key()
    ):  # the rule, should the ranking above change
        chosen = better_side
    return Calibration(
        chosen=chosen, candidates=measured, vector=vector, text=text, held_out_count=len(held)
    )


def vector_share(choice: FusionChoice) -> float:
    """How much of a method's ranking comes from the vector side: 1 and 0 for the sides alone, the
    share for a convex combination, the vector weight's share of the two for RRF."""
    if choice.method == "vector":
        return 1.0
    if choice.method == "text":
        return 0.0
    if choice.method == "convex":
        return choice.vector_share
    total = choice.vector_weight + choice.text_weight
    return choice.vector_weight / total if total > 0 else 0.5


def _figures(lists: Sequence[PairLists], choice: FusionChoice) -> Figures:
    if not lists:
        return Figures(0.0, 0.0)
    found = 0.0
    reciprocals = []
    for item in lists:
        ranked = fused_ids(vector=item.vector, text=item.text, choice=choice)
        if (
            item.documents is not None
        ):  # counted by document: each document at its best chunk's rank
            ranked = list(dict.fromkeys(item.documents.get(chunk, chunk) for chunk in ranked))
        rank = next((n for n, key in enumerate(ranked[:10], 1) if key in item.targets), 0)
        found += 0 < rank <= 5
        reciprocals.append(1.0 / rank if rank else 0.0)
    n = len(lists)
    mean = sum(reciprocals) / n
    spread = math.sqrt(sum((value - mean) ** 2 for value in reciprocals) / max(n - 1, 1))
    return Figures(found / n, mean, spread / math.sqrt(n))


def _held_out(key: str) -> bool:
    """Half of the pairs, fixed by their key (`CalibrationPair.key`): the same split on every run over
    the same chunks and questions."""
    return hashlib.sha256(key.encode()).digest()[0] % 2 == 1
