"""Loading a BEIR corpus into Parley's real tables (workspace "bench-turn") and into LangChain's PGVector
tables, in the same database with the same vectors; scaled to N chunks by cycling the corpus (replicas get
±0.01 uniform noise per dimension, as bench/retrieval's latency run does)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from django.db import connection

from bench.retrieval.corpus import Corpus, corpus_load
from bench.retrieval.embed import embeddings_cached, tokenizer_load
from bench.retrieval.load import workspace_load
from bots.models import Bot

SLUG = "bench-turn"


def corpus_scaled(folder: Path, size: int) -> tuple[Corpus, list[tuple[str, str, str]], np.ndarray]:
    """(corpus, [(doc id, lang, text)] of `size` chunks, their vectors)."""
    corpus = corpus_load(folder, tokenizer=tokenizer_load())
    vectors = embeddings_cached(f"{corpus.name}-chunks", [c.text for c in corpus.chunks])
    size = size or len(corpus.chunks)  # 0: the corpus as is, no replicas
    rng = np.random.default_rng(0)
    rows, out = [], []
    for i in range(size):
        chunk = corpus.chunks[i % len(corpus.chunks)]
        vector = vectors[i % len(corpus.chunks)]
        if i >= len(corpus.chunks):
            vector = vector + rng.uniform(-0.01, 0.01, vector.shape).astype(np.float32)
            vector /= np.linalg.norm(vector)
        rows.append((chunk.doc_id, chunk.lang, chunk.text))
        out.append(vector)
    return corpus, rows, np.array(out, dtype=np.float32)


def parley_load(rows: list[tuple[str, str, str]], vectors: np.ndarray) -> Bot:
    """The bench workspace, loaded into Parley's tables as bench/retrieval loads its corpora."""
    _, bot = workspace_load(SLUG, rows, vectors)
    return bot


def langchain_load(store, rows: list[tuple[str, str, str]], vectors: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    """The same chunks and vectors in PGVector's own tables (its collection is recreated when sizes differ)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM langchain_pg_embedding e JOIN langchain_pg_collection c ON c.uuid = e.collection_id"
            " WHERE c.name = %s",
            [store.collection_name],
        )
        if cursor.fetchone()[0] == len(rows):
            return
    store.delete_collection()
    store.create_collection()
    for start in range(0, len(rows), 1000):
        batch = rows[start : start + 1000]
        store.add_embeddings(
            texts=[text for _, _, text in batch],
            embeddings=vectors[start : start + 1000].tolist(),
            metadatas=[{"doc_id": doc_id} for doc_id, _, _ in batch],
        )
