"""Helpers for tests that run Parley's real processes: URLs for the test database, free ports, waits."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from urllib.parse import quote

from django.db import connection


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


def celery_worker_start(
    *, hostname: str, queue: str, env: dict[str, str], timeout: float = 60
) -> subprocess.Popen[bytes]:
    """A real prefork Celery worker (one pool process) on ``queue``, answering pings when this returns.

    It runs in a session of its own, so ``os.killpg`` reaches it and its pool process together.
    """
    import sys

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
        "--without-gossip",
        "--without-mingle",
        "--loglevel=WARNING",
    ]
    process = subprocess.Popen(argv, env={**os.environ, **env}, start_new_session=True)

    def answering() -> bool:
        assert process.poll() is None, f"worker {hostname} exited with {process.returncode}"
        # A connection of its own: one from this process's pool may be one a Valkey restart broke.
        with app.connection_for_write() as connection:
            replies = app.control.ping(destination=[hostname], timeout=0.5, connection=connection)
        return bool(replies)

    try:
        wait_for(answering, timeout=timeout, interval=0.2, what=f"worker {hostname}")
    except BaseException:
        process_group_stop(process)
        raise
    return process
