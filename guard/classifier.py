"""The learnt half of the detector: a logistic regression over [MiniLM embedding ‖ hashed character
n-grams ‖ hashed word n-grams] of a message, its weights in `model.npz` next to this file (plain arrays,
no pickle; loaded once).

The embedding is the one retrieval computes for the same text (textmodels.embeddings caches it), so the
classifier costs one hashing pass and one dot product per message.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import LogisticRegression

MODEL_PATH = Path(__file__).with_name("model.npz")
EMBEDDING_DIMS = 384
# Character n-grams inside word boundaries carry stems across inflections and languages the English
# MiniLM embedding reads poorly; word uni- and bigrams carry the phrases ("your instructions").
NGRAM_FEATURES = 2**15
NGRAM_RANGE = (2, 5)
WORD_FEATURES = 2**14
WORD_RANGE = (1, 2)
FEATURES = EMBEDDING_DIMS + NGRAM_FEATURES + WORD_FEATURES


@dataclass(frozen=True)
class ClassifierModel:
    weights: NDArray[np.float32]  # FEATURES: embedding, then character, then word n-grams
    bias: float
    meta: dict[str, object]

    def probabilities(
        self, *, folded: Sequence[str], embeddings: NDArray[np.float32]
    ) -> list[float]:
        """P(injection) for each folded text and its embedding (one row per text)."""
        logits = embeddings @ self.weights[:EMBEDDING_DIMS]
        logits += hashed_features(folded) @ self.weights[EMBEDDING_DIMS:] + self.bias
        return [float(p) for p in 1.0 / (1.0 + np.exp(-logits))]


def hashed_features(folded: Sequence[str]) -> Any:
    """[character ‖ word] n-gram counts of the folded texts, each part l2-normed (sparse rows)."""
    from scipy.sparse import hstack  # type: ignore[import-untyped]  # scipy ships no type information

    texts = list(folded)
    characters, words = _vectorisers()
    return hstack([characters.transform(texts), words.transform(texts)]).tocsr()


@functools.cache
def _vectorisers() -> tuple[HashingVectorizer, HashingVectorizer]:
    # Stateless: the same parameters hash the same n-grams to the same columns in every process.
    common = {"alternate_sign": False, "norm": "l2", "lowercase": False}
    return (
        HashingVectorizer(
            analyzer="char_wb", ngram_range=NGRAM_RANGE, n_features=NGRAM_FEATURES, **common
        ),
        HashingVectorizer(
            analyzer="word",
            ngram_range=WORD_RANGE,
            n_features=WORD_FEATURES,
            token_pattern=r"(?u)\b\w+\b",  # noqa: S106 (a regex, not a secret)
            **common,
        ),
    )


@functools.cache
def classifier_model() -> ClassifierModel | None:
    """The trained model, or None when the file is missing (the patterns then decide alone)."""
    if not MODEL_PATH.exists():
        return None
    with np.load(MODEL_PATH, allow_pickle=False) as data:
        return ClassifierModel(
            weights=data["weights"].astype(np.float32),
            bias=float(data["bias"][0]),
            meta=json.loads(str(data["meta"])),
        )


def classifier_features(*, folded: Sequence[str], embeddings: NDArray[np.float32]) -> Any:
    """The sparse training matrix: one row [embedding ‖ n-grams] per text, as `probabilities` reads it."""
    from scipy.sparse import csr_matrix, hstack

    return hstack([csr_matrix(embeddings), hashed_features(folded)]).tocsr()


def classifier_fit(
    *, features: Any, labels: NDArray[np.int_], regularisation: float
) -> tuple[NDArray[np.float32], float]:
    """Fit the regression: (weights, bias). Classes are balanced (the sets hold fewer attacks)."""
    fitted = LogisticRegression(
        C=regularisation, class_weight="balanced", max_iter=2000, solver="liblinear"
    )
    fitted.fit(features, labels)
    return fitted.coef_[0].astype(np.float32), float(fitted.intercept_[0])


def classifier_train(
    *,
    folded: Sequence[str],
    embeddings: NDArray[np.float32],
    labels: Sequence[int],
    meta: dict[str, object],
    regularisation: float = 4.0,
) -> ClassifierModel:
    """Fit on every example (no calibration: guard.training adds it)."""
    weights, bias = classifier_fit(
        features=classifier_features(folded=folded, embeddings=embeddings),
        labels=np.asarray(labels),
        regularisation=regularisation,
    )
    return ClassifierModel(weights=weights, bias=bias, meta=meta)


def classifier_save(*, model: ClassifierModel, path: Path = MODEL_PATH) -> None:
    np.savez_compressed(
        path,
        weights=model.weights,
        bias=np.asarray([model.bias], dtype=np.float64),
        meta=np.asarray(json.dumps(model.meta, sort_keys=True)),
    )
    classifier_model.cache_clear()
