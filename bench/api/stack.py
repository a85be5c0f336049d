"""The bench's processes: the scripted LLM server, the run command's Celery workers and uvicorn, with a
throwaway tenant."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psutil
from django.conf import settings

from bench.api.llm_process import LLMProcess
from tests.support.processes import (
    celery_workers_idle,
    child_database_url,
    free_port,
    wait_for,
)
from tests.support.uvicorn import uvicorn_argv


class Stack:
    """uvicorn and the Celery workers of ``./parley run`` (config.launcher.workers.worker_commands),
    on the bench's queues."""

    def __init__(
        self, *, pool_size: int, offline: bool = False, profile: Path | None = None
    ) -> None:
        self.pool_size = pool_size
        # The offline default (no LLM configured): Parley's own composer answers every call.
        self.offline = offline
        # A folder: uvicorn and the streams worker run under bench.api.cpu_profiler (bench.api.profile).
        self.profile = profile
        self.processes: list[subprocess.Popen[bytes]] = []
        self.names: list[str] = []
        self.llm = LLMProcess()
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.headers: dict[str, str] = {}

    def __enter__(self) -> Stack:
        from api.services import server_api_key_create
        from bots.models import Bot
        from config.launcher.workers import worker_commands
        from core.models import Workspace

        name = f"bench-api-{uuid.uuid4().hex[:8]}"
        self.workspace = Workspace.objects.create(name=name, slug=name)
        self.bot = Bot.objects.create(workspace=self.workspace, name="Bench bot")
        _, raw = server_api_key_create(workspace=self.workspace, name="bench", scopes=())
        self.headers = {"Authorization": f"Bearer {raw}"}
        self.llm.start()
        env = {
            **os.environ,  # the bench's queues and worker sizes, set by __main__ before settings loaded
            "DATABASE_URL": child_database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "LLM_PROVIDER": "offline" if self.offline else "openai",
            "LLM_BASE_URL": self.llm.base_url,
            "LLM_API_KEY": "bench",
            "LLM_MAX_RETRIES": "0",
            # The load comes from one key on loopback: rate limits would measure themselves.
            "API_RATE_LIMIT_KEY_REQUESTS": "0",
            "API_RATE_LIMIT_VISITOR_REQUESTS": "0",
            # Under ASGI each request runs in its own thread: bound the connections with a pool.
            "DATABASE_POOL_MAX_SIZE": str(self.pool_size),
        }
        node = f"bench-api-{os.getpid()}"
        commands = worker_commands(python=sys.executable, loglevel="WARNING", node=node)
        self.workers = [argv for _, argv in commands]
        for name, argv in commands:
            self._spawn(argv, env, name=name.removeprefix("celery "))
        self._spawn(
            uvicorn_argv(port=self.port),
            env,
            name="uvicorn",
        )
        hostnames = [argv[argv.index("-n") + 1].replace("%h", "localhost") for argv in self.workers]
        self.hostnames = hostnames
        try:
            wait_for(self._answering, timeout=90, interval=0.3, what="uvicorn")
            from config.celery import app

            def workers_answer() -> bool:
                return len(app.control.ping(destination=hostnames, timeout=0.5) or []) == len(
                    hostnames
                )

            wait_for(workers_answer, timeout=90, interval=0.3, what="the Celery workers")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.llm.stop()
        self.workspace.delete()

    def workers_idle(self, *, timeout: float) -> tuple[bool, float]:
        """Wait until no Celery worker of the stack runs or holds a task (the workers' start queues
        background work, a backfill or a calibration, for every workspace of the database: in a CPU window
        it would be counted as the turns'). (idle, seconds waited)."""
        started = time.monotonic()
        while True:
            if celery_workers_idle(destination=self.hostnames):
                return True, time.monotonic() - started
            if time.monotonic() - started > timeout:
                return False, time.monotonic() - started
            time.sleep(1)

    def _spawn(self, argv: list[str], env: dict[str, str], *, name: str) -> None:
        from bench.api.profile import sampled_argv

        argv = sampled_argv(argv, folder=self.profile, name=name)
        self.processes.append(subprocess.Popen(argv, env=env, start_new_session=True))
        self.names.append(name)

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) used so far by each process of the stack, its children included,
        by this process (the load generator) and by the scripted LLM server's process."""
        used = {"bench client": sum(os.times()[:2]), "LLM server": _tree_cpu_seconds(self.llm.pid)}
        for name, process in zip(self.names, self.processes, strict=True):
            used[name] = _tree_cpu_seconds(process.pid)
        return used

    def _answering(self) -> bool:
        assert all(process.poll() is None for process in self.processes), "a bench process exited"
        try:
            urllib.request.urlopen(f"{self.base_url}/api/v1/me", timeout=1)  # noqa: S310 (loopback)
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False
        return True

    def _json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        headers = {**self.headers, "Content-Type": "application/json", "Accept": "application/json"}
        url = f"{self.base_url}{path}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)  # noqa: S310 (loopback)
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (loopback)
            return json.loads(response.read() or b"null")

    def conversation_start(self) -> str:
        return str(
            self._json("POST", "/api/v1/sessions", {"bot_id": str(self.bot.pk)})["conversation_id"]
        )

    def documents_ready(self, corpus: Path, count: int = 5, timeout: float = 900) -> None:
        """A few corpus documents attached to the bot through the documents API, ingested by the worker."""
        lines = (corpus / "corpus.jsonl").read_text().splitlines()[:count]
        for line in lines:
            record = json.loads(line)
            body = {
                "title": record.get("title") or record["_id"],
                "text": record["text"],
                "bot_ids": [str(self.bot.pk)],
            }
            self._json("POST", "/api/v1/documents", body)

        def ready() -> bool:
            listed = self._json("GET", "/api/v1/documents?limit=100")["results"]
            assert not [d for d in listed if d["status"] == "failed"], listed
            return all(d["status"] == "ready" for d in listed)

        # The prefork worker first warms up (~20 s of model loading), then ingests; on a machine
        # shared with other benches that took over 300 s once (the run gave up).
        wait_for(ready, timeout=timeout, interval=1, what="the bench documents' ingestion")
        time.sleep(0.1)


def _tree_cpu_seconds(pid: int) -> float:
    try:
        tree = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        return sum(p.cpu_times().user + p.cpu_times().system for p in tree)
    except psutil.NoSuchProcess:
        return 0.0
