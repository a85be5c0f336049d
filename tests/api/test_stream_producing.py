"""A producer always closes its stream, and a failure reaches readers as an error event."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import uuid

import pytest
from django.core.management import call_command

from api.errors import ApiError, ErrorCode
from streams.redis_gateway import redis_producer, redis_sync
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


class _ReplyDroppingProxy:
    """Between the producer and Valkey: passes everything through, except that the reply to the first
    command batch holding a stream write never arrives (the connection closes instead), as when a
    restart comes after the write was applied."""

    def __init__(self, *, upstream: dict) -> None:
        self.upstream = (
            upstream  # redis-py's connection kwargs: a unix socket path, or host and port
        )
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.armed = threading.Event()  # a write went to the server
        self.dropped = threading.Event()  # and its reply was swallowed
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = _connected(self.upstream)
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, replies: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                writes = b"XADD" in data.upper() or b"EVAL" in data.upper()
                if not replies and writes and not self.dropped.is_set():
                    self.armed.set()
                if replies and self.armed.is_set() and not self.dropped.is_set():
                    self.dropped.set()
                    break
                target.sendall(data)
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.close()


def _connected(upstream: dict) -> socket.socket:
    if "path" in upstream:  # the embedded Valkey listens on a unix socket only
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.connect(upstream["path"])
        return server
    return socket.create_connection((upstream["host"], upstream["port"]))


def test_a_write_applied_before_the_connection_dropped_is_not_appended_twice(settings) -> None:
    stream_id = _new_stream()
    upstream = redis_sync().connection_pool.connection_kwargs
    proxy = _ReplyDroppingProxy(upstream=upstream)
    settings.REDIS_URL = f"redis://127.0.0.1:{proxy.port}/{upstream.get('db', 0)}"
    redis_producer.cache_clear()
    try:
        with stream_producing(stream_id=stream_id) as emit:
            emit.partial(content="Once")
    finally:
        redis_producer.cache_clear()
        proxy.listener.close()
    assert proxy.dropped.is_set()  # the client did retry a write Valkey had applied
    assert _buffer(stream_id) == [
        ("tool_partial_update", {"content": "Once", "output_key": "response"}),
        (CLOSE_MARKER, {}),
    ]
