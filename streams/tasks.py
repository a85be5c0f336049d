"""The streams' Celery task: run a stream runner, publishing into its stream (ids and JSON only)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from streams.runners import runner_resolve
from streams.sse import stream_producing


# The name predates this app; kept so queued messages and CELERY_TASK_ROUTES keep finding it.
@shared_task(name="api.stream_runner_execute", acks_late=False)
def stream_runner_execute(
    stream_id: str, runner: str, kwargs: dict[str, Any], announced: bool = False
) -> None:
    # acks_late is off on purpose: re-running a half-streamed answer would duplicate its events.
    # announced: the web process already sent SEARCH_PREPARATION started (streams.runners).
    with stream_producing(stream_id=stream_id, announced=announced) as emit:
        runner_resolve(name=runner)(emit=emit, **kwargs)
