"""Calibrate the classifier on its own training data: out-of-fold scores from a grouped k-fold split
pick the regularisation and the probability cut that keeps false positives on the benign examples
under a target, and the saved bias is shifted so that cut lands on the detector's default threshold.

Nothing here reads bench/guard's held-out sets: the cut comes from the training examples alone.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from guard.classifier import classifier_fit

FOLDS = 5
REGULARISATIONS = (4.0, 16.0, 64.0)
# Share of the benign look-alikes (Parley's written and templated ones, the hardest benign texts:
# product questions full of trigger words) the cut may flag. Measured on all benign examples together
# (with the background text and deepset's easy rows) the target would sit too low for real traffic.
FALSE_POSITIVE_TARGET = 0.01


@dataclass(frozen=True)
class Calibration:
    regularisation: float
    cut: float  # the out-of-fold probability that should read as the default threshold
    detection: float  # out-of-fold detection of the training attacks at the cut
    false_positives: float  # out-of-fold false-positive rate of the benign look-alikes at the cut
    false_positives_all: float  # ... and of every benign example
    # Each training example's out-of-fold probability at the chosen regularisation (for reports).
    scores: NDArray[np.float64] = field(repr=False, compare=False)


def folds_assign(*, groups: Sequence[str], folds: int = FOLDS) -> NDArray[np.int_]:
    """A stable fold per example: its group's (a template's fillings stay together) or its own."""
    return np.asarray(
        [zlib.crc32((group or f"#{index}").encode()) % folds for index, group in enumerate(groups)]
    )


def out_of_fold(
    *, features: Any, labels: NDArray[np.int_], fold: NDArray[np.int_], regularisation: float
) -> NDArray[np.float64]:
    """Each example's probability from the model fitted on the other folds."""
    scores = np.zeros(len(labels), dtype=np.float64)
    for held in np.unique(fold):
        train, test = fold != held, fold == held
        weights, bias = classifier_fit(
            features=features[train], labels=labels[train], regularisation=regularisation
        )
        logits = features[test] @ weights.astype(np.float64) + bias
        scores[test] = 1.0 / (1.0 + np.exp(-logits))
    return scores


def cut_pick(
    *,
    scores: NDArray[np.float64],
    labels: NDArray[np.int_],
    lookalike: NDArray[np.bool_],
    target: float = FALSE_POSITIVE_TARGET,
) -> tuple[float, float, float]:
    """(cut, detection, false positives): the lowest cut flagging at most `target` of the benign
    look-alikes."""
    chosen = (labels == 0) & lookalike
    benign = np.sort(scores[chosen if chosen.any() else labels == 0])[::-1]
    allowed = math.floor(target * len(benign))
    # Just above the (allowed + 1)-th highest benign score: that one and all below it pass.
    cut = float(np.nextafter(benign[allowed], 1.0)) if allowed < len(benign) else 0.5
    detection = float(np.mean(scores[labels == 1] >= cut))
    false_positives = float(np.mean(benign >= cut))
    return cut, detection, false_positives


def classifier_calibrate(
    *,
    features: Any,
    labels: NDArray[np.int_],
    groups: Sequence[str],
    lookalike: NDArray[np.bool_],
) -> Calibration:
    """The regularisation with the best out-of-fold detection at the target, and its cut.
    `lookalike` marks the benign examples the target is measured on."""
    fold = folds_assign(groups=groups)
    best: Calibration | None = None
    for regularisation in REGULARISATIONS:
        scores = out_of_fold(
            features=features, labels=labels, fold=fold, regularisation=regularisation
        )
        cut, detection, false_positives = cut_pick(
            scores=scores, labels=labels, lookalike=lookalike
        )
        if best is None or detection > best.detection:
            everything = float(np.mean(scores[labels == 0] >= cut))
            best = Calibration(
                regularisation=regularisation,
                cut=cut,
                detection=detection,
                false_positives=false_positives,
                false_positives_all=everything,
                scores=scores,
            )
    assert best is not None
    return best


def bias_shift(*, cut: float, target_probability: float) -> float:
    """What to add to the bias so that a text scoring `cut` now scores `target_probability`."""
    return _logit(target_probability) - _logit(min(max(cut, 1e-6), 1 - 1e-6))


def probabilities_shift(probabilities: NDArray[np.float64], *, shift: float) -> NDArray[np.float64]:
    """The probabilities once `shift` (bias_shift's) is added to their logits: what the saved
    model reads for the same texts."""
    clipped = np.clip(probabilities, 1e-9, 1 - 1e-9)
    return 1.0 / (1.0 + np.exp(-(np.log(clipped / (1.0 - clipped)) + shift)))


def _logit(probability: float) -> float:
    return math.log(probability / (1.0 - probability))
