"""The stream runner's task as streams queue it: by name (core.queue), so neither the runners nor the
relays import the task module, which imports them."""

from __future__ import annotations

from typing import Any

from core.queue import task_enqueue

STREAM_RUNNER_EXECUTE_TASK = "streams.stream_runner_execute"


def stream_run_enqueue(*, stream_id: str, runner: str, kwargs: dict[str, Any]) -> None:
    """Queue a stream's run (its first event already announced); a relay queues it again through here."""
    # argsrepr/kwargsrepr: Celery otherwise writes saferepr() of the arguments into every message's
    # headers (CPU on the request's path, and the visitor's question shown to anyone watching
    # the broker or a monitor). The stream id and runner name are enough to find a run.
    task_enqueue(
        STREAM_RUNNER_EXECUTE_TASK,
        args=(stream_id, runner, kwargs, True),
        argsrepr=f"({stream_id!r}, {runner!r}, ...)",
        kwargsrepr="{}",
    )
