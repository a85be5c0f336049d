"""The bench's processes: the scripted LLM server, a Celery worker and uvicorn, with a throwaway tenant."""

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

from django.conf import settings

from tests.support.llm_server import ScriptedLLMServer
from tests.support.processes import child_database_url, free_port, wait_for


class Stack:
    def __init__(self, *, worker_processes: int, worker_threads: int, queue: str, pool_size: int) -> None:
        self.pool_size = pool_size
        self.worker_processes = worker_processes
        self.worker_threads = worker_threads
        self.queue = queue
        self.processes: list[subprocess.Popen[bytes]] = []
        self.llm = ScriptedLLMServer()
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.headers: dict[str, str] = {}

    def __enter__(self) -> Stack:
        from api.services import server_api_key_create
        from bots.models import Bot
        from core.models import Workspace

        name = f"bench-api-{uuid.uuid4().hex[:8]}"
        self.workspace = Workspace.objects.create(name=name, slug=name)
        self.bot = Bot.objects.create(workspace=self.workspace, name="Bench bot")
        _, raw = server_api_key_create(workspace=self.workspace, name="bench", scopes=())
        self.headers = {"Authorization": f"Bearer {raw}"}
        self.llm.start()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "bench.api.settings",
            "DATABASE_URL": child_database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "CELERY_TASK_DEFAULT_QUEUE": self.queue,
            "BENCH_LLM_BASE_URL": self.llm.base_url,
            "LLM_PROVIDER": "openai",
            "LLM_BASE_URL": self.llm.base_url,
            "LLM_API_KEY": "bench",
            "LLM_MAX_RETRIES": "0",
            # The load comes from one key on loopback: rate limits would measure themselves.
            "API_RATE_LIMIT_KEY_REQUESTS": "0",
            "API_RATE_LIMIT_VISITOR_REQUESTS": "0",
            # Under ASGI each request runs in its own thread: bound the connections with a pool.
            "DATABASE_POOL_MAX_SIZE": str(self.pool_size),
        }
        python = sys.executable
        hostnames = [f"bench-api-{os.getpid()}-{n}@localhost" for n in range(self.worker_processes)]
        for hostname in hostnames:
            self._spawn([python, "-m", "celery", "-A", "bench.api.worker", "worker", "--pool=threads",
                         f"--concurrency={self.worker_threads}", "-Q", self.queue, "-n", hostname,
                         "--without-gossip", "--without-mingle", "--loglevel=WARNING"], env)  # fmt: skip
        self._spawn([python, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
                     "--port", str(self.port), "--log-level", "warning", "--no-access-log", "--lifespan", "off"],
                    env)  # fmt: skip
        try:
            wait_for(self._answering, timeout=90, interval=0.3, what="uvicorn")
            from config.celery import app

            def workers_answer() -> bool:
                return len(app.control.ping(destination=hostnames, timeout=0.5) or []) == len(hostnames)

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

    def _spawn(self, argv: list[str], env: dict[str, str]) -> None:
        self.processes.append(subprocess.Popen(argv, env=env, start_new_session=True))

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

    def schema_paths(self) -> set[str]:
        return set(self._json("GET", "/api/schema/?format=json")["paths"])

    def endpoint(self, name: str, questions: list[str], corpus: Path | None = None) -> tuple[str, list[dict]]:
        """The streamed endpoint's URL and one request body per question."""
        if name == "bench":
            return f"{self.base_url}/api/v1/bench/stream", [{"query": q} for q in questions]
        self._documents_ready(corpus)
        return f"{self.base_url}/api/v1/rag_search", [{"query": q, "stream": True} for q in questions]

    def _documents_ready(self, corpus: Path | None, count: int = 5) -> None:
        """A few corpus documents attached to the bot through the documents API, ingested by the worker."""
        if corpus is None:
            return
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

        wait_for(ready, timeout=300, interval=1, what="the bench documents' ingestion")
        time.sleep(0.1)
