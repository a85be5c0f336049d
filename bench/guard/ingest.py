"""bench/guard's document side: what the ingest screen costs per document and the ingestion throughput
ratio with the screen on vs off.

Each corpus document is chunked as ingestion chunks it (rag.chunking, the configured chunk size),
embedded with the local model (ingestion's dominant cost, the baseline: screen off), then screened
with the embeddings reused (rag.ingestion.screen does the same). Database writes are left out of both
sides, so the ratio is a lower bound of the pipeline's.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path


def ingest_throughput(root: Path, *, corpus: str, limit: int) -> None:
    from django.conf import settings

    from bench.guard.sets import corpora_chunks
    from rag.chunking import chunks_build
    from rag.embeddings import LOCAL_MODEL_ID, embed_texts
    from rag.guard import injection_detect_batch
    from rag.parsing import Block

    documents = corpora_chunks(root, limit=limit).get(corpus, [])
    if not documents:
        print(f"ingest throughput: no {corpus} documents under {root}")
        return
    embed_texts(["warm-up"], model_id=LOCAL_MODEL_ID)
    injection_detect_batch(
        texts=["warm-up text. A second sentence. A third one here."], documents=True
    )
    embed_seconds, screen_seconds, per_document = 0.0, 0.0, []
    chunks = 0
    for text in documents:
        blocks = [Block(text=paragraph) for paragraph in text.split("\n") if paragraph.strip()]
        drafts = chunks_build(
            blocks=blocks,
            title="",
            size=settings.PARLEY_CHUNK_TOKENS,
            overlap=settings.PARLEY_CHUNK_OVERLAP_TOKENS,
        )
        texts = [draft.text for draft in drafts]
        chunks += len(texts)
        started = time.perf_counter()
        vectors = embed_texts(texts, model_id=LOCAL_MODEL_ID)
        embedded = time.perf_counter()
        injection_detect_batch(texts=texts, embeddings=vectors, documents=True)
        screened = time.perf_counter()
        embed_seconds += embedded - started
        screen_seconds += screened - embedded
        per_document.append((screened - embedded) * 1000)
    ratio = embed_seconds / (embed_seconds + screen_seconds)
    print(
        f"ingest, {corpus}: {len(documents)} documents, {chunks} chunks; screen per document "
        f"p50 {statistics.median(per_document):.2f} ms, p95 {_p95(per_document):.2f} ms; "
        f"throughput screen off {len(documents) / embed_seconds:.1f} docs/s, on "
        f"{len(documents) / (embed_seconds + screen_seconds):.1f} docs/s: ratio {ratio:.3f}"
    )


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]
