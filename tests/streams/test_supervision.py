"""A stream's runner under watch (streams.sse.supervision): a run nobody queued is handed back to be queued
again, a copy queued twice runs once, and a run whose worker died ends its stream with an error that tells
the client to send the message again, instead of a stream that waits forever (issue 51, finding 6)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from config.celery import app as celery_app
from streams.redis_gateway import redis_sync
from streams.runners import stream_runner_open
from streams.sse.buffer import stream_key
from streams.sse.response import sse_events
from streams.sse.supervision import (
    REQUEUES_MAX,
    stream_lease_key,
    stream_run_key,
    stream_run_supervise,
)
from streams.tasks import stream_runner_execute

DEMO = {"interval": 0.0}


class _Caller:
    workspace_id = uuid.uuid4()
    bot_id = None
    visitor = None
    external_user_id = None


@pytest.fixture
def short_lease(settings) -> float:  # type: ignore[no-untyped-def]
    settings.API_SSE_RUNNER_LEASE_SECONDS = 0.5
    settings.API_SSE_HEARTBEAT_SECONDS = 0.2
    settings.API_SSE_PARTIAL_INTERVAL_MS = 0
    return 0.5


def _events(stream_id: str) -> list[tuple[str, dict[str, object]]]:
    """The stream's buffer as stored: (event, data), the close marker included."""
    entries = redis_sync().xrange(stream_key(stream_id))
    return [(fields["e"], json.loads(fields["d"])) for _, fields in entries]


def _relayed(stream_id: str) -> list[str]:
    """The frames a client reading the stream (already queued, or resumed) receives, to its end."""

    async def read() -> list[str]:
        return [frame async for frame in sse_events(stream_id=stream_id, cursor=None)]

    with ThreadPoolExecutor(max_workers=1) as executor:
        return executor.submit(asyncio.run, asyncio.wait_for(read(), timeout=20)).result()


def test_a_run_never_queued_is_handed_back_after_its_start_time_and_runs_once(
    short_lease: float,
) -> None:
    run = stream_runner_open(principal=_Caller(), runner="demo", kwargs=DEMO)  # never enqueued
    assert stream_run_supervise(stream_id=run.stream_id).outcome == "ok"  # still in time
    time.sleep(short_lease + 0.1)
    found = stream_run_supervise(stream_id=run.stream_id)
    assert (found.outcome, found.runner, found.kwargs) == ("requeue", "demo", DEMO)
    # One relay gets the re-queue; the start time moved on with it.
    assert stream_run_supervise(stream_id=run.stream_id).outcome == "ok"

    # The re-queued copy and the original message (late, not lost) both reach a worker: one runs.
    stream_runner_execute(run.stream_id, "demo", DEMO, True)
    stream_runner_execute(run.stream_id, "demo", DEMO, True)
    names = [event for event, _ in _events(run.stream_id)]
    assert names.count("tool_end") == 1 and names[-1] == "__close__"
    assert names.count("tool_update") == 4  # SEARCH_PREPARATION from the web process, once
    # The message text stays in Valkey only until a runner has it; the lease outlives the run.
    assert redis_sync().hget(stream_run_key(run.stream_id), "kwargs") is None
    assert redis_sync().get(stream_lease_key(run.stream_id)) == "done"
    time.sleep(short_lease + 0.1)
    assert stream_run_supervise(stream_id=run.stream_id).outcome == "ok"


def test_a_run_whose_worker_died_ends_its_stream_with_stream_interrupted(
    short_lease: float,
) -> None:
    run = stream_runner_open(principal=_Caller(), runner="demo", kwargs=DEMO)
    # What a worker's claim leaves when its process is then killed: a lease nobody renews.
    redis_sync().set(stream_lease_key(run.stream_id), "a-dead-worker", px=200)
    redis_sync().hset(stream_run_key(run.stream_id), "started", "1")

    frames = _relayed(run.stream_id)  # the relay notices within a quarter of a lease, then ends

    assert "SEARCH_PREPARATION" in frames[1]
    assert "event: error" in frames[-1] and '"code":"stream_interrupted"' in frames[-1]
    assert [event for event, _ in _events(run.stream_id)][-2:] == ["error", "__close__"]
    # A copy of the run that reaches a worker late finds it given up: it writes nothing.
    stream_runner_execute(run.stream_id, "demo", DEMO, True)
    assert [event for event, _ in _events(run.stream_id)][-1] == "__close__"


def test_a_run_that_never_starts_is_given_up_after_its_requeues(short_lease: float) -> None:
    run = stream_runner_open(principal=_Caller(), runner="demo", kwargs=DEMO)
    outcomes = []
    for _ in range(REQUEUES_MAX + 1):
        time.sleep(short_lease + 0.05)
        outcomes.append(stream_run_supervise(stream_id=run.stream_id).outcome)
    assert outcomes == ["requeue"] * REQUEUES_MAX + ["abandoned"]
    error = [data for event, data in _events(run.stream_id) if event == "error"]
    assert [body["code"] for body in error] == ["stream_interrupted"]  # type: ignore[index]


def test_a_run_queued_under_the_tasks_former_name_still_runs(short_lease: float) -> None:
    run = stream_runner_open(principal=_Caller(), runner="demo", kwargs=DEMO)
    celery_app.tasks["api.stream_runner_execute"].apply(args=(run.stream_id, "demo", DEMO, True))
    assert [event for event, _ in _events(run.stream_id)][-2:] == ["tool_end", "__close__"]
    assert stream_runner_execute.name == "streams.stream_runner_execute"  # its app's name now
