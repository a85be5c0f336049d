"""A web process SIGKILLed between a streamed turn's first event and its runner's start (issue 51, finding
6: three streams held only SEARCH_PREPARATION, their runner never ran, and the client waited forever).

The killed process (a real uvicorn of its own) queues its runs where no worker listens, so no runner can
start before the kill, whatever the timing: the stream then holds only the first event the killed
process wrote, as in the cluster run. The client resumes on the other web process (the session's), whose
relay finds the run not started within its lease and queues it again; the message is answered once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import httpx
import pytest
from django.conf import settings
from httpx_sse import connect_sse

from config.celery import app as celery_app
from conversations.models import Conversation, Turn
from streams.redis_gateway import redis_sync
from streams.sse.buffer import stream_key
from tests.conftest import TEST_QUEUE, llm_child_env
from tests.faults.conftest import QUESTION, Shop, invariants_check, stream_outcome
from tests.support.llm_server import Reply, ScriptedLLMServer
from tests.support.processes import child_database_url, free_port, process_group_stop, wait_for
from tests.support.sse_follow import Followed

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(120)]

NOWHERE = "parley-test-nowhere"  # a queue no worker consumes: the run is as good as never queued


@pytest.fixture
def doomed_web(llm_server: ScriptedLLMServer) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A second uvicorn process, the one to kill; its runs' start time is one second."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": child_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "DATABASE_CONN_MAX_AGE": "0",
        "CELERY_TASK_DEFAULT_QUEUE": TEST_QUEUE,
        "CELERY_STREAM_QUEUE": NOWHERE,
        "API_SSE_RUNNER_LEASE_SECONDS": "1",
        **llm_child_env(llm_server),
    }
    argv = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
    argv += ["--port", str(port), "--log-level", "warning", "--no-access-log", "--lifespan", "off"]
    process = subprocess.Popen(argv, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def answering() -> bool:
        assert process.poll() is None, f"uvicorn exited with {process.returncode}"
        try:
            urllib.request.urlopen(f"{base}/api/v1/me", timeout=1)  # noqa: S310 (local test server)
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False
        return True

    try:
        wait_for(answering, timeout=60, interval=0.2, what="the uvicorn process to kill")
        yield process, base
    finally:
        process_group_stop(process)
        with celery_app.connection_for_write() as connection:  # the message nobody was to run
            connection.default_channel.queue_purge(NOWHERE)


def test_a_web_process_killed_after_the_first_event_the_message_is_answered_once(
    shop: Shop, llm: ScriptedLLMServer, doomed_web: tuple[subprocess.Popen[bytes], str]
) -> None:
    process, doomed = doomed_web
    llm.enqueue(Reply(content=shop.answer_json, token_delay=0.005))
    conversation = Conversation.objects.create(bot=shop.bot)
    body = {"message": QUESTION, "client_message_id": "killed-web-1", "stream": True}
    url = f"{doomed}/api/v1/conversations/{conversation.pk}/turns"
    events = []
    with httpx.Client(timeout=30) as client:
        with connect_sse(client, "POST", url, headers=shop.headers, json=body) as source:
            stream_id = source.response.headers["X-Parley-Stream-Id"]
            first = next(source.iter_sse())
            events.append(first)
            os.killpg(process.pid, signal.SIGKILL)  # between the first event and the runner's start
            process.wait(timeout=10)
            with pytest.raises((httpx.TransportError, httpx.StreamError)):
                for _ in source.iter_sse():
                    pass
        assert json.loads(first.data) == {"phase": "SEARCH_PREPARATION", "status": "started"}
        assert [e["e"] for _, e in redis_sync().xrange(stream_key(stream_id))] == ["tool_update"]

        # The client resumes on the web process left (widget.js does so through the balancer).
        resume = f"{shop.base}/api/v1/streams/{stream_id}/events"
        headers = {**shop.headers, "Last-Event-ID": first.id}
        with connect_sse(client, "GET", resume, headers=headers) as source:
            # Heartbeats would keep a stream nobody answers open forever: hang up after 30 s.
            watchdog = threading.Timer(30, source.response.close)
            watchdog.start()
            try:
                events += list(source.iter_sse())
            except (httpx.StreamError, httpx.TransportError):
                pass  # closed by the watchdog: the outcome below says what was missing
            finally:
                watchdog.cancel()

    outcome, result = stream_outcome(Followed(stream_id=stream_id, events=events))
    assert outcome == "tool_end", result
    assert [json.loads(e.data).get("phase") for e in events].count("SEARCH_PREPARATION") == 1
    [turn] = Turn.objects.filter(conversation=conversation)
    assert turn.client_message_id == "killed-web-1" and turn.completed_at is not None
    assert result["turn_id"] == str(turn.pk)
    assert "25 euros" in turn.answer
    invariants_check()
