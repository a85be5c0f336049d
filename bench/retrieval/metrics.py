"""Recall@k and MRR counted by document, and rank fusion computed in Python for parameter sweeps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import mean

CUTOFFS = (1, 5, 10)


@dataclass(frozen=True)
class Scores:
    recall: dict[str, float]
    mrr: float  # MRR@10, by document

    def row(self) -> list[str]:
        return [f"{self.recall[c]:.3f}" for c in CUTOFFS] + [f"{self.mrr:.3f}"]


def scores_compute(rankings: Sequence[list[str]], relevant: Sequence[frozenset[str]]) -> Scores:
    recall = {
        c: mean(
            len(set(docs[:c]) & rel) / len(rel)
            for docs, rel in zip(rankings, relevant, strict=True)
        )
        for c in CUTOFFS
    }
    reciprocal = []
    for docs, rel in zip(rankings, relevant, strict=True):
        first = next((i for i, doc in enumerate(docs[: max(CUTOFFS)], start=1) if doc in rel), None)
        reciprocal.append(1 / first if first else 0.0)
    return Scores(recall=recall, mrr=mean(reciprocal))


def rrf_fuse(
    vector: Sequence[tuple[str, float]],
    text: Sequence[tuple[str, float]],
    *,
    vector_weight: float,
    text_weight: float,
    rrf_k: float,
    depth: int,
) -> list[str]:
    """Weighted reciprocal rank fusion of the first `depth` candidates of each side (ties by id, as in SQL)."""
    fused: dict[str, float] = {}
    for weight, hits in ((vector_weight, vector), (text_weight, text)):
        for rank, (chunk_id, _) in enumerate(hits[:depth], start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (rrf_k + rank)
    return [chunk_id for chunk_id, _ in sorted(fused.items(), key=lambda item: (-item[1], item[0]))]


def score_fuse(
    vector: Sequence[tuple[str, float]],
    text: Sequence[tuple[str, float]],
    *,
    vector_weight: float,
    depth: int,
) -> list[str]:
    """Convex combination of min-max normalised scores (the alternative to rank fusion)."""

    def normalised(hits: Sequence[tuple[str, float]]) -> dict[str, float]:
        hits = hits[:depth]
        if not hits:
            return {}
        low, high = min(s for _, s in hits), max(s for _, s in hits)
        span = (high - low) or 1.0
        return {chunk_id: (score - low) / span for chunk_id, score in hits}

    v, t = normalised(vector), normalised(text)
    fused = {
        cid: vector_weight * v.get(cid, 0.0) + (1 - vector_weight) * t.get(cid, 0.0)
        for cid in v.keys() | t.keys()
    }
    return [chunk_id for chunk_id, _ in sorted(fused.items(), key=lambda item: (-item[1], item[0]))]
