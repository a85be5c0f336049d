"""The deployment the cluster run starts: what every machine is given (step 1 of "Scaling out" in
docs/operations.md), the Parley processes of steps 3 and 4, each in a process group of its own (a
machine's worth), and a sampler of PostgreSQL's client connections."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psycopg

from config.launcher.workers import WORKER_FLAGS


class Nodes:
    """The deployment's Parley processes, each in its own process group (a machine's worth)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        with (self.folder / f"{name}.log").open("ab") as log:
            self.processes[name] = subprocess.Popen(
                argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def kill(self, name: str) -> int:
        process = self.processes[name]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return process.pid

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def deployment_env(
    folder: Path, *, database_url: str, redis_url: str, llm_url: str
) -> dict[str, str]:
    """Step 1 of "Scaling out": what every machine of the deployment is given."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECRET_KEY": "bench-cluster-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PARLEY_MEDIA_ROOT": str(folder / "media"),  # the shared volume
        "PARLEY_VAR_DIR": str(folder / "var"),
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": llm_url,
        "LLM_API_KEY": "bench",
        # The load comes from one key on loopback: rate limits would measure themselves.
        "API_RATE_LIMIT_KEY_REQUESTS": "0",
        "API_RATE_LIMIT_VISITOR_REQUESTS": "0",
        # The sweep that hands a dead worker's documents back: every 10 s, claims stale after 30 s
        # (the lowest values the settings take; a deployment keeps the defaults, 300 s and the task
        # time limit + 60 s).
        "PARLEY_RECLAIM_EVERY_SECONDS": "10",
        "PARLEY_INGEST_STUCK_AFTER": "30",
    }


def process_commands(folder: Path, web_ports: list[int]) -> dict[str, list[str]]:
    """Steps 3 and 4 of "Scaling out" (docs/operations.md), one entry per process."""
    python = sys.executable
    common = [*WORKER_FLAGS, "--loglevel=WARNING"]
    commands = {
        f"web-{n + 1}": [
            python, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
            "--port", str(port), "--log-level", "warning", "--no-access-log",
        ]
        for n, port in enumerate(web_ports)
    }  # fmt: skip
    for name in ("ingest-1", "ingest-2"):
        commands[name] = [
            python, "-m", "celery", "-A", "config", "worker", "-Q", "celery", "-n", f"{name}@cluster",
            "--concurrency", "1", *common,
        ]  # fmt: skip
    commands["streams-1"] = [
        python, "-m", "celery", "-A", "config", "worker", "-Q", "streams", "-n", "streams-1@cluster",
        "--pool=threads", "--concurrency", "32", *common,
    ]  # fmt: skip
    commands["beat"] = [
        python, "-m", "celery", "-A", "config", "beat", f"--schedule={folder / 'beat-schedule'}",
        "--loglevel=WARNING",
    ]  # fmt: skip
    return commands


class ConnectionSampler(threading.Thread):
    """PostgreSQL's client connections, every 0.5 s, through a connection of its own."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.peak = 0
        self.samples: list[int] = []
        self.halt = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.halt.wait(0.5):
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
                ).fetchone()
                count = int(row[0]) if row else 0
                self.samples.append(count)
                self.peak = max(self.peak, count)
