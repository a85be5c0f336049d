"""`./parley run`: prepare the database, then run the Celery workers and the ASGI server until stopped.

Ctrl-C or SIGTERM stops the children first, then the embedded services this process
started, so nothing is left running. Errors a user can fix are printed as one clear
message, not a traceback.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from types import FrameType

from core.errors import ParleyError

_STOP_GRACE_S = 20.0
_READY_TIMEOUT_S = 240.0  # the warm-up loads models in three processes at once


class LaunchError(ParleyError):
    """A problem the user can fix; printed without a traceback."""

    code = "launch_failed"


def _say(message: str) -> None:
    print(f"parley: {message}", flush=True)


def port_check(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise LaunchError(
                f"port {port} on {host} is already in use ({exc.strerror}). Stop the program using it, "
                f"or pick another port, for example: PARLEY_PORT={port + 1} ./parley run"
            ) from None


def django_prepare() -> None:
    """Load settings (starting embedded services if needed), migrate, and check pgvector."""
    from django.core.exceptions import ImproperlyConfigured

    from core.embedded import EmbeddedServiceError
    from core.pg_sizing import SizingError

    try:
        import django

        django.setup()
    except (EmbeddedServiceError, SizingError, ImproperlyConfigured) as exc:
        raise LaunchError(str(exc)) from None

    from django.core.management import call_command

    from core.database import DatabaseSetupError, pgvector_require

    try:
        pgvector_require(installed=False)
        call_command("migrate", interactive=False, verbosity=0)
        version = pgvector_require(installed=True)
    except DatabaseSetupError as exc:
        raise LaunchError(str(exc)) from None
    _say(f"database ready (pgvector {version})")
    _say(f"database sizing: {database_sizing()}")
    call_command("collectstatic", interactive=False, verbosity=0)


def database_sizing() -> str:
    """The running server's memory and parallel settings, as it reports them (an external server's too)."""
    from django.db import connection

    from core.pg_sizing import sizing_describe, sizing_show

    with connection.cursor() as cursor:
        return sizing_describe(sizing_show(cursor=cursor))


def admin_ensure() -> None:
    from config.env import env_str
    from core.services import admin_bootstrap

    result = admin_bootstrap(
        username=env_str("PARLEY_ADMIN_USERNAME"),
        email=env_str("PARLEY_ADMIN_EMAIL"),
        password=env_str("PARLEY_ADMIN_PASSWORD"),
    )
    if result.created and result.password:
        _say(f"created admin user '{result.username}' with password: {result.password}")
        _say(
            "this password is shown once; change it in the admin, or set PARLEY_ADMIN_PASSWORD next time"
        )
    elif result.created:
        _say(f"created admin user '{result.username}' with the password from PARLEY_ADMIN_PASSWORD")


def demo_ensure() -> None:
    """Load the demo bot and its documents when the apps that own them provide a loader."""
    from django.conf import settings
    from django.core.management import call_command, get_commands

    if settings.PARLEY_LOAD_DEMO and "demo_load" in get_commands():
        call_command("demo_load")
    if settings.PARLEY_LOAD_DEMO and "demo_widget" in get_commands():
        call_command("demo_widget")
    # After the documents: the demo's first evaluation run waits for their ingestion.
    if settings.PARLEY_LOAD_DEMO and "demo_evaluation" in get_commands():
        call_command("demo_evaluation")


def demo_evaluation_summary() -> str:
    """The demo's first evaluation run in one line once it has finished ("" before, or without it)."""
    from django.conf import settings
    from django.core.management import call_command, get_commands

    if not settings.PARLEY_LOAD_DEMO or "demo_evaluation" not in get_commands():
        return ""
    return str(call_command("demo_evaluation", "--summary", stdout=io.StringIO()) or "")


# No worker-to-worker traffic: Parley runs no event monitor and no remote-control fan-out between
# workers. Gossip and mingle are chatter at start and on the event bus; a heartbeat is a worker event
# published every 2 s, which no Parley process reads (the idle worker's largest periodic cost,
# docs/decisions/answer-path-cpu.md). `celery inspect` and `control ping` still answer.
WORKER_FLAGS = ("--without-gossip", "--without-mingle", "--without-heartbeat")


def worker_commands(
    *, python: str, loglevel: str = "INFO", beat_schedule: str | None = None, node: str = "%h"
) -> list[tuple[str, list[str]]]:
    """The Celery workers of a Parley deployment on one machine, as (name, argv); bench/api starts the same.

    - the **worker**: prefork, ``PARLEY_WORKER_CONCURRENCY`` processes, the default queue
      (ingestion, sweeps; CPU-bound), and celery beat when ``beat_schedule`` is given;
    - the **streams worker**: ``--pool=threads`` with ``PARLEY_STREAM_WORKER_THREADS`` threads on
      ``CELERY_STREAM_QUEUE``: each streamed answer mostly waits on the LLM, so one process holds
      many at once. Each thread hands its database connection back after every task
      (config.celery). Not started when the streams queue is the default queue.
    """
    from django.conf import settings

    common = [*WORKER_FLAGS, f"--loglevel={loglevel}"]
    default_queue = str(settings.CELERY_TASK_DEFAULT_QUEUE)
    stream_queue = str(settings.CELERY_STREAM_QUEUE)
    worker = [
        python,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "-Q",
        default_queue,
        "-n",
        f"worker@{node}",
        f"--concurrency={settings.PARLEY_WORKER_CONCURRENCY}",
        *common,
    ]
    if beat_schedule:
        worker += ["--beat", f"--schedule={beat_schedule}"]
    commands = [("celery worker", worker)]
    if stream_queue != default_queue:
        streams = [
            python,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            stream_queue,
            "-n",
            f"streams@{node}",
            "--pool=threads",
            f"--concurrency={settings.PARLEY_STREAM_WORKER_THREADS}",
            *common,
        ]
        commands.append(("celery streams worker", streams))
    return commands


class Supervisor:
    """Runs child processes in their own process groups and stops them all, in order."""

    def __init__(self) -> None:
        self.children: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.stopping = False

    def spawn(self, name: str, argv: list[str]) -> None:
        process = subprocess.Popen(argv, start_new_session=True)
        self.children.append((name, process))

    def first_exited(self) -> str | None:
        for name, process in self.children:
            if process.poll() is not None:
                return f"{name} exited with code {process.returncode}"
        return None

    def stop(self) -> None:
        self.stopping = True
        for _, process in reversed(self.children):
            _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + _STOP_GRACE_S
        for _, process in self.children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
        for _, process in self.children:
            # Kill whatever is left in each group (e.g. pool children), so nothing is orphaned.
            _signal_group(process, signal.SIGKILL)
            process.wait()


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


def _node_names(workers: list[tuple[str, list[str]]]) -> list[str]:
    """The ``-n`` argument of each worker command (``worker@%h``)."""
    return [argv[argv.index("-n") + 1] for _, argv in workers if "-n" in argv]


def _wait_until_ready(url: str, supervisor: Supervisor, *, workers: list[str]) -> None:
    """Until /healthz is ok and each of this run's `workers` (node names) answers a ping. Each
    process warms up before it serves (conversations.warmup): the web server before it listens, a
    worker before it answers a ping. So "Parley is running" means the first answer is as fast as the
    later ones. The workers are pinged by name: another run's workers on the same broker (a test
    session's) must not count."""
    deadline = time.monotonic() + _READY_TIMEOUT_S
    while time.monotonic() < deadline:
        crashed = supervisor.first_exited()
        if crashed:
            raise LaunchError(f"{crashed} during start-up; see the log above")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (our own http URL)
                if response.status == 200 and _workers_answer(workers):
                    return
        except urllib.error.HTTPError:
            pass  # 503 while the workers are still starting
        except OSError:
            pass
        time.sleep(0.5)
    raise LaunchError(f"Parley did not become healthy at {url} within {_READY_TIMEOUT_S:.0f}s")


def _workers_answer(names: list[str]) -> bool:
    from config.celery import app

    replies = app.control.ping(destination=names, timeout=1.0) or []
    answered = {name for reply in replies for name in reply}
    return answered >= set(names)


def run() -> int:
    from django.conf import settings

    host, port = settings.PARLEY_HOST, settings.PARLEY_PORT
    supervisor = Supervisor()
    interrupted: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        interrupted.append(signum)

    previous: dict[int, Callable[..., object] | int | None] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, on_signal)
    try:
        python = sys.executable
        workers = worker_commands(
            python=python, beat_schedule=str(settings.VAR_DIR / "celerybeat-schedule")
        )
        for name, argv in workers:
            supervisor.spawn(name, argv)
        supervisor.spawn(
            "web server",
            [
                python,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                str(host),
                "--port",
                str(port),
                "--timeout-graceful-shutdown",
                "10",
            ],
        )
        base = f"http://{host}:{port}"
        _say("starting: the web server and workers load their models first")
        node = socket.gethostname()
        names = [f"{name.split('@')[0]}@{node}" for name in _node_names(workers)]
        _wait_until_ready(f"{base}/healthz", supervisor, workers=names)
        _say("Parley is running:")
        _say(f"  admin        {base}/admin/")
        _say(f"  health       {base}/healthz")
        _say(f"  demo page    {base}/demo/")
        _say(f"  agents       {base}/agent/")
        _say("press Ctrl-C to stop")
        evaluation_reported, next_check = False, time.monotonic()
        while not interrupted:
            crashed = supervisor.first_exited()
            if crashed:
                raise LaunchError(f"{crashed}; stopping Parley")
            if not evaluation_reported and time.monotonic() >= next_check:
                summary = demo_evaluation_summary()
                if summary:
                    _say(summary.replace("/admin/", f"{base}/admin/", 1))
                evaluation_reported, next_check = bool(summary), time.monotonic() + 5
            time.sleep(0.5)
        _say("stopping…")
        return 0
    finally:
        supervisor.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    try:
        from config.env import env_int, env_str

        port_check(env_str("PARLEY_HOST", "127.0.0.1") or "127.0.0.1", env_int("PARLEY_PORT", 8000))
        django_prepare()
        admin_ensure()
        demo_ensure()
        return run()
    except LaunchError as exc:
        _say(f"error: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
