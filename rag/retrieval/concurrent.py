"""The full-text statement, run while the question is embedded.

The full-text side needs only the query text, so `chunks_retrieve` starts it on a small thread pool
before it embeds the question and collects it afterwards: PostgreSQL ranks the matching chunks on one
core while this process embeds on the other (bench/turn: the search phase after the embedding drops
by the full-text statement's time, about half of it at 10k chunks).

- The statement runs on the pool thread's own connection (Django's connections are per thread), handed
  back after each statement: to the psycopg pool, or kept as Django keeps persistent connections.
- Inside a transaction of the caller's, another connection would not see what that transaction wrote,
  so the statement runs inline, on the caller's connection, when it is collected.
- A statement still queued when it is collected (every pool thread busy) is taken back and run inline:
  a busy pool never makes a search wait longer than running it itself.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections, connection

from rag.retrieval.sql import HybridParams, TextHit, text_rows

_executor: ThreadPoolExecutor | None = None
_executor_pid = 0
_lock = threading.Lock()


def text_search_start(*, params: HybridParams) -> Callable[[], list[TextHit]]:
    """Start the full-text statement; the returned callable waits for its hits (or runs it inline)."""
    if (
        settings.RETRIEVAL_TEXT_THREADS == 0
        or connection.in_atomic_block
        or params.text_weight <= 0
    ):
        return lambda: text_rows(params=params)
    future = _pool().submit(_on_own_connection, params)
    return lambda: _collected(future, params)


def _collected(future: Future[list[TextHit]], params: HybridParams) -> list[TextHit]:
    if future.cancel():  # still queued: every pool thread is busy
        return text_rows(params=params)
    return future.result()


def _on_own_connection(params: HybridParams) -> list[TextHit]:
    try:
        return text_rows(params=params)
    finally:
        close_old_connections()  # as Django does after a request: back to the pool, or kept while fresh


def _pool() -> ThreadPoolExecutor:
    """The process's pool, created on first use (again in a forked child: threads do not survive a fork)."""
    global _executor, _executor_pid
    with _lock:
        if _executor is None or _executor_pid != os.getpid():
            _executor = ThreadPoolExecutor(
                max_workers=settings.RETRIEVAL_TEXT_THREADS, thread_name_prefix="fulltext"
            )
            _executor_pid = os.getpid()
        return _executor
