"""The run command's children: started in their own process groups, watched until Parley answers, and
stopped all together, in order, so nothing is left running."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request

from config.launcher.errors import LaunchError

STOP_GRACE_S = 20.0
READY_TIMEOUT_S = 240.0  # the warm-up loads models in three processes at once


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
        deadline = time.monotonic() + STOP_GRACE_S
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


def wait_until_ready(url: str, supervisor: Supervisor, *, workers: list[str]) -> None:
    """Until /healthz is ok and each of this run's `workers` (node names) answers a ping. Each
    process warms up before it serves (conversations.warmup): the web server before it listens, a
    worker before it answers a ping. So "Parley is running" means the first answer is as fast as the
    later ones. The workers are pinged by name: another run's workers on the same broker (a test
    session's) must not count."""
    deadline = time.monotonic() + READY_TIMEOUT_S
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
    raise LaunchError(f"Parley did not become healthy at {url} within {READY_TIMEOUT_S:.0f}s")


def _workers_answer(names: list[str]) -> bool:
    from config.celery import app

    replies = app.control.ping(destination=names, timeout=1.0) or []
    answered = {name for reply in replies for name in reply}
    return answered >= set(names)
