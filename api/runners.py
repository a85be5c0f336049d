"""Streamed work run by a Celery worker: a registry of runners and the call that starts one.

A runner is a function ``run(*, emit: StreamEmitter, **kwargs)`` taking JSON-able kwargs; it
reports progress and its result through ``emit``. A streamed endpoint calls ``stream_runner_open``
and answers ``sse_response(stream_id=run.stream_id, on_first_event=run.enqueue)``: the response
sends the announced first event, then enqueues the run, so the client's first event waits for
neither the broker nor a worker. The worker runs the runner inside ``stream_producing``, so the
stream always ends, with an ``error`` event on failure.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.module_loading import import_string

from api.principal import Principal
from api.sse import StreamEmitter, StreamOwner, stream_open

# name → dotted path, resolved in the worker; the chat and rag_search runners join this map.
RUNNERS: dict[str, str] = {
    "demo": "api.runners.demo_run",
    "chat_turn": "api.pipeline_runners.chat_turn_run",
    "rag_search": "api.pipeline_runners.rag_search_run",
}

_DEMO_ANSWER = (
    "Parley streams each answer word by word, then sends the whole result in one final event."
)


def runner_resolve(*, name: str) -> Callable[..., None]:
    if name not in RUNNERS:
        raise KeyError(f"no stream runner named {name!r}")
    return import_string(RUNNERS[name])


@dataclass(frozen=True)
class PendingRun:
    """An opened stream whose runner is not queued yet."""

    stream_id: str
    runner: str
    kwargs: dict[str, Any]

    def enqueue(self) -> None:
        """Queue the runner on the streams queue (see config.celery)."""
        from api.tasks import stream_runner_execute

        stream_runner_execute.delay(self.stream_id, self.runner, self.kwargs, True)


def stream_runner_open(
    *,
    principal: Principal,
    runner: str,
    kwargs: dict[str, Any],
    bot_id: uuid.UUID | None = None,
    conversation_id: uuid.UUID | None = None,
) -> PendingRun:
    """Opens a stream owned by the caller, announcing SEARCH_PREPARATION at once; the caller enqueues the run.

    The first event leaves from the web process, so its latency includes neither the broker nor the
    worker's pick-up.
    """
    runner_resolve(
        name=runner
    )  # an unknown name fails here, in the request, not later in the worker
    owner = StreamOwner.for_principal(principal, bot_id=bot_id, conversation_id=conversation_id)
    return PendingRun(
        stream_id=stream_open(owner=owner, announce=True), runner=runner, kwargs=kwargs
    )


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
