"""Helpers for tests that run Parley's real processes: URLs for the test database, free ports, waits."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from django.db import connection

from config.launcher.workers import WORKER_FLAGS


def child_database_url() -> str:
    """The URL of the database pytest-django created, for child processes."""
    settings = connection.settings_dict
    user = quote(settings.get("USER") or "")
    password = quote(settings.get("PASSWORD") or "")
    host = settings.get("HOST") or ""
    port = settings.get("PORT") or ""
    name = settings["NAME"]
    credentials = f"{user}:{password}@" if user else ""
    if host.startswith("/"):
        return f"postgresql://{credentials}/{name}?host={quote(host, safe='/')}"
    return f"postgresql://{credentials}{host}:{port or 5432}/{name}"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(
    predicate: Callable[[], bool], *, timeout: float, interval: float = 0.1, what: str = "condition"
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def process_group_stop(process: subprocess.Popen[bytes], *, grace: float = 20.0) -> None:
    """Stop a child started with start_new_session=True, and everything it forked."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextlib.contextmanager
def broker_connection() -> Iterator[Any]:
    """A broker connection of its own for a control call (ping, inspect): one from this process's pool
    may be one a Valkey restart broke."""
    from config.celery import app

    with app.connection_for_write() as connection:
        yield connection


def celery_worker_start(
    *,
    hostname: str,
    queue: str,
    env: dict[str, str],
    timeout: float = 60,
    log: Path | None = None,
    loglevel: str = "WARNING",
) -> subprocess.Popen[bytes]:
    """A real prefork Celery worker (one pool process) on ``queue``, answering pings when this returns.

    It runs in a session of its own, so ``os.killpg`` reaches it and its pool process together. With
    ``log`` its output goes to that file (else to this process's, which pytest captures per test).
    """
    from config.celery import app

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
        queue,
        "-n",
        hostname,
        *WORKER_FLAGS,
        f"--loglevel={loglevel}",
    ]
    output = log.open("ab") if log is not None else None
    try:
        process = subprocess.Popen(
            argv, env={**os.environ, **env}, start_new_session=True, stdout=output, stderr=output
        )
    finally:
        if output is not None:
            output.close()  # the child holds its own copy

    def answering() -> bool:
        assert process.poll() is None, f"worker {hostname} exited with {process.returncode}"
        with broker_connection() as connection:
            replies = app.control.ping(destination=[hostname], timeout=0.5, connection=connection)
        return bool(replies)

    try:
        wait_for(answering, timeout=timeout, interval=0.2, what=f"worker {hostname}")
    except BaseException:
        process_group_stop(process)
        raise
    return process


def celery_workers_idle(destination: list[str] | None = None) -> bool:
    """No Celery worker (of `destination`, else any) is running or about to run a task (a test that
    queued work must not leave it running into the next test's database flush). True with no worker.
    Tasks held for a later time (countdowns) are not waited for."""
    from config.celery import app

    inspect = app.control.inspect(destination=destination, timeout=0.5)
    listings = (inspect.active(), inspect.reserved())
    return not any(any((listing or {}).values()) for listing in listings)
