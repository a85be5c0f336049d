"""Streamed work run by a Celery worker: the call that starts a runner, and the task's look-up of it.

A runner is a function ``run(*, emit: StreamEmitter, **kwargs)`` taking JSON-able kwargs, named by
its dotted path (the caller's own function: no registry), or ``demo`` for the scripted one here; it
reports progress and its result through ``emit``. A streamed endpoint calls ``stream_runner_open``
and answers ``sse_response(stream_id=run.stream_id, on_first_event=run.enqueue)``: the response
sends the announced first event, then enqueues the run, so the client's first event waits for
neither the broker nor a worker. The worker runs the runner inside ``stream_producing``, so the
stream always ends, with an ``error`` event on failure.

A crash between the first event and the queueing (the web process killed) cannot leave the stream
waiting forever: the run's record is written before the first event, and a relay of the stream finds
the run not started in time and queues it again (``streams.sse.supervision``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.module_loading import import_string

from streams.queue import stream_run_enqueue
from streams.sse import StreamEmitter, StreamOwner, stream_open
from streams.sse.buffer import StreamCaller, stream_announce
from streams.sse.supervision import stream_run_record

# The runners of this module, by a short name; any other runner is named by its dotted path.
BUILTIN_RUNNERS: dict[str, str] = {"demo": f"{__name__}.demo_run"}
Runner = Callable[..., None]

_DEMO_ANSWER = (
    "Parley streams each answer word by word, then sends the whole result in one final event."
)


def runner_name(runner: str | Runner) -> str:
    return runner if isinstance(runner, str) else f"{runner.__module__}.{runner.__qualname__}"


def runner_resolve(*, name: str) -> Runner:
    try:
        runner: Runner = import_string(BUILTIN_RUNNERS.get(name, name))
    except ImportError:
        raise KeyError(f"no stream runner named {name!r}") from None
    return runner


@dataclass(frozen=True)
class PendingRun:
    """An opened stream whose runner is not queued yet."""

    stream_id: str
    runner: str
    kwargs: dict[str, Any]

    def enqueue(self) -> None:
        """Queue the runner on the streams queue (see config.celery)."""
        stream_run_enqueue(stream_id=self.stream_id, runner=self.runner, kwargs=self.kwargs)


def stream_runner_open(
    *,
    principal: StreamCaller,
    runner: str | Runner,
    kwargs: dict[str, Any],
    bot_id: uuid.UUID | None = None,
    conversation_id: uuid.UUID | None = None,
) -> PendingRun:
    """Opens a stream owned by the caller, announcing SEARCH_PREPARATION at once; the caller enqueues the run.

    The first event leaves from the web process, so its latency includes neither the broker nor the
    worker's pick-up.
    """
    name = runner_name(runner)
    runner_resolve(name=name)  # an unknown name fails here, in the request, not later in the worker
    owner = StreamOwner.for_principal(principal, bot_id=bot_id, conversation_id=conversation_id)
    stream_id = stream_open(owner=owner)
    # The record before the first event: a client never holds a stream whose run nobody can find.
    stream_run_record(stream_id=stream_id, runner=name, kwargs=kwargs)
    stream_announce(stream_id=stream_id)
    return PendingRun(stream_id=stream_id, runner=name, kwargs=kwargs)


def demo_run(*, emit: StreamEmitter, interval: float = 0.3, padding: int = 0) -> None:
    """A scripted rag_search run in the spec's event vocabulary, for trying clients before the pipeline."""
    steps: list[Callable[[], None]] = [
        emit.search_preparation_started,
        lambda: emit.retrieval_completed(retrieved_count=12),
        lambda: emit.reranking_completed(initial_count=12, reranked_count=12, kept_count=4),
        emit.compiling_results_started,
    ]
    for step in steps:
        time.sleep(interval)
        step()
    for index, word in enumerate(_DEMO_ANSWER.split(" ")):
        time.sleep(interval / 3)
        emit.partial(content=word if index == 0 else f" {word}")
    result = {
        "response": _DEMO_ANSWER,
        "contexts": [],
        "sources_used": [],
        "model": "scripted-demo",
    }
    emit.end(
        result={**result, "execution_id": f"demo_{uuid.uuid4().hex[:12]}", "padding": "." * padding}
    )
