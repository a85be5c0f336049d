"""The fusion methods of the two candidate lists, as data (`FusionChoice`) and as a Python reference.

`rag.retrieval.sql` computes the same formulas inside the hybrid statement (one round trip); the
calibration (`rag.retrieval.calibration`) replays them here over each side's candidates, so a grid
of methods costs one search per side and pair instead of one per method. A test holds the two equal.

- "rrf": weighted reciprocal rank fusion, vector_weight / (rrf_k + vector rank) + text_weight / (rrf_k
  + text rank).
- "convex": a convex combination of min-max normalised scores, vector_share · v + (1 − vector_share) · t,
  each side scaled to [0, 1] over its own candidates (a chunk one side did not return gets that side's
  0). Min-max rather than z-scores: the sides' scores live on unrelated scales (cosine, BM25) and their
  candidate lists are short and skewed, where a z-score's mean and deviation swing with the list's tail
  and are unbounded, so one share would not mean the same across queries; min-max keeps both sides on
  [0, 1] with the best candidate of each at 1 (Bruch et al., "An Analysis of Fusion Functions for Hybrid
  Retrieval", 2023, found it the robust choice for a convex combination).
- "vector" / "text": one side alone (what calibration picks when no fusion beats the better side).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

FusionMethod = Literal["rrf", "convex", "vector", "text"]
METHODS: tuple[str, ...] = ("rrf", "convex", "vector", "text")


@dataclass(frozen=True)
class FusionChoice:
    method: FusionMethod
    rrf_k: float = 10.0
    vector_weight: float = 1.0  # rrf only
    text_weight: float = 0.5  # rrf only
    vector_share: float = 0.5  # convex only

    def label(self) -> str:
        if self.method == "rrf":
            return f"RRF k={self.rrf_k:g} vector:text={self.vector_weight:g}:{self.text_weight:g}"
        if self.method == "convex":
            return f"convex min-max, vector share {self.vector_share:g}"
        return f"{self.method} side alone"

    def parameters(self) -> dict[str, float]:
        """The fields that matter for this method (what the calibration row stores)."""
        values = asdict(self)
        keep = {
            "rrf": ("rrf_k", "vector_weight", "text_weight"),
            "convex": ("vector_share",),
        }.get(self.method, ())
        return {name: float(values[name]) for name in keep}

    @classmethod
    def from_stored(cls, *, method: str, parameters: dict[str, Any]) -> FusionChoice:
        if method not in METHODS:
            raise ValueError(f"unknown fusion method {method!r}")
        fields = {name: float(value) for name, value in parameters.items() if name in _FIELDS}
        return cls(method=method, **fields)  # type: ignore[arg-type]


_FIELDS = ("rrf_k", "vector_weight", "text_weight", "vector_share")
Ranked = Sequence[tuple[str, float]]  # (chunk id, score), best first


def fused_ids(*, vector: Ranked, text: Ranked, choice: FusionChoice) -> list[str]:
    """The chunk ids in the order the hybrid statement returns them for `choice` (ties by id)."""
    if choice.method == "vector":
        return [chunk_id for chunk_id, _ in vector]
    if choice.method == "text":
        return [chunk_id for chunk_id, _ in text]
    scores: dict[str, float] = {}
    if choice.method == "rrf":
        for weight, ranked in ((choice.vector_weight, vector), (choice.text_weight, text)):
            for rank, (chunk_id, _) in enumerate(ranked, start=1):
                scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (choice.rrf_k + rank)
    else:
        share = choice.vector_share
        for weight, ranked in ((share, vector), (1.0 - share, text)):
            for chunk_id, value in _min_max(ranked):
                scores[chunk_id] = scores.get(chunk_id, 0.0) + weight * value
    return sorted(scores, key=lambda chunk_id: (-scores[chunk_id], chunk_id))


def _min_max(ranked: Ranked) -> list[tuple[str, float]]:
    if not ranked:
        return []
    values = [score for _, score in ranked]
    low, high = min(values), max(values)
    if high == low:  # one candidate, or all tied: each is that side's best
        return [(chunk_id, 1.0) for chunk_id, _ in ranked]
    return [(chunk_id, (score - low) / (high - low)) for chunk_id, score in ranked]
