"""Plain embedding of chunk texts in N processes of T torch threads each: the pipeline's own parallelism, without it."""

from __future__ import annotations

import multiprocessing
import os
import time
from multiprocessing.synchronize import Barrier


def embed_in_processes(texts: list[str], *, processes: int, threads: int) -> tuple[float, float]:
    """Wall-clock seconds for `processes` spawned processes to embed contiguous shares of `texts` (models preloaded),
    and the CPU seconds they spent doing it."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(processes)
    results = context.Queue()
    share = -(-len(texts) // processes)
    children = [
        context.Process(
            target=_embed_share,
            args=(texts[n * share : (n + 1) * share], threads, barrier, results),
        )
        for n in range(processes)
    ]
    for child in children:
        child.start()
    timings = [results.get(timeout=3600) for _ in children]
    for child in children:
        child.join()
    return max(wall for wall, _ in timings), sum(cpu for _, cpu in timings)


def _embed_share(
    texts: list[str], threads: int, barrier: Barrier, results: multiprocessing.Queue
) -> None:
    os.environ["PARLEY_EMBEDDING_THREADS"] = str(threads)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from textmodels.embeddings import embedding_provider_get, multilingual_model_default

    # Both models, as ingestion embeds every chunk with the workspace model and the multilingual one.
    providers = [embedding_provider_get()]
    if multilingual_model_default():
        providers.append(embedding_provider_get(model_id=multilingual_model_default()))
    for provider in providers:
        provider.embed_texts(["warm up"])
    barrier.wait()
    started, cpu_started = time.perf_counter(), time.process_time()
    for provider in providers:
        provider.embed_texts(texts)
    results.put((time.perf_counter() - started, time.process_time() - cpu_started))
