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

Then one more step, because synthetic pairs are biased: a query cut from a chunk repeats its words, so
the full-text side finds nearly all of them (held-back recall 0.98-1.00 on every set measured), far more
than it finds a real user's paraphrase. Such a half saturates: many methods tie at its top, and the
ranking among them is noise (bench/retrieval: on covid-faq-en the raw pairs chose RRF 0.2:0.8, whose
recall@5 on the real questions was 0.77, below the vector side's 0.89). So every measured method whose
held-back recall@5 is within one binomial standard error of the best (and not below the better side),
and its MRR within one standard error of the best's, counts as equal; of those the one whose vector
shares are closest to the sides' own balance wins (each side's held-back MRR over the sum of the sides'
MRR: a weak side gets a small share, strong ones an even split; distance by the sum of absolute
differences of the three shares), then MRR. That choice still
comes from this workspace's measurements; it only refuses to read a preference into differences the
pairs cannot show.
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
from rag.retrieval.fusion import FusionChoice, Ranked, fused_ids, sides_applied
from rag.retrieval.service import FUSION, vector_side_used
from rag.retrieval.sql import HybridParams, hybrid_rows, text_rows

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
            multi_model_id=multi_model_id,
        )
        text = [(hit.chunk_id, hit.score) for hit in text_rows(params=params)]
        language = language_detect(pair.query) or pair.language
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
        targets = frozenset(pair.document_ids or (pair.chunk_id,))
        out.append(
            PairLists(
                targets,
                vector_hits,
                text,
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


def calibration_choose(
    lists: Sequence[PairLists], *, spans_only: bool = False, default: FusionChoice | None = None
) -> Calibration:
    """`spans_only`: the queries are raw sentence spans (no paraphrase, no question set). They repeat
    their chunk's words, so they overrate the full-text side against every method that fuses (on
    covid-faq-en the best of them on such pairs, convex 0.4, found 0.848 of the real questions' answers
    in its top 5 where the default RRF 2:1 found 0.902). Then, while both sides are usable (the weaker
    side's held-back MRR at least half the stronger's), `default` is kept, measured like the others;
    a side too weak to fuse is still left out by the measured choice."""
    calibration = _calibration_measured(lists)
    if not spans_only or default is None:
        return calibration
    weaker, stronger = sorted((calibration.vector.held_out.mrr, calibration.text.held_out.mrr))
    if stronger == 0 or weaker < stronger / 2:
        return calibration
    fit = [item for item in lists if not item.held_out]
    held = [item for item in lists if item.held_out]
    kept = Measured(default, _figures(fit, default), _figures(held, default))
    return replace(calibration, chosen=kept)


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
    vector, multi, text = by_method["vector"][0], by_method["multi"][0], by_method["text"][0]
    sides = (vector, multi, text) if any(item.multi_on for item in lists) else (vector, text)
    # On the held-back half: best recall@5, then MRR. `max` keeps the first of equals and the reversed
    # list starts with the sides, so a side alone wins an exact tie with a fusion (the simpler search).
    chosen = max(reversed(finalists), key=lambda m: m.held_out.key())
    better_side = max(reversed(sides), key=lambda m: m.held_out.key())
    if (
        chosen.held_out.key() < better_side.held_out.key()
    ):  # the rule, should the ranking above change
        chosen = better_side
    chosen = _most_balanced_of_equals(
        measured,
        best=chosen,
        floor=better_side.held_out.recall_at_5,
        held_out=len(held),
        balance=_sides_balance(
            # a side no pair could use (a monolingual model's, every query in another language) has none
            vector=vector.held_out if any(item.vector_on for item in lists) else Figures(0.0, 0.0),
            multi=multi.held_out if any(item.multi_on for item in lists) else Figures(0.0, 0.0),
            text=text.held_out,
        ),
    )
    return Calibration(chosen, measured, vector, text, held_out_count=len(held), multi=multi)


def _sides_balance(*, vector: Figures, multi: Figures, text: Figures) -> tuple[float, float, float]:
    """The shares the sides' own strength suggests: each side's MRR over their sum."""
    total = vector.mrr + multi.mrr + text.mrr
    if total <= 0:
        return (1 / 3, 1 / 3, 1 / 3)
    return (vector.mrr / total, multi.mrr / total, text.mrr / total)


def _most_balanced_of_equals(
    measured: Sequence[Measured],
    *,
    best: Measured,
    floor: float,
    held_out: int,
    balance: tuple[float, float, float],
) -> Measured:
    """Of the methods the held-back half cannot tell from `best` (recall@5 within one binomial standard
    error of it, at least 1/n, and never below `floor`, the best side's), the one whose shares are
    closest to `balance`, then the best MRR; `best` itself when the half is empty."""
    if held_out == 0:
        return best
    top = best.held_out.recall_at_5
    margin = max(math.sqrt(top * (1.0 - top) / held_out), 1.0 / held_out)
    equals = [
        item for item in measured if item.held_out.recall_at_5 >= max(top - margin, floor) - 1e-9
    ]
    return min(
        equals or [best],
        key=lambda item: (
            sum(abs(a - b) for a, b in zip(side_shares(item.choice), balance, strict=True)),
            -item.held_out.mrr,
        ),
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
