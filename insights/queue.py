"""The insights tasks as its services queue them: by name (core.queue), one function per task, so the
task module, which imports the services, is never imported back by them."""

from __future__ import annotations

from django.db import transaction

from core.queue import task_enqueue

GAP_CLUSTERING_COMPUTE_TASK = "insights.gap_clustering_compute"
EVALUATION_RUN_EXECUTE_TASK = "insights.evaluation_run_execute"


def gap_clustering_compute_enqueue(*, clustering_id: str) -> None:
    """After commit, compute the clustering (insights.tasks.gap_clustering_compute_task)."""
    transaction.on_commit(lambda: task_enqueue(GAP_CLUSTERING_COMPUTE_TASK, args=[clustering_id]))


def evaluation_run_execute_enqueue(*, run_id: str) -> None:
    """After commit, execute the run (insights.tasks.evaluation_run_execute_task)."""
    transaction.on_commit(lambda: task_enqueue(EVALUATION_RUN_EXECUTE_TASK, args=[run_id]))
