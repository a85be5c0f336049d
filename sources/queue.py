"""The sources' tasks as its services queue them: by name (core.queue), one function per task, so the
task module, which imports the services, is never imported back by them."""

from __future__ import annotations

from core.queue import task_enqueue

SYNC_RUN_TASK = "sources.sync_run"
DISPATCH_DUE_TASK = "sources.dispatch_due"


def sync_run_enqueue(*, sync_id: str) -> None:
    """Run (or resume) the sync (sources.tasks.sync_run_task)."""
    task_enqueue(SYNC_RUN_TASK, args=[sync_id])
