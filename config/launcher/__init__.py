"""`./parley run`: prepare the database, then run the Celery workers and the ASGI server until stopped.

Ctrl-C or SIGTERM stops the children first, then the embedded services this process
started, so nothing is left running. Errors a user can fix are printed as one clear
message, not a traceback. The parts: `prepare` (before anything starts), `workers` (the Celery
commands), `supervisor` (the children), `errors`; `run` here ties them together.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from types import FrameType

from config.launcher.errors import LaunchError, say
from config.launcher.prepare import (
    admin_ensure,
    database_prepare,
    demo_ensure,
    demo_evaluation_summary,
    django_setup,
    port_check,
)
from config.launcher.supervisor import Supervisor, wait_until_ready
from config.launcher.workers import node_names, worker_commands


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
        say("starting: the web server and workers load their models first")
        node = socket.gethostname()
        names = [f"{name.split('@')[0]}@{node}" for name in node_names(workers)]
        wait_until_ready(f"{base}/healthz", supervisor, workers=names)
        say("Parley is running:")
        say(f"  admin        {base}/admin/")
        say(f"  health       {base}/healthz")
        say(f"  demo page    {base}/demo/")
        say(f"  agents       {base}/agent/")
        say("press Ctrl-C to stop")
        evaluation_reported, next_check = False, time.monotonic()
        while not interrupted:
            crashed = supervisor.first_exited()
            if crashed:
                raise LaunchError(f"{crashed}; stopping Parley")
            if not evaluation_reported and time.monotonic() >= next_check:
                summary = demo_evaluation_summary()
                if summary:
                    say(summary.replace("/admin/", f"{base}/admin/", 1))
                evaluation_reported, next_check = bool(summary), time.monotonic() + 5
            time.sleep(0.5)
        say("stopping…")
        return 0
    finally:
        supervisor.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    try:
        # The settings are the one reader of PARLEY_HOST and PARLEY_PORT: they are loaded first (the
        # embedded services with them), and a taken port stops the run before any migration.
        django_setup()
        from django.conf import settings

        port_check(str(settings.PARLEY_HOST), settings.PARLEY_PORT)
        database_prepare()
        admin_ensure()
        demo_ensure()
        return run()
    except LaunchError as exc:
        say(f"error: {exc}")
        return 1
