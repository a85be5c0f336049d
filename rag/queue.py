"""rag's tasks as its services queue them: by name (core.queue), one function per task, so the task
module, which imports the services, is never imported back by them. Callers choose when: most queue
after their transaction commits (transaction.on_commit)."""

from __future__ import annotations

from collections.abc import Sequence

from core.queue import task_enqueue, tasks_enqueue

DOCUMENT_INGEST_TASK = "rag.document_ingest"
WORKSPACE_FUSION_CALIBRATE_TASK = "rag.workspace_fusion_calibrate"
CHUNKS_MULTILINGUAL_BACKFILL_TASK = "rag.chunks_multilingual_backfill"
CHUNKS_PASSAGES_BACKFILL_TASK = "rag.chunks_passages_backfill"


def documents_ingest_enqueue(*, document_ids: Sequence[str]) -> None:
    """One ingestion message per document, through one broker connection (rag.tasks.document_ingest_task)."""
    tasks_enqueue(DOCUMENT_INGEST_TASK, args_each=[[document_id] for document_id in document_ids])


def document_ingest_enqueue(*, document_id: str, countdown: float | None = None) -> None:
    """One document's ingestion message, now or after `countdown` seconds."""
    task_enqueue(DOCUMENT_INGEST_TASK, args=[document_id], countdown=countdown)


def workspace_fusion_calibrate_enqueue(*, workspace_id: str) -> None:
    """Calibrate the workspace's fusion (rag.tasks.workspace_fusion_calibrate_task)."""
    task_enqueue(WORKSPACE_FUSION_CALIBRATE_TASK, args=[workspace_id])


def chunks_multilingual_backfill_enqueue(*, workspace_id: str) -> None:
    """Backfill the workspace's multilingual vectors (rag.tasks.chunks_multilingual_backfill_task)."""
    task_enqueue(CHUNKS_MULTILINGUAL_BACKFILL_TASK, args=[workspace_id])


def chunks_passages_backfill_enqueue(*, workspace_id: str) -> None:
    """Backfill the workspace's passages (rag.tasks.chunks_passages_backfill_task)."""
    task_enqueue(CHUNKS_PASSAGES_BACKFILL_TASK, args=[workspace_id])
