"""The fusion methods of the three candidate lists (the workspace model's vectors, the multilingual
model's vectors, full text), as data (`FusionChoice`) and as a Python reference.

`rag.retrieval.sql` computes the same formulas inside the hybrid statement (one round trip); the
calibration (`rag.retrieval.calibration`) replays them here over each side's candidates, so a grid
of methods costs one search per side and pair instead of one per method. A test holds the two equal.

- "rrf": weighted reciprocal rank fusion, vector_weight / (rrf_k + vector rank) + multi_weight / (rrf_k
  + multilingual rank) + text_weight / (rrf_k + text rank).
- "convex": a convex combination of min-max normalised scores, vector_share · v + multi_share · m
  + (1 − vector_share − multi_share) · t, each side scaled to [0, 1] over its own candidates (a chunk one
  side did not return gets that side's 0). A side that is off for a question (the monolingual model on a
  question in another language) returns no candidates: its term is 0 for every chunk, so the others
  keep their relative weights. Min-max rather than z-scores: the sides' scores live on unrelated scales
  (cosine, BM25) and their candidate lists are short and skewed, where a z-score's mean and deviation
  swing with the list's tail and are unbounded, so one share would not mean the same across queries;
  min-max keeps both sides on [0, 1] with the best candidate of each at 1 (Bruch et al., "An Analysis of
  Fusion Functions for Hybrid Retrieval", 2023, found it the robust choice for a convex combination).
- "vector" / "multi" / "text": one side alone (what calibration picks when no fusion beats the best side).
The multilingual weight and share default to 0, so a calibration stored before that side existed reads as
the two-side fusion it measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

FusionMethod = Literal["rrf", "convex", "vector", "multi", "text"]
METHODS: tuple[str, ...] = ("rrf", "convex", "vector", "multi", "text")
SIDE_METHODS: tuple[str, ...] = ("vector", "multi", "text")


@dataclass(frozen=True)
class FusionChoice:
    method: FusionMethod
    rrf_k: float = 10.0
    vector_weight: float = 1.0  # rrf only
    text_weight: float = 0.5  # rrf only
    vector_share: float = 0.5  # convex only
    multi_weight: float = 0.0  # rrf only
    multi_share: float = 0.0  # convex only

    def label(self) -> str:
        if self.method == "rrf":
            return (
                f"RRF k={self.rrf_k:g} vector:multilingual:text="
                f"{self.vector_weight:.3g}:{self.multi_weight:.3g}:{self.text_weight:.3g}"
            )
        if self.method == "convex":
            return (
                f"convex min-max, shares vector {self.vector_share:.3g}, multilingual"
                f" {self.multi_share:.3g}, text {self.text_share:.3g}"
            )
        return f"{self.method} side alone"

    @property
    def text_share(self) -> float:
        return max(0.0, 1.0 - self.vector_share - self.multi_share)

    def weights(self) -> tuple[float, float, float]:
        """(vector, multilingual, text): how much each side counts, for the statement's candidate
        limits (a side at 0 is not searched) and the RRF formula."""
        if self.method in SIDE_METHODS:
            vector, multi, text = (float(self.method == side) for side in SIDE_METHODS)
            return (vector, multi, text)
        if self.method == "convex":
            return (self.vector_share, self.multi_share, self.text_share)
        return (self.vector_weight, self.multi_weight, self.text_weight)

    def parameters(self) -> dict[str, float]:
        """The fields that matter for this method (what the calibration row stores)."""
        values = asdict(self)
        keep = {
            "rrf": ("rrf_k", "vector_weight", "multi_weight", "text_weight"),
            "convex": ("vector_share", "multi_share"),
        }.get(self.method, ())
        return {name: float(values[name]) for name in keep}

    @classmethod
    def from_stored(cls, *, method: str, parameters: dict[str, Any]) -> FusionChoice:
        if method not in METHODS:
            raise ValueError(f"unknown fusion method {method!r}")
        fields = {name: float(value) for name, value in parameters.items() if name in _FIELDS}
        # `fields` holds only the float fields (_FIELDS), never `method`, which mypy cannot see in **fields.
        return cls(method=method, **fields)  # type: ignore[arg-type]  # floats only, see above


def sides_applied(*, choice: FusionChoice, vector_on: bool, multi_on: bool) -> FusionChoice:
    """`sides_for_question` once the sides' states are known (the calibration replays it per pair)."""
    if choice.method == "vector" and not vector_on:
        return FusionChoice(method="multi" if multi_on else "text")
    if choice.method == "multi" and not multi_on:
        return FusionChoice(method="vector" if vector_on else "text")
    if choice.method not in ("rrf", "convex"):
        return choice
    if not multi_on:
        choice = replace(choice, multi_weight=0.0, multi_share=0.0)
    if not vector_on:
        moved = multi_on
        choice = replace(
            choice,
            vector_weight=0.0,
            vector_share=0.0,
            multi_weight=choice.multi_weight + (choice.vector_weight if moved else 0.0),
            multi_share=choice.multi_share + (choice.vector_share if moved else 0.0),
        )
    if sum(choice.weights()) <= 0:
        return FusionChoice(method="text")
    return choice


_FIELDS = ("rrf_k", "vector_weight", "text_weight", "vector_share", "multi_weight", "multi_share")
Ranked = Sequence[tuple[str, float]]  # (chunk id, score), best first


def fused_ids(
    *, vector: Ranked, text: Ranked, choice: FusionChoice, multi: Ranked = ()
) -> list[str]:
    """The chunk ids in the order the hybrid statement returns them for `choice` (ties by id)."""
    sides = {"vector": vector, "multi": multi, "text": text}
    if choice.method in sides:
        return [chunk_id for chunk_id, _ in sides[choice.method]]
    scores: dict[str, float] = {}
    # A side at weight 0 is not searched by the statement: it brings no candidates here either.
    weighted = [
        (weight, ranked)
        for weight, ranked in zip(choice.weights(), (vector, multi, text), strict=True)
        if weight > 0
    ]
    if choice.method == "rrf":
        for weight, ranked in weighted:
            for rank, (chunk_id, _) in enumerate(ranked, start=1):
                scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (choice.rrf_k + rank)
    else:
        for weight, ranked in weighted:
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
