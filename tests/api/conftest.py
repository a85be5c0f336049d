"""A real uvicorn process serving config.asgi against the test database, for SSE tests."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from django.conf import settings

from tests.conftest import TEST_QUEUE, llm_child_env
from tests.support.llm_server import ScriptedLLMServer
from tests.support.processes import child_database_url, free_port, process_group_stop, wait_for

LIVE_SSE_MAX_EVENT_BYTES = 2048
LIVE_HEARTBEAT_SECONDS = 0.2


@pytest.fixture(scope="session")
def live_api(
    django_db_setup: None, django_db_blocker: pytest.FixtureRequest, llm_server: ScriptedLLMServer
) -> Iterator[str]:
    """Base URL of a uvicorn server (small SSE limit and fast heartbeat, so tests stay quick)."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": child_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "API_SSE_MAX_EVENT_BYTES": str(LIVE_SSE_MAX_EVENT_BYTES),
        "API_SSE_HEARTBEAT_SECONDS": str(LIVE_HEARTBEAT_SECONDS),
        "DATABASE_CONN_MAX_AGE": "0",
        # Streamed endpoints enqueue their runner: onto the queue the test worker consumes.
        "CELERY_TASK_DEFAULT_QUEUE": TEST_QUEUE,
        **llm_child_env(llm_server),
        "CELERY_STREAM_QUEUE": TEST_QUEUE,
    }
    argv = [
        sys.executable,
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "--lifespan",
        "off",
    ]
    process = subprocess.Popen(argv, env=env, start_new_session=True)
    base_url = f"http://127.0.0.1:{port}"

    def answering() -> bool:
        assert process.poll() is None, f"uvicorn exited with {process.returncode}"
        try:
            urllib.request.urlopen(f"{base_url}/api/v1/me", timeout=1)  # noqa: S310 (local test server)
        except urllib.error.HTTPError:
            return True  # 401 JSON: Django answers
        except OSError:
            return False
        return True

    try:
        wait_for(answering, timeout=60, interval=0.2, what="the test uvicorn server")
        yield base_url
    finally:
        process_group_stop(process)
