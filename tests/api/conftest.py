"""A real uvicorn process serving config.asgi against the test database, for SSE tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from django.conf import settings

from tests.conftest import TEST_QUEUE, llm_child_env
from tests.support.llm_server import ScriptedLLMServer
from tests.support.processes import child_database_url, free_port, process_group_stop
from tests.support.uvicorn import uvicorn_start, uvicorn_wait

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
    process = uvicorn_start(port=port, env=env)
    base_url = f"http://127.0.0.1:{port}"
    try:
        uvicorn_wait(process, base_url=base_url)
        yield base_url
    finally:
        process_group_stop(process)
