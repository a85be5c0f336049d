"""The streams' Celery task: run a stream runner, publishing into its stream (ids and JSON only)."""

from __future__ import annotations

from typing import Any

from core.typed_tasks import task
from streams.queue import STREAM_RUNNER_EXECUTE_TASK
from streams.runners import runner_resolve
from streams.sse import stream_producing
from streams.sse.supervision import stream_run_claimed


@task(name=STREAM_RUNNER_EXECUTE_TASK, acks_late=False)
def stream_runner_execute(
    stream_id: str, runner: str, kwargs: dict[str, Any], announced: bool = False
) -> None:
    # acks_late is off on purpose: re-running a half-streamed answer would duplicate its events.
    # announced: the web process already sent SEARCH_PREPARATION started (streams.runners).
    with stream_run_claimed(stream_id=stream_id) as claimed:
        if (
            not claimed
        ):  # another copy of this run has it (a relay queued it again), or it was given up
            return
        with stream_producing(stream_id=stream_id, announced=announced) as emit:
            runner_resolve(name=runner)(emit=emit, **kwargs)


# The task's name before it moved to this app: messages queued under it before the rename still run.
@task(name="api.stream_runner_execute", acks_late=False)
def stream_runner_execute_former_name(
    stream_id: str, runner: str, kwargs: dict[str, Any], announced: bool = False
) -> None:
    stream_runner_execute(stream_id, runner, kwargs, announced)
