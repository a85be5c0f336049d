"""A producer always closes its stream, and a failure reaches readers as an error event."""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.management import call_command

from api.errors import ApiError, ErrorCode
from streams.redis_gateway import redis_sync
from streams.runners import stream_runner_open
from streams.sse import StreamOwner, stream_open, stream_producing
from streams.sse.buffer import CLOSE_MARKER, stream_key
from tests.api.factories import workspace_make


def _buffer(stream_id: str) -> list[tuple[str, dict]]:
    return [(f["e"], json.loads(f["d"])) for _, f in redis_sync().xrange(stream_key(stream_id))]


def _new_stream() -> str:
    return stream_open(owner=StreamOwner(workspace_id=str(uuid.uuid4())))


def test_a_finished_producer_closes_the_stream() -> None:
    stream_id = _new_stream()
    with stream_producing(stream_id=stream_id) as emit:
        emit.partial(content="Hi")
    assert _buffer(stream_id) == [
        ("tool_partial_update", {"content": "Hi", "output_key": "response"}),
        (CLOSE_MARKER, {}),
    ]


def test_a_failing_producer_sends_an_error_event_without_details_then_closes() -> None:
    stream_id = _new_stream()
    with pytest.raises(RuntimeError), stream_producing(stream_id=stream_id):
        raise RuntimeError("database password is hunter2")
    events = _buffer(stream_id)
    assert events[0] == (
        "error",
        {"code": "internal_error", "message": "An internal error occurred.", "extra": {}},
    )
    assert events[-1][0] == CLOSE_MARKER
    assert "hunter2" not in json.dumps(events)


def test_an_api_error_keeps_its_code_in_the_stream() -> None:
    stream_id = _new_stream()
    with pytest.raises(ApiError), stream_producing(stream_id=stream_id):
        raise ApiError(ErrorCode.NOT_FOUND)
    assert _buffer(stream_id)[0] == (
        "error",
        {"code": "not_found", "message": "Not found.", "extra": {}},
    )


def test_an_unknown_runner_fails_in_the_request_not_in_the_worker() -> None:
    with pytest.raises(KeyError):
        stream_runner_open(principal=None, runner="nope", kwargs={})  # type: ignore[arg-type]


def test_two_streams_cannot_share_an_id() -> None:
    stream_id = _new_stream()
    with pytest.raises(ValueError):
        stream_open(owner=StreamOwner(workspace_id="x"), stream_id=stream_id)
    with pytest.raises(ValueError):
        stream_open(owner=StreamOwner(workspace_id="x"), stream_id="../etc")


@pytest.mark.django_db
def test_the_demo_command_produces_a_scripted_run(capsys: pytest.CaptureFixture[str]) -> None:
    workspace = workspace_make()
    call_command("api_stream_demo", workspace=workspace.slug, interval=0)
    stream_id = capsys.readouterr().out.split()[1]
    names = [event for event, _ in _buffer(stream_id)]
    assert names[:4] == ["tool_update"] * 4
    assert names[-2:] == ["tool_end", CLOSE_MARKER]
    assert set(names[4:-2]) == {"tool_partial_update"}
