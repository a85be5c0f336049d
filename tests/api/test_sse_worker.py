"""The deployed shape: a Celery worker produces, Redis buffers, a uvicorn process relays to the client."""

from __future__ import annotations

import json

import httpx
import pytest
from httpx_sse import connect_sse

from api.authentication import server_key_principal
from streams.runners import stream_runner_open
from tests.api.factories import server_key_make, workspace_make
from tests.api.test_sse_live import join_deltas

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True), pytest.mark.timeout(90)]


def test_a_worker_streams_a_run_that_the_web_process_relays(
    live_api: str, celery_worker: str
) -> None:
    raw, _ = server_key_make(workspace_make())
    principal = server_key_principal(raw_key=raw)
    run = stream_runner_open(
        principal=principal, runner="demo", kwargs={"interval": 0.05, "padding": 6000}
    )
    run.enqueue()
    stream_id = run.stream_id
    url = f"{live_api}/api/v1/streams/{stream_id}/events"
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(client, "GET", url, headers={"Authorization": f"Bearer {raw}"}) as source,
    ):
        events = list(source.iter_sse())
    joined = join_deltas(events)
    names = [name for name, _, _ in joined]
    assert names[:4] == ["tool_update"] * 4
    assert names[-1] == "tool_end"
    assert set(names[4:-1]) == {"tool_partial_update"}
    answer = "".join(data["content"] for name, _, data in joined if name == "tool_partial_update")
    result = joined[-1][2]
    assert answer == result["response"]
    partials = names.count(
        "tool_partial_update"
    )  # a word every ~17 ms, at most one delta per 50 ms
    assert partials < len(result["response"].split(" ")) / 2
    assert result["model"] == "scripted-demo" and len(result["padding"]) == 6000
    assert any(event.event == "tool_end_delta_sse" for event in events)
    assert json.loads(events[0].data) == {"phase": "SEARCH_PREPARATION", "status": "started"}
