"""Test session wiring: the embedded services start when settings load (see core.embedded),
and a real Celery worker process runs against the test database when a test asks for it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from config.celery import app as celery_app
from tests.support.llm_server import ScriptedLLMServer
from tests.support.processes import celery_worker_start, child_database_url, process_group_stop

pytest_plugins = ["tests.support.browser", "tests.support.llm_fixtures"]

TEST_QUEUE = "parley-test"
WORKER_HOSTNAME = f"test-worker-{os.getpid()}@localhost"
WORKER_LOG = Path(settings.VAR_DIR) / "logs" / "test-worker.log"

# Streamed offline answers pause between partials only for a person to see them: never in tests (the
# environment reaches the worker and server processes the tests start).
os.environ["PARLEY_OFFLINE_STREAM_PAUSE_MS"] = "0"
# The session's worker and server start as they always did (their fixtures wait a bounded time for
# them); the test of `./parley run` turns the warm-up on for the processes it starts.
os.environ["PARLEY_WARM_UP"] = "0"
settings.PARLEY_OFFLINE_STREAM_PAUSE_MS = 0

# Tests enqueue onto their own queue, so a developer's running worker never takes their tasks.
celery_app.conf.task_default_queue = TEST_QUEUE
celery_app.conf.task_routes = {  # streamed answers too (under their name and their former one)
    "streams.stream_runner_execute": {"queue": TEST_QUEUE},
    "api.stream_runner_execute": {"queue": TEST_QUEUE},
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The fault suite runs last: it really stops and restarts the session's PostgreSQL and Valkey, and
    connections this process pooled before a restart (Celery's broker pool among them) would fail the
    tests that come after it."""
    items.sort(key=lambda item: "/tests/faults/" in str(item.path))


@pytest.fixture(scope="session")
def django_db_setup(
    django_db_setup: None, django_db_blocker: pytest.FixtureRequest
) -> Iterator[None]:
    """The test database as pytest-django made it, with its commits not waiting for the disk: each
    commit of the tests, their workers and servers otherwise waits for its WAL flush (about 8 ms here,
    seconds over a transactional test). `synchronous_commit = off` keeps every guarantee the tests
    look at (a transaction is atomic, a committed row is seen by every later transaction, and a
    stopped server, as tests/faults stops it, writes all its WAL first); only a crash of the machine
    could lose the last commits. It is set on the test database alone, for every new connection to
    it, so the pools opened before it are closed."""
    from django.db import connection, connections

    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        with connection.cursor() as cursor:
            name = connection.ops.quote_name(connection.settings_dict["NAME"])
            cursor.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")
        for each in connections.all():
            each.close()
            if hasattr(each, "close_pool"):
                each.close_pool()
    yield


@pytest.fixture(scope="session", autouse=True)
def _flush_retried_after_a_deadlock() -> Iterator[None]:
    """A transactional test ends with a flush: one TRUNCATE of every table. A task the session worker
    still runs for an earlier test (a calibration counting a workspace's chunks, say) can hold one of
    those tables while it waits for another, and PostgreSQL then aborts the TRUNCATE as a deadlock
    (seen once in CI). The aborted TRUNCATE changed nothing, so it is run again."""
    from django.core.management.base import CommandError
    from django.test import TransactionTestCase

    original = TransactionTestCase._fixture_teardown

    def fixture_teardown(case: TransactionTestCase) -> None:
        for attempt in range(1, 6):
            try:
                original(case)
                return
            except CommandError as exc:
                if "deadlock detected" not in str(exc.__cause__) or attempt == 5:
                    raise
                time.sleep(0.2 * attempt)

    TransactionTestCase._fixture_teardown = fixture_teardown  # type: ignore[method-assign]
    try:
        yield
    finally:
        TransactionTestCase._fixture_teardown = original  # type: ignore[method-assign]


@pytest.fixture(scope="session", autouse=True)
def _flush_past_the_audit_trigger() -> Iterator[None]:
    """A transactional test's flush (and a test's own `call_command("flush")`) TRUNCATEs every table,
    the audit trail's among them, which its statement trigger refuses to the application. The test
    harness alone lets its flush by, through pgtrigger's per-transaction ignore of that one trigger."""
    import pgtrigger
    from django.core.management.commands.flush import Command as FlushCommand

    from audit.models import NO_TRUNCATE, AuditEntry

    original = FlushCommand.handle

    def handle(command: FlushCommand, *args: object, **options: object) -> None:
        with pgtrigger.ignore(f"{AuditEntry._meta.label}:{NO_TRUNCATE}"):
            original(command, *args, **options)

    FlushCommand.handle = handle  # type: ignore[method-assign]
    try:
        yield
    finally:
        FlushCommand.handle = original  # type: ignore[method-assign]


def llm_child_env(server: ScriptedLLMServer) -> dict[str, str]:
    """What a child process needs so that bots whose provider is "openai" talk to the scripted server."""
    return {
        "LLM_BASE_URL": server.base_url,
        "LLM_API_KEY": "test-key",
        "LLM_MODEL": "scripted-model",
    }


@pytest.fixture(scope="session")
def celery_worker_process(
    django_db_setup: None, django_db_blocker: pytest.FixtureRequest, llm_server: ScriptedLLMServer
) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker process, consuming the test queue against the test database; its log (each
    task, each broker reconnection) is WORKER_LOG, started afresh each session."""
    WORKER_LOG.parent.mkdir(parents=True, exist_ok=True)
    WORKER_LOG.write_bytes(b"")
    env = {
        "DATABASE_URL": child_database_url(),
        # redis-py's spelling: the worker's settings derive the broker URL from it, and API code
        # in the worker (SSE producers) talks to Redis with it directly.
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": TEST_QUEUE,
        **llm_child_env(llm_server),
        "CELERY_STREAM_QUEUE": TEST_QUEUE,
        # Knowledge sources: the tests' local sites are served on the loopback address, which a
        # source may fetch only when allow-listed (sources.website's SSRF rule).
        "PARLEY_SOURCES_ALLOWED_NETWORKS": "127.0.0.1/32",
    }
    process = celery_worker_start(
        hostname=WORKER_HOSTNAME, queue=TEST_QUEUE, env=env, log=WORKER_LOG, loglevel="INFO"
    )
    try:
        yield process
    finally:
        process_group_stop(process)


@pytest.fixture(scope="session")
def celery_worker(celery_worker_process: subprocess.Popen[bytes]) -> str:
    """The session worker's hostname (its process is ``celery_worker_process``)."""
    return WORKER_HOSTNAME


@pytest.fixture(autouse=True)
def _session_worker_survives(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that took the session worker down fails itself, pointing at the worker's log, rather than
    leaving every later worker test to time out waiting for it."""
    yield
    if "celery_worker_process" not in request.fixturenames:
        return
    process: subprocess.Popen[bytes] = request.getfixturevalue("celery_worker_process")
    assert process.poll() is None, (
        f"the session's Celery worker exited with {process.returncode} during this test; see {WORKER_LOG}"
    )
