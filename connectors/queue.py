"""The connectors' tasks as their services queue them: by name (core.queue), one function per task, so
the task module, which imports the services, is never imported back by them."""

from __future__ import annotations

from core.queue import task_enqueue

INBOUND_PROCESS_TASK = "connectors.inbound_process"
THREAD_DELIVER_TASK = "connectors.thread_deliver"


def inbound_process_enqueue(*, event_id: int) -> None:
    """Process an accepted message (connectors.tasks.inbound_process_task)."""
    task_enqueue(INBOUND_PROCESS_TASK, args=[event_id])


def thread_deliver_enqueue(*, thread_id: int, countdown: float | None = None) -> None:
    """Run a delivery pass of the thread's outbox (connectors.tasks.thread_deliver_task)."""
    task_enqueue(THREAD_DELIVER_TASK, args=[thread_id], countdown=countdown)
