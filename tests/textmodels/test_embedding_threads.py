"""The local model's CPU threads per process: one where requests embed questions, shared cores in prefork workers."""

from __future__ import annotations

from celery.signals import worker_process_init

from textmodels.embeddings import threads


def test_one_thread_outside_the_ingestion_workers_processes(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    settings.PARLEY_EMBEDDING_THREADS = 0
    monkeypatch.setattr(threads, "_batch_process", False)
    assert threads.embedding_threads() == 1


def test_a_prefork_process_shares_the_cores_out(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    settings.PARLEY_EMBEDDING_THREADS = 0
    settings.PARLEY_WORKER_CONCURRENCY = 1
    monkeypatch.setattr(threads, "_batch_process", False)
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 4)
    worker_process_init.send(sender=None)  # what Celery sends in each pool process it forks
    assert threads.embedding_threads() == 4
    settings.PARLEY_WORKER_CONCURRENCY = 3
    assert threads.embedding_threads() == 1


def test_an_explicit_setting_wins(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    settings.PARLEY_EMBEDDING_THREADS = 3
    monkeypatch.setattr(threads, "_batch_process", True)
    assert threads.embedding_threads() == 3
