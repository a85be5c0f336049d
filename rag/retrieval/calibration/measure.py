"""Measuring fusion methods on calibration pairs, and choosing one by its held-back figures.

Each pair's three candidate lists come from the product's own statements (`text_rows`, and `hybrid_rows`
with one vector side's weight alone: the workspace model's, the multilingual model's), over the whole
workspace's shared documents, as a search would see them (the monolingual side stays off for a question
in another language than its model's and its weight goes to the multilingual side, as in
`chunks_retrieve`: `sides_applied`). Every method of the grid, a simplex of the three sides' weights, is
then replayed in Python (`rag.retrieval.fusion`).

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

from rag.models import Chunk
from rag.retrieval.calibration.pairs import CalibrationPair
from rag.retrieval.calibration.withheld import WithheldSides, withheld_lists
from rag.retrieval.fusion import FusionChoice, Ranked, fused_ids, sides_applied
from rag.retrieval.service import FUSION, vector_side_used
from rag.retrieval.sql import HybridParams, hybrid_rows, text_rows
from textmodels.embeddings import embed_texts
from textmodels.language import language_detect

RRF_KS = (10.0, 30.0, 60.0)
# The three sides' weights (vector, multilingual, text): the points of the simplex in sixths (RRF) and
# tenths (convex) where at least two sides count; the sides alone are `SIDES`.
RRF_STEPS = 6
CONVEX_STEPS = 10
SIDES = (FusionChoice(method="vector"), FusionChoice(method="multi"), FusionChoice(method="text"))
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
    multi: Measured | None = None


def grid() -> list[FusionChoice]:
    rrf = [
        FusionChoice(
            method="rrf", rrf_k=k, vector_weight=v, multi_weight=m, text_weight=1.0 - v - m
        )
        for k in RRF_KS
        for v, m in _simplex(RRF_STEPS)
    ]
    convex = [
        FusionChoice(method="convex", vector_share=v, multi_share=m)
        for v, m in _simplex(CONVEX_STEPS)
    ]
    return [*rrf, *convex, *SIDES]


def _simplex(steps: int) -> list[tuple[float, float]]:
    """(vector, multilingual) shares, text the rest, on a grid of `steps`, where two sides or more count."""
    points = []
    for v in range(steps + 1):
        for m in range(steps + 1 - v):
            t = steps - v - m
            if sum(part > 0 for part in (v, m, t)) >= 2:
                points.append((round(v / steps, 6), round(m / steps, 6)))
    return points


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
                held_out=_held_out(pair.key),
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


def calibration_choose(lists: Sequence[PairLists]) -> Calibration:
    """The measured best on the held-back half, never below the better single side."""
    return _calibration_measured(lists)


def _calibration_measured(lists: Sequence[PairLists]) -> Calibration:
    fit = [item for item in lists if not item.held_out]
    held = [item for item in lists if item.held_out]
    # Without a multilingual side (the workspace has none) its choices would replay as the others.
    multi_available = any(item.multi_on for item in lists)
    choices = [choice for choice in grid() if multi_available or not _uses_multi(choice)]
    measured = [
        Measured(choice, _figures(fit, choice), _figures(held, choice)) for choice in choices
    ]
    by_method: dict[str, list[Measured]] = {}
    for item in measured:
        by_method.setdefault(item.choice.method, []).append(item)
    # per family, the parameters that did best on the fitting half (the first of equals: grid order)
    finalists = [max(items, key=lambda m: m.fit.key()) for items in by_method.values()]
    vector, text = by_method["vector"][0], by_method["text"][0]
    multi = by_method["multi"][0] if multi_available else None
    sides = (vector, text) if multi is None else (vector, multi, text)
    # On the held-back half: best recall@5, then MRR. `max` keeps the first of equals and the reversed
    # list starts with the sides, so a side alone wins an exact tie with a fusion (the simpler search).
    chosen = max(reversed(finalists), key=lambda m: m.held_out.key())
    better_side = max(reversed(sides), key=lambda m: m.held_out.key())
    if (
        chosen.held_out.key() < better_side.held_out.key()
    ):  # the rule, should the ranking above change
        chosen = better_side
    return Calibration(
        chosen=chosen,
        candidates=measured,
        vector=vector,
        text=text,
        held_out_count=len(held),
        multi=multi,
    )


def side_shares(choice: FusionChoice) -> tuple[float, float, float]:
    """How much of a method's ranking comes from each side (vector, multilingual, text): 1 for a side
    alone, the shares of a convex combination, each weight's share of the three for RRF."""
    weights = choice.weights()
    total = sum(weights)
    if total <= 0:
        return (1 / 3, 1 / 3, 1 / 3)
    return (weights[0] / total, weights[1] / total, weights[2] / total)


def vector_share(choice: FusionChoice) -> float:
    """The vector side's share of a method's ranking (`side_shares`)."""
    return side_shares(choice)[0]


def _figures(lists: Sequence[PairLists], choice: FusionChoice) -> Figures:
    if not lists:
        return Figures(0.0, 0.0)
    found = 0.0
    reciprocals = []
    for item in lists:
        applied = sides_applied(choice=choice, vector_on=item.vector_on, multi_on=item.multi_on)
        ranked = fused_ids(vector=item.vector, multi=item.multi, text=item.text, choice=applied)
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


def _uses_multi(choice: FusionChoice) -> bool:
    return choice.method == "multi" or choice.multi_weight > 0 or choice.multi_share > 0
