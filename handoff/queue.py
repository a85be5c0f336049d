"""The handoff's tasks as its services queue them: by name (core.queue), one function per task, so the
task module, which imports the services, is never imported back by them."""

from __future__ import annotations

from core.queue import task_enqueue

TIMEOUT_CHECK_TASK = "handoff.timeout_check"
PENDING_ANSWER_TASK = "handoff.pending_answer"


def handoff_timeout_enqueue(*, handoff_id: str, countdown: float) -> None:
    """Check the handoff once its policy's timeout has passed (handoff.tasks.handoff_timeout_check)."""
    task_enqueue(TIMEOUT_CHECK_TASK, args=[handoff_id], countdown=countdown)


def handoff_pending_answer_enqueue(*, handoff_id: str) -> None:
    """Have the bot answer what the agent left unanswered (handoff.tasks.handoff_pending_answer_task)."""
    task_enqueue(PENDING_ANSWER_TASK, args=[handoff_id])
