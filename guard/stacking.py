"""The message score: a logistic combination of the classifier's logit and each cue family's strongest
hand weight, whose coefficients (the cue weights) and band cuts are learnt on the tuning data's
out-of-fold scores instead of being set by hand.

The bands: the refusal cut is the lowest score refusing at most REFUSE_TARGET of wildguard's tuning
prompts (benign requests that sound risky) and FALSE_POSITIVE_TARGET of Parley's look-alikes; the watch
cut the lowest taking at most WATCH_TARGET of them into either band. Training maps the two cuts onto
DEFAULT_THRESHOLD and DEFAULT_WATCH, so a bot's thresholds read on the same scale whatever the model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression

from guard.patterns import PatternHit

# Cue families; a hit of any other label counts as "other".
CUE_LABELS = (
    "override",
    "prompt_extraction",
    "role_play",
    "fake_system",
    "policy_disabled",
    "format_hijack",
    "encoded_payload",
    "context_override",
)
REFUSE_TARGET = 0.03
WATCH_TARGET = 0.12
LOOKALIKE_REFUSE_TARGET = 0.03
LOOKALIKE_WATCH_TARGET = 0.10


@dataclass(frozen=True)
class Stack:
    weights: tuple[float, ...]  # the classifier's logit, then one per CUE_LABELS and "other"
    bias: float

    def score(self, *, probability: float, hits: Sequence[PatternHit]) -> float:
        logit = float(np.dot(self.weights, stack_row(probability=probability, hits=hits)))
        return 1.0 / (1.0 + math.exp(-(logit + self.bias)))

    def as_json(self) -> dict[str, object]:
        return {"weights": list(self.weights), "bias": self.bias, "labels": list(CUE_LABELS)}


def stack_load(meta: dict[str, object]) -> Stack | None:
    stored = meta.get("stack")
    if not isinstance(stored, dict) or stored.get("labels") != list(CUE_LABELS):
        return None
    return Stack(tuple(float(w) for w in stored["weights"]), float(stored["bias"]))


def stack_row(*, probability: float, hits: Sequence[PatternHit]) -> NDArray[np.float64]:
    clipped = min(max(probability, 1e-6), 1 - 1e-6)
    row = np.zeros(len(CUE_LABELS) + 2)
    row[0] = math.log(clipped / (1 - clipped))
    for hit in hits:
        column = CUE_LABELS.index(hit.label) + 1 if hit.label in CUE_LABELS else len(CUE_LABELS) + 1
        row[column] = max(row[column], hit.weight)
    return row


def stack_fit(
    *, rows: NDArray[np.float64], labels: NDArray[np.int_]
) -> tuple[NDArray[np.float64], float]:
    fitted = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)
    fitted.fit(rows, labels)
    return fitted.coef_[0], float(fitted.intercept_[0])


def stack_out_of_fold(
    *, rows: NDArray[np.float64], labels: NDArray[np.int_], fold: NDArray[np.int_]
) -> NDArray[np.float64]:
    """Each example's combined logit from the combination fitted on the other folds."""
    logits = np.zeros(len(labels))
    for held in np.unique(fold):
        weights, bias = stack_fit(rows=rows[fold != held], labels=labels[fold != held])
        logits[fold == held] = rows[fold == held] @ weights + bias
    return logits


def bands_pick(
    *, logits: NDArray[np.float64], wildguard: NDArray[np.bool_], lookalike: NDArray[np.bool_]
) -> tuple[float, float]:
    """(refuse cut, watch cut) in logits: the lowest cuts within the targets on each benign group."""
    refuse = max(
        _cut(logits[wildguard], REFUSE_TARGET), _cut(logits[lookalike], LOOKALIKE_REFUSE_TARGET)
    )
    watch = max(
        _cut(logits[wildguard], WATCH_TARGET), _cut(logits[lookalike], LOOKALIKE_WATCH_TARGET)
    )
    return refuse, min(watch, refuse - 0.5)


def _cut(benign: NDArray[np.float64], target: float) -> float:
    if not len(benign):
        return -math.inf
    ranked = np.sort(benign)[::-1]
    allowed = math.floor(target * len(ranked))
    return float(np.nextafter(ranked[allowed], np.inf)) if allowed < len(ranked) else -math.inf


def bands_map(
    *,
    weights: NDArray[np.float64],
    bias: float,
    refuse: float,
    watch: float,
    refuse_score: float,
    watch_score: float,
) -> Stack:
    """The combination rescaled (in logit space) so the refuse cut scores `refuse_score` and the watch
    cut `watch_score`."""
    high, low = _logit(refuse_score), _logit(watch_score)
    scale = (high - low) / (refuse - watch)
    offset = high - scale * refuse
    return Stack(tuple(float(w) * scale for w in weights), bias * scale + offset)


def _logit(probability: float) -> float:
    return math.log(probability / (1 - probability))


@dataclass(frozen=True)
class StackCalibration:
    stack: Stack
    # Each example's out-of-fold score on the final scale (what the saved detector would give a text
    # it never saw), for the per-source report.
    scores: NDArray[np.float64]
    meta: dict[str, object]


def stack_calibrate(
    *,
    cues: Sequence[Sequence[PatternHit]],
    probabilities: NDArray[np.float64],
    labels: NDArray[np.int_],
    fold: NDArray[np.int_],
    wildguard: NDArray[np.bool_],
    lookalike: NDArray[np.bool_],
    refuse_score: float,
    watch_score: float,
) -> StackCalibration:
    """Learn the combination on out-of-fold classifier probabilities, pick the bands on its own
    out-of-fold logits, and fit it on everything, rescaled onto the bands' scores. `cues` are each
    example's pattern hits (guard.detector.injection_cues), beside its probability."""
    rows = np.asarray(
        [
            stack_row(probability=float(p), hits=hits)
            for hits, p in zip(cues, probabilities, strict=True)
        ]
    )
    logits = stack_out_of_fold(rows=rows, labels=labels, fold=fold)
    refuse, watch = bands_pick(
        logits=logits, wildguard=wildguard & (labels == 0), lookalike=lookalike & (labels == 0)
    )
    weights, bias = stack_fit(rows=rows, labels=labels)
    stack = bands_map(
        weights=weights,
        bias=bias,
        refuse=refuse,
        watch=watch,
        refuse_score=refuse_score,
        watch_score=watch_score,
    )
    high, low = _logit(refuse_score), _logit(watch_score)
    scale = (high - low) / (refuse - watch)
    scores = 1.0 / (1.0 + np.exp(-(scale * (logits - refuse) + high)))
    meta: dict[str, object] = {
        "refuse_logit": round(refuse, 4),
        "watch_logit": round(watch, 4),
        "tuning_wildguard_refused": round(float(np.mean(scores[wildguard] >= refuse_score)), 4)
        if wildguard.any()
        else None,
        "tuning_wildguard_watched": round(
            float(np.mean((scores[wildguard] >= watch_score) & (scores[wildguard] < refuse_score))),
            4,
        )
        if wildguard.any()
        else None,
    }
    return StackCalibration(stack=stack, scores=scores, meta=meta)
