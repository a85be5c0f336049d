"""Choosing a workspace's fusion by its held-back figures.

Every method of the grid, a simplex of the three sides' weights, is replayed on the pairs' lists
(`measure.pair_lists`). Each family's parameters (RRF: k and the weights; convex: the vector share) are
picked on the fitting half; the families' best and each side alone then compete on the held-back half, by
recall@5 and then MRR@10, a side alone winning a tie. A fusion therefore never comes out below the better
side on the held-back half.

No rule set by hand overrides that measurement: the measured best wins, subject only to the general rule
"never below the better single side". The pairs are what keeps it honest (`pairs.py`: real questions first,
else sentences withheld from the chunks they came from), not a preference written here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rag.retrieval.calibration.measure import PairLists
from rag.retrieval.fusion import FusionChoice, fused_ids, sides_applied

RRF_KS = (10.0, 30.0, 60.0)
# The three sides' weights (vector, multilingual, text): the points of the simplex in sixths (RRF) and
# tenths (convex) where at least two sides count; the sides alone are `SIDES`.
RRF_STEPS = 6
CONVEX_STEPS = 10
SIDES = (FusionChoice(method="vector"), FusionChoice(method="multi"), FusionChoice(method="text"))


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


def _uses_multi(choice: FusionChoice) -> bool:
    return choice.method == "multi" or choice.multi_weight > 0 or choice.multi_share > 0
