"""How many CPU threads the local model uses in this process (`PARLEY_EMBEDDING_THREADS`, 0 = automatic).

Automatic: one thread where requests embed questions (web processes, the streams worker, scripts):
several requests embed at once there, and retrieval's full-text statement runs in PostgreSQL while the
question is embedded (`rag.retrieval.concurrent`), so a second torch thread only competes with them for
the cores: on 2 cores bench/turn measured a whole turn faster with one thread than with torch's default
of one per core (OpenMP threads spinning against PostgreSQL and each other;
docs/decisions/embedding-threads.md). In the
ingestion worker's prefork processes, which embed large batches and nothing else, the cores are shared
out instead: cores / PARLEY_WORKER_CONCURRENCY each (Celery's `worker_process_init` marks them).
"""

from __future__ import annotations

import os

from celery.signals import worker_process_init
from django.conf import settings

_batch_process = False


def embedding_threads() -> int:
    if settings.PARLEY_EMBEDDING_THREADS:
        return settings.PARLEY_EMBEDDING_THREADS
    if _batch_process:
        return max(1, (os.cpu_count() or 1) // settings.PARLEY_WORKER_CONCURRENCY)
    return 1


def _mark_batch_process(**_: object) -> None:
    """A prefork pool process of a Celery worker (the ingestion worker; the streams worker uses threads)."""
    global _batch_process
    _batch_process = True


# Connected by a call rather than as a decorator: Celery is untyped, and a decorator from it would
# leave the receiver untyped too.
worker_process_init.connect(_mark_batch_process)


def openmp_thread_limit() -> int:
    """OMP_THREAD_LIMIT as OpenMP reads it (0: none, or not a number)."""
    value = os.environ.get("OMP_THREAD_LIMIT", "")
    return int(value) if value.isdigit() else 0
