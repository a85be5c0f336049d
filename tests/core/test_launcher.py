"""The run command: clear messages for a taken port and an unreachable database, and a clean stop."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request

import psutil
import pytest
from django.conf import settings

from config.launcher.errors import LaunchError
from config.launcher.prepare import port_check
from tests.support.processes import child_database_url, free_port, wait_for


def test_a_taken_port_is_named_with_the_way_out() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(LaunchError) as excinfo:
            port_check("127.0.0.1", port)
    message = str(excinfo.value)
    assert f"port {port} on 127.0.0.1 is already in use" in message
    assert f"PARLEY_PORT={port + 1} ./parley run" in message


def _launcher_env(**overrides: str) -> dict[str, str]:
    env = {**os.environ, "PARLEY_PORT": str(free_port()), "PARLEY_LOAD_DEMO": "false"}
    env.update(overrides)
    return env


def test_an_unreachable_database_gets_a_message_not_a_traceback() -> None:
    # Nothing listens on port 9; the pool retries the refused connect for its timeout (30 s by
    # default) before the launcher reports it, so a short one here reports the same refusal sooner.
    env = _launcher_env(
        DATABASE_URL="postgresql://parley@127.0.0.1:9/parley",
        REDIS_URL=settings.REDIS_URL,
        DATABASE_POOL_TIMEOUT="1",
    )
    result = subprocess.run(
        [sys.executable, "-m", "config.launcher"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "parley: error: Cannot reach PostgreSQL at 127.0.0.1:9/parley" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.django_db(transaction=True)
def test_the_run_command_serves_and_stops_without_orphans() -> None:
    port = free_port()
    env = _launcher_env(
        DATABASE_URL=child_database_url(),
        REDIS_URL=settings.REDIS_URL,
        PARLEY_PORT=str(port),
        PARLEY_ADMIN_PASSWORD="launcher-test-passphrase",
        CELERY_TASK_DEFAULT_QUEUE="parley-launcher-test",
        CELERY_STREAM_QUEUE="parley-launcher-test-streams",
    )
    launcher = subprocess.Popen(
        [sys.executable, "-m", "config.launcher"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    descendants: list[psutil.Process] = []
    try:

        def healthy() -> bool:
            assert launcher.poll() is None, launcher.stdout.read() if launcher.stdout else ""
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/healthz", timeout=2
                ) as response:
                    return response.status == 200
            except OSError:
                return False

        wait_for(healthy, timeout=120, interval=0.5, what="the run command to become healthy")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/admin/login/", timeout=5) as response:
            assert response.status == 200
        descendants = psutil.Process(launcher.pid).children(recursive=True)
        assert len(descendants) >= 2  # the worker (and its pool) and the web server
    finally:
        launcher.send_signal(signal.SIGINT)
        output, _ = launcher.communicate(timeout=60)
    assert launcher.returncode == 0, output
    assert "Parley is running" in output
    # The sizing the server reports, printed by the run command (core.pg_sizing).
    assert "database sizing: shared_buffers " in output and "max_parallel_workers " in output
    alive = [p for p in descendants if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], f"orphans left behind: {alive}"


def test_an_unwritable_var_dir_stops_the_run_command_with_a_message(tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = _launcher_env(PARLEY_VAR_DIR=str(blocker / "var"))
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    env.pop("SECRET_KEY", None)
    result = subprocess.run(
        [sys.executable, "-m", "config.launcher"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "cannot write there" in result.stdout and "PARLEY_VAR_DIR" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_the_run_command_serves_streamed_answers_from_a_thread_pool_worker_of_their_own(
    settings,
) -> None:
    from config.launcher.workers import worker_commands

    settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_STREAM_QUEUE = "celery", "streams"
    settings.PARLEY_WORKER_CONCURRENCY, settings.PARLEY_STREAM_WORKER_THREADS = 1, 48
    (_, worker), (_, streams) = worker_commands(
        python="python", beat_schedule="var/celerybeat-schedule"
    )
    assert (
        worker[worker.index("-Q") + 1] == "celery"
        and "--concurrency=1" in worker
        and "--beat" in worker
    )
    assert "--pool=threads" not in worker  # ingestion is CPU-bound: prefork
    assert streams[streams.index("-Q") + 1] == "streams" and "--beat" not in streams
    assert "--pool=threads" in streams and "--concurrency=48" in streams
    settings.CELERY_STREAM_QUEUE = "celery"  # one queue for everything: one worker
    assert [name for name, _ in worker_commands(python="python")] == ["celery worker"]
