"""bench/cluster: a deployment of several machines, shown on one, and what a crash of two of them loses.

    .venv/bin/python -m bench.cluster /work/shared/corpora/scifact-en [--visitors 64] [--turns 4]
        [--documents 500] [--kill-at 0.5] [--deadline 900] [--message-deadline 120]

It runs the steps of "Scaling out" in docs/operations.md, each as a process of its own:
- PostgreSQL (pgvector) and Valkey as standalone servers on TCP ports, reached through DATABASE_URL and
  REDIS_URL; `manage.py migrate` once;
- two web processes (uvicorn) behind Debian's nginx;
- two ingestion workers, one streams worker, one beat;
- a scripted OpenAI-compatible LLM server (the tests' one, streaming tokens at a model's pace).

Then 64 visitors stream answers through nginx while 500 documents of the corpus are uploaded, and
once `--kill-at` (half) of the visitors' messages are answered, with streams still open on both web
processes, it SIGKILLs one web process and one ingestion worker (process group and all), leaving them
dead. (A fixed delay missed the load on a fast machine: the kills came as the last answers did.)
The visitors retry as widget.js does (bench.cluster.clients). Afterwards it checks, in the database
and in what the clients received (bench.cluster.report): each client_message_id answered exactly once,
no document stuck, none created twice or missing, no chunk duplicated; and it prints the peak number
of PostgreSQL connections against max_connections, which says whether a PgBouncer is needed at this size.

It always ends: each message is given up after `--message-deadline` seconds, the whole load after
`--deadline`, and ingestion after `--ingest-timeout`; a message without its answer then is a defect
(the exit status is 1, and a line says how many went unanswered).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.cluster.deployment import ConnectionSampler, Nodes, deployment_env, process_commands
from bench.cluster.report import report
from bench.cluster.servers import Server, nginx_start, postgres_start, valkey_start
from tests.support.processes import free_port, wait_for

WEB_PROCESSES = 2


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path, help="a BEIR corpus folder (documents and questions)")
    parser.add_argument("--visitors", type=int, default=64)
    parser.add_argument(
        "--turns", type=int, default=4, help="messages per visitor, one after another"
    )
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument(
        "--kill-at",
        type=float,
        default=0.5,
        help="share of the visitors' messages answered before the kills (the load is then in full swing)",
    )
    parser.add_argument("--token-delay", type=float, default=0.02)
    parser.add_argument("--ingest-timeout", type=float, default=1200)
    parser.add_argument(
        "--deadline",
        type=float,
        default=900,
        help="seconds the load (visitors and uploads) may take; past it, what is left is a failure",
    )
    parser.add_argument(
        "--message-deadline",
        type=float,
        default=120,
        help="seconds a visitor waits for one answer, every retry included, before giving it up",
    )
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (logs, data)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="parley-cluster-"))
    os.chmod(folder, 0o755)  # noqa: S103 (PostgreSQL runs as pgserver when we are root)
    servers: list[Server] = []
    nodes = Nodes(folder)
    try:
        return _run(args, folder, servers, nodes)
    finally:
        nodes.stop()
        if (
            "django" in sys.modules
        ):  # this process's own pooled connections, before the server stops
            from django.db import connections

            connections.close_all()
        for server in reversed(servers):
            server.stop()
        if args.keep:
            print(f"logs and data: {folder}")
        else:
            subprocess.run(["rm", "-rf", str(folder)], check=False)


def _run(args: argparse.Namespace, folder: Path, servers: list[Server], nodes: Nodes) -> int:
    from bench.api.llm_process import LLMProcess

    started = time.perf_counter()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f} s] {text}", flush=True)

    servers.append(postgres_start(folder / "postgres", port=free_port()))
    servers.append(valkey_start(folder / "valkey", port=free_port()))
    llm = LLMProcess().start()
    database_url, redis_url = servers[0].url, servers[1].url
    env = deployment_env(
        folder, database_url=database_url, redis_url=redis_url, llm_url=llm.base_url
    )
    say(f"standalone servers: DATABASE_URL={database_url} REDIS_URL={redis_url}")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], env=env, check=True
    )
    say("step 2: manage.py migrate (once)")
    os.environ.update(env)  # this process checks the outcome in the same database
    import logging

    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    bot_id, headers = _tenant()
    web_ports = [free_port() for _ in range(WEB_PROCESSES)]
    commands = process_commands(folder, web_ports)
    for name, argv in commands.items():
        nodes.start(name, argv, env)
    servers.append(nginx_start(folder / "nginx", port=free_port(), upstreams=web_ports))
    base_url = servers[-1].url
    say(f"steps 3-4: {', '.join(commands)}; nginx at {base_url} in front of web-1, web-2")
    for name, argv in commands.items():
        print(f"    {name}: {' '.join(Path(a).name if a == sys.executable else a for a in argv)}")
    _wait_ready(web_ports, nodes)
    say("every process answers")

    from tests.support.llm_server import Reply

    reply = json.dumps(
        {
            "status": "answered",
            "answer": "The documents answer it: " + " ".join(["the cited passage says so"] * 8),
            "display_answer": True,
            "confidence_score": 0.8,
            "topic": "Research",
            "suggested_topics": [],
            "understanding": "A question about the studies.",
            "redirection_intent": None,
            "context_usage": [],
        }
    )
    llm.enqueue(
        *[
            Reply(content=reply, token_delay=args.token_delay)
            for _ in range(args.visitors * args.turns * 3)
        ]
    )
    records = [
        json.loads(line) for line in (args.corpus / "corpus.jsonl").read_text().splitlines()
    ][: args.documents]
    documents = [
        (f"cluster {n:04d} {record.get('title') or record['_id']}"[:300], record["text"])
        for n, record in enumerate(records)
    ]
    questions = [
        json.loads(line)["text"]
        for line in (args.corpus / "queries.jsonl").read_text().splitlines()[:1000]
    ]
    conversations = [_session(base_url, headers, bot_id) for _ in range(args.visitors)]
    sampler = ConnectionSampler(database_url)
    sampler.start()
    say(
        f"load: {args.visitors} visitors x {args.turns} streamed messages, and {len(documents)} "
        f"documents uploaded 8 at a time, through nginx"
    )
    outcome = asyncio.run(
        _load(args, base_url, headers, bot_id, conversations, questions, documents, nodes, say)
    )
    messages, uploads, load_seconds = outcome
    say(f"load done in {load_seconds:.1f} s; waiting for ingestion to finish")
    finished = _documents_finish(args.ingest_timeout)
    say(f"ingestion {'finished' if finished else 'NOT finished'}")
    sampler.halt.set()
    sampler.join()
    llm.stop()
    failures = report(
        messages,
        uploads,
        conversations,
        documents,
        load_seconds,
        sampler,
        database_url,
        expected_messages=args.visitors * args.turns,
    )
    return 1 if failures else 0


def _tenant() -> tuple[str, dict[str, str]]:
    """A workspace, its bot and a server key (what an admin sets up once)."""
    from api.services import server_api_key_create
    from bots.models import Bot
    from core.models import Workspace

    workspace = Workspace.objects.create(name="Cluster", slug="cluster")
    bot = Bot.objects.create(workspace=workspace, name="Cluster bot")
    _, raw = server_api_key_create(workspace=workspace, name="cluster", scopes=())
    return str(bot.pk), {"Authorization": f"Bearer {raw}"}


def _wait_ready(web_ports: list[int], nodes: Nodes) -> None:
    """Each web process answers on its own port (through nginx, a dead one would be skipped), and
    every worker answers a ping."""
    import urllib.request

    from config.celery import app

    def web_answers() -> bool:
        for name, process in nodes.processes.items():
            assert process.poll() is None, f"{name} exited at start; see {nodes.folder / name}.log"
        try:
            for port in web_ports:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
            return True
        except OSError:
            return False

    wait_for(web_answers, timeout=180, interval=0.5, what="the web processes")
    hosts = [f"{name}@cluster" for name in ("ingest-1", "ingest-2", "streams-1")]

    def workers_answer() -> bool:
        return len(app.control.ping(destination=hosts, timeout=1) or []) == len(hosts)

    wait_for(workers_answer, timeout=300, interval=1, what="the Celery workers")


def _session(base_url: str, headers: dict[str, str], bot_id: str) -> str:
    import httpx

    response = httpx.post(
        f"{base_url}/api/v1/sessions", json={"bot_id": bot_id}, headers=headers, timeout=30
    )
    response.raise_for_status()
    return str(response.json()["conversation_id"])


async def _load(args, base_url, headers, bot_id, conversations, questions, documents, nodes, say):  # type: ignore[no-untyped-def]
    from bench.cluster.clients import Uploads, VisitorMessage, documents_upload, visitors_run
    from rag.models import Document

    messages: list[VisitorMessage] = []
    uploads = Uploads()
    total = len(conversations) * args.turns
    started = time.perf_counter()
    visitors = asyncio.ensure_future(
        visitors_run(
            base_url=base_url,
            headers=headers,
            conversations=conversations,
            questions=questions,
            turns=args.turns,
            messages=messages,
            message_deadline=args.message_deadline,
        )
    )

    async def kills() -> None:
        while sum(m.total is not None for m in messages) < args.kill_at * total:
            if visitors.done():  # every visitor gave up or finished early: kill anyway, and say so
                break
            await asyncio.sleep(0.05)
        open_streams = sum(m.total is None for m in messages)
        say(
            f"{len(messages) - open_streams} of {total} messages answered, {open_streams} streams open"
        )
        processing = await asyncio.to_thread(
            lambda: Document.objects.filter(status="processing").count()
        )
        say(f"SIGKILL web-1 (pid {nodes.kill('web-1')}, uvicorn and its children)")
        say(
            f"SIGKILL ingest-1 (pid {nodes.kill('ingest-1')}, main and pool process); "
            f"{processing} documents were being ingested then, by either worker"
        )

    load = asyncio.gather(
        visitors,
        documents_upload(
            base_url=base_url, headers=headers, documents=documents, bot_id=bot_id, uploads=uploads
        ),
        kills(),
    )
    try:
        await asyncio.wait_for(load, args.deadline)
    except TimeoutError:
        unanswered = total - sum(m.total is not None for m in messages)
        say(
            f"DEADLINE: the load did not end within {args.deadline:.0f} s; {unanswered} of {total} "
            f"messages unanswered, {len(documents) - len(uploads.created)} uploads unacknowledged"
        )
    return messages, uploads, time.perf_counter() - started


def _documents_finish(timeout: float) -> bool:
    from rag.models import Document

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Document.objects.filter(status__in=["pending", "processing"]).exists():
            return True
        time.sleep(2)
    return False


if __name__ == "__main__":
    raise SystemExit(main())
