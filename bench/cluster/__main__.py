"""bench/cluster: a deployment of several machines, shown on one, and what a crash of two of them loses.

    .venv/bin/python -m bench.cluster /work/shared/corpora/scifact-en [--visitors 64] [--turns 4]
        [--documents 500] [--kill-after 10]

It runs the steps of "Scaling out" in docs/operations.md, each as a process of its own:
- PostgreSQL (pgvector) and Valkey as standalone servers on TCP ports, reached through DATABASE_URL and
  REDIS_URL; `manage.py migrate` once;
- two web processes (uvicorn) behind Debian's nginx;
- two ingestion workers, one streams worker, one beat;
- a scripted OpenAI-compatible LLM server (the tests' one, streaming tokens at a model's pace).

Then 64 visitors stream answers through nginx while 500 documents of the corpus are uploaded, and
`--kill-after` seconds in it SIGKILLs one web process and one ingestion worker (process group and
all), leaving them dead. The clients retry as the widget does (bench.cluster.clients). Afterwards it
checks, in the database and in what the clients received: each client_message_id answered exactly once,
no document stuck, none created twice, no chunk duplicated; and it prints the peak number of PostgreSQL
connections against max_connections, which says whether a PgBouncer is needed at this size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psycopg

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
        "--kill-after", type=float, default=10.0, help="seconds into the load before the kills"
    )
    parser.add_argument("--token-delay", type=float, default=0.02)
    parser.add_argument("--ingest-timeout", type=float, default=1200)
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
        for server in reversed(servers):
            server.stop()
        print(f"logs and data: {folder}" if args.keep else "")
        if not args.keep:
            subprocess.run(["rm", "-rf", str(folder)], check=False)


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


def _deployment_env(
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


def _commands(folder: Path, web_ports: list[int]) -> dict[str, list[str]]:
    """Steps 3 and 4 of "Scaling out" (docs/operations.md), one entry per process."""
    python = sys.executable
    common = ["--without-gossip", "--without-mingle", "--loglevel=WARNING"]
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


def _run(args: argparse.Namespace, folder: Path, servers: list[Server], nodes: Nodes) -> int:
    from bench.api.llm_process import LLMProcess

    started = time.perf_counter()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f} s] {text}", flush=True)

    servers.append(postgres_start(folder / "postgres", port=free_port()))
    servers.append(valkey_start(folder / "valkey", port=free_port()))
    llm = LLMProcess().start()
    database_url, redis_url = servers[0].url, servers[1].url
    env = _deployment_env(
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
    commands = _commands(folder, web_ports)
    for name, argv in commands.items():
        nodes.start(name, argv, env)
    servers.append(nginx_start(folder / "nginx", port=free_port(), upstreams=web_ports))
    base_url = servers[-1].url
    say(f"steps 3-4: {', '.join(commands)}; nginx at {base_url} in front of web-1, web-2")
    for name, argv in commands.items():
        print(f"    {name}: {' '.join(Path(a).name if a == sys.executable else a for a in argv)}")
    _wait_ready(base_url, nodes)
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
    failures = _report(
        messages, uploads, conversations, documents, load_seconds, sampler, database_url
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


def _wait_ready(base_url: str, nodes: Nodes) -> None:
    import urllib.request

    from config.celery import app

    def web_answers() -> bool:
        for name, process in nodes.processes.items():
            assert process.poll() is None, f"{name} exited at start; see {nodes.folder / name}.log"
        try:
            for _ in range(WEB_PROCESSES):  # round robin: each web process once
                urllib.request.urlopen(f"{base_url}/healthz", timeout=2)  # noqa: S310 (loopback)
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
    from bench.cluster.clients import documents_upload, visitors_run
    from rag.models import Document

    async def kills() -> None:
        await asyncio.sleep(args.kill_after)
        processing = await asyncio.to_thread(
            lambda: Document.objects.filter(status="processing").count()
        )
        say(f"SIGKILL web-1 (pid {nodes.kill('web-1')}, uvicorn and its children)")
        say(
            f"SIGKILL ingest-1 (pid {nodes.kill('ingest-1')}, main and pool process); "
            f"{processing} documents were being ingested"
        )

    started = time.perf_counter()
    messages, uploads, _ = await asyncio.gather(
        visitors_run(
            base_url=base_url,
            headers=headers,
            conversations=conversations,
            questions=questions,
            turns=args.turns,
        ),
        documents_upload(base_url=base_url, headers=headers, documents=documents, bot_id=bot_id),
        kills(),
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


def _report(
    messages, uploads, conversations, documents, load_seconds, sampler, database_url
) -> int:  # type: ignore[no-untyped-def]
    from django.db.models import Count

    from bench.api.load import percentile
    from conversations.models import Turn
    from rag.models import Chunk, Document

    answered = [m for m in messages if len(set(m.turn_ids)) == 1]
    lost = [m for m in messages if not m.turn_ids]
    twice = [m for m in messages if len(set(m.turn_ids)) > 1]
    turns = Turn.objects.filter(conversation_id__in=conversations)
    per_id = turns.values("conversation_id", "client_message_id").annotate(n=Count("id"))
    rows_twice = per_id.filter(n__gt=1).count()
    unfinished = turns.filter(completed_at__isnull=True).count()
    stored = {(str(t.conversation_id), t.client_message_id): str(t.pk) for t in turns}
    mismatched = [
        m for m in answered if stored.get((m.conversation_id, m.client_message_id)) != m.turn_ids[0]
    ]
    retried = [m for m in messages if m.posts > 1 or m.resumes]
    firsts = [m.first_event for m in messages if m.first_event is not None]
    totals = [m.total for m in messages if m.total is not None]
    print()
    print("visitors (client side, as the widget retries):")
    print(
        f"  messages {len(messages)}: answered once {len(answered)}, lost {len(lost)}, answered twice "
        f"(two turns) {len(twice)}; retried {len(retried)} (sent again {sum(m.posts - 1 for m in messages)}, "
        f"resumed {sum(m.resumes for m in messages)})"
    )
    print(
        f"  first event p50 {percentile(firsts, 50) * 1000:.0f} ms, p95 {percentile(firsts, 95) * 1000:.0f} ms; "
        f"answer p50 {percentile(totals, 50):.2f} s, p95 {percentile(totals, 95):.2f} s; "
        f"{len(answered) / load_seconds:.1f} answers/s over the load"
    )
    for error in sorted({e for m in messages for e in m.errors})[:6]:
        print(f"  seen on the way: {error}")
    print("database:")
    print(
        f"  turns {turns.count()} for {len(messages)} messages; ids with two turns {rows_twice}; "
        f"unfinished turns {unfinished}; answers whose turn id differs from the stored one {len(mismatched)}"
    )
    ours = Document.objects.filter(title__startswith="cluster ")
    stuck = ours.filter(status__in=["pending", "processing"]).count()
    failed = list(ours.filter(status="failed").values_list("title", "error_code")[:5])
    titles_twice = ours.values("title").annotate(n=Count("id")).filter(n__gt=1).count()
    chunk_twice = (
        Chunk.objects.filter(document__in=ours)
        .values("document_id", "ordinal")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    text_twice = (
        Chunk.objects.filter(document__in=ours)
        .values("document_id", "text")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    gaps = sum(
        1
        for document in ours.filter(status="ready")
        if sorted(Chunk.objects.filter(document=document).values_list("ordinal", flat=True))
        != list(range(document.chunk_count))
    )
    print(
        f"  documents: {len(documents)} uploaded, {len(uploads.created)} acknowledged "
        f"({uploads.lost} answers lost on the way and sent again, {uploads.replayed} of those "
        f"answered with the document the lost one had created); "
        f"{ours.count()} stored, ready {ours.filter(status='ready').count()}, stuck {stuck}, "
        f"failed {len(failed)}, created twice {titles_twice}"
    )
    print(
        f"  chunks: {Chunk.objects.filter(document__in=ours).count()}; duplicated (document, ordinal) "
        f"{chunk_twice}, duplicated text in a document {text_twice}, documents with gaps {gaps}"
    )
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SHOW max_connections").fetchone()
    limit = int(row[0]) if row else 0
    print(
        f"PostgreSQL client connections: peak {sampler.peak} of max_connections {limit} "
        f"(median {percentile([float(s) for s in sampler.samples], 50):.0f}); "
        + (
            "a PgBouncer in transaction mode is called for"
            if sampler.peak > 0.8 * limit
            else "no PgBouncer needed at this size"
        )
    )
    defects = (
        len(lost) + len(twice) + rows_twice + unfinished + len(mismatched) + stuck + titles_twice
        + chunk_twice + gaps + len(uploads.failed) + len(failed)
    )  # fmt: skip
    for failure in uploads.failed[:5] + [f"{t}: {c}" for t, c in failed]:
        print(f"  failed: {failure}")
    print("result: " + ("nothing lost, nothing twice" if not defects else f"{defects} defects"))
    return defects


if __name__ == "__main__":
    raise SystemExit(main())
