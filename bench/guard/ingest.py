"""bench/guard's document side: what the ingest screen costs per document and the ingestion throughput
ratio with the screen on vs off, against two baselines.

Each corpus document is chunked as ingestion chunks it (rag.chunking, the configured chunk size) and
goes through ingestion's model stages in ingestion's order (rag.ingestion.embed):
- its chunks embedded with the local model (MiniLM),
- its chunks embedded with the multilingual model (PARLEY_EMBEDDING_MULTILINGUAL, when on),
- its chunks' passages made and embedded with both (rag.passages, for the offline composer),
then screened with the MiniLM vectors reused (rag.ingestion.screen does the same).

Two ratios are printed: the screen against MiniLM's chunk embedding alone (a lower bound: the cheapest
ingestion could be), and against the model stages as shipped (the pipeline's ratio, which the issue
bounds). Parsing and database writes are left out of both, so both are lower bounds of the pipeline's.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path


def ingest_throughput(root: Path, *, corpus: str, limit: int) -> None:
    from bench.guard.sets import corpora_chunks, ingestion_chunks
    from guard.detector import injection_detect_batch
    from rag.passages.make import document_sources, passages_make
    from textmodels.embeddings import LOCAL_MODEL_ID, embed_texts, multilingual_model_default

    documents = corpora_chunks(root, limit=limit).get(corpus, [])
    if not documents:
        print(f"ingest throughput: no {corpus} documents under {root}")
        return
    multi_model_id = multilingual_model_default()
    embed_texts(["warm-up"], model_id=LOCAL_MODEL_ID)
    if multi_model_id:
        embed_texts(["warm-up"], model_id=multi_model_id)
    injection_detect_batch(
        texts=["warm-up text. A second sentence. A third one here."], documents=True
    )
    seconds = {"embed": 0.0, "multi": 0.0, "passages": 0.0, "screen": 0.0}
    per_document, chunks = [], 0
    for text in documents:
        texts = ingestion_chunks(text)
        chunks += len(texts)
        marks = [time.perf_counter()]
        vectors = embed_texts(texts, model_id=LOCAL_MODEL_ID)
        marks.append(time.perf_counter())
        if multi_model_id:
            embed_texts(texts, model_id=multi_model_id)
        marks.append(time.perf_counter())
        passages_make(
            sources=document_sources(texts=texts),
            model_id=LOCAL_MODEL_ID,
            multi_model_id=multi_model_id,
        )
        marks.append(time.perf_counter())
        injection_detect_batch(
            texts=texts, embeddings=vectors, documents=True, sources=[0] * len(texts)
        )
        marks.append(time.perf_counter())
        for stage, start, end in zip(seconds, marks[:-1], marks[1:], strict=True):
            seconds[stage] += end - start
        per_document.append((marks[-1] - marks[-2]) * 1000)
    shipped = seconds["embed"] + seconds["multi"] + seconds["passages"]
    screen = seconds["screen"]
    print(
        f"ingest, {corpus}: {len(documents)} documents, {chunks} chunks; screen per document "
        f"p50 {statistics.median(per_document):.2f} ms, p95 {_p95(per_document):.2f} ms; "
        f"stages (s): MiniLM chunks {seconds['embed']:.1f}, multilingual chunks "
        f"{seconds['multi']:.1f} ({multi_model_id or 'off'}), passages {seconds['passages']:.1f}, "
        f"screen {screen:.1f}"
    )
    for name, base in (("MiniLM chunk embedding alone", seconds["embed"]), ("as shipped", shipped)):
        print(
            f"  throughput vs {name}: screen off {len(documents) / base:.2f} docs/s, on "
            f"{len(documents) / (base + screen):.2f} docs/s: ratio {base / (base + screen):.3f}"
        )


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]
