"""Test session wiring: the embedded services start when settings load (see core.embedded),
and a real Celery worker process runs against the test database when a test asks for it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from django.conf import settings

from config.celery import app as celery_app
from tests.support.llm_server import ScriptedLLMServer
from tests.support.processes import child_database_url, process_group_stop, wait_for

pytest_plugins = ["tests.support.browser", "tests.support.llm_fixtures"]

TEST_QUEUE = "parley-test"

# Streamed offline answers pause between partials only for a person to see them: never in tests (the
# environment reaches the worker and server processes the tests start).
os.environ["PARLEY_OFFLINE_STREAM_PAUSE_MS"] = "0"
settings.PARLEY_OFFLINE_STREAM_PAUSE_MS = 0

# Tests enqueue onto their own queue, so a developer's running worker never takes their tasks.
celery_app.conf.task_default_queue = TEST_QUEUE
celery_app.conf.task_routes = {
    "api.stream_runner_execute": {"queue": TEST_QUEUE}
}  # streamed answers too


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The fault suite runs last: it really stops and restarts the session's PostgreSQL and Valkey, and
    connections this process pooled before a restart (Celery's broker pool among them) would fail the
    tests that come after it."""
    items.sort(key=lambda item: "/tests/faults/" in str(item.path))


def llm_child_env(server: ScriptedLLMServer) -> dict[str, str]:
    """What a child process needs so that bots whose provider is "openai" talk to the scripted server."""
    return {
        "LLM_BASE_URL": server.base_url,
        "LLM_API_KEY": "test-key",
        "LLM_MODEL": "scripted-model",
    }


@pytest.fixture(scope="session")
def celery_worker(
    django_db_setup: None, django_db_blocker: pytest.FixtureRequest, llm_server: ScriptedLLMServer
) -> Iterator[str]:
    """A real Celery worker process, consuming the test queue against the test database."""
    hostname = f"test-worker-{os.getpid()}@localhost"
    env = {
        **os.environ,
        "DATABASE_URL": child_database_url(),
        # redis-py's spelling: the worker's settings derive the broker URL from it, and API code
        # in the worker (SSE producers) talks to Redis with it directly.
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": TEST_QUEUE,
        **llm_child_env(llm_server),
        "CELERY_STREAM_QUEUE": TEST_QUEUE,
    }
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool=prefork",
        "--concurrency=1",
        "-Q",
        TEST_QUEUE,
        "-n",
        hostname,
        "--without-gossip",
        "--without-mingle",
        "--loglevel=WARNING",
    ]
    process = subprocess.Popen(argv, env=env, start_new_session=True)

    def answered() -> bool:
        assert process.poll() is None, f"test worker exited with {process.returncode}"
        replies = celery_app.control.ping(destination=[hostname], timeout=0.5) or []
        return bool(replies)

    try:
        wait_for(answered, timeout=60, interval=0.2, what="the test Celery worker")
        yield hostname
    finally:
        process_group_stop(process)
