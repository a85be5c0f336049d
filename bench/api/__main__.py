"""Streaming through the real stack: time to first SSE event and turns per second at 8/32/128 clients.

    .venv/bin/python -m bench.api /work/shared/corpora/covid-faq-en [--endpoint rag_search|chat]
        [--token-delay 0.02] [--rounds 3] [--stream-threads N] [--partial-interval-ms MS] [--client wire|httpx]
        [--llm stub|offline] [--cpu-turns 20] [--sequential 20] [--levels 8,32,128|""]
        [--ingest-timeout 900] [--idle-timeout 600] [--idle-window 30] [--profile DIR]

Processes, all on loopback: uvicorn serving config.asgi, the Celery workers ``./parley run`` starts
(config.launcher.workers.worker_commands: the prefork worker, and the thread-pool streams worker that runs
streamed answers), Redis (Valkey) buffering the events, the scripted OpenAI-compatible server
(tests/support/llm_server.py, in a process of its own) answering every LLM call with a 55-token
answer spaced by --token-delay seconds. Questions come from the corpus's queries.jsonl; five corpus documents are
added through the documents API first.

Endpoint: the product's ``POST /api/v1/rag_search`` with ``stream: true``, or (``--endpoint chat``)
a streamed chat turn ``POST /api/v1/conversations/{id}/turns``, each turn in a conversation of its
own (created before the level starts), so no condensing call. Beside each measured rate it prints
the rate the LLM alone allows (clients / seconds per answer), the baseline Parley should approach.

Clients: the load levels read their streams with ``bench.api.wire``, a lean HTTP/1.1 SSE client, so the
load generator's own parsing neither inflates the latencies nor takes the cores Parley needs
(``--client httpx`` uses httpx-sse instead). The sequential first event is printed for both. Then the CPU
each process spends per turn, for sequential JSON (``stream: false``) and streamed calls, with the scripted
LLM or (``--llm offline``) the offline default answering, and beside it the share of that CPU that is
each process's idle upkeep (its CPU rate with no request, measured first over ``--idle-window``
seconds: uvicorn's event-loop ticks, Celery's broker polls), which sequential turns carry in full and a
loaded server spreads over many turns. ``--levels ""`` skips the load levels and
``--sequential 0`` the sequential first-event runs, for a run that only measures CPU per turn.
``--profile DIR`` runs uvicorn and the streams worker under a CPU profiler (bench/api/cpu_profiler.py) and
writes, for the JSON and the streamed CPU-per-turn calls, each process's stacks weighted by CPU time and
their flame graph (bench/api/profile.py); profiling slows them, so a profiled run's CPU
figures are not the ones to quote.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ANSWER_WORDS = (
    "Parley found no passage that answers this question in the documents it was given, so it says so plainly "
    "instead of guessing, and suggests asking about the topics it covers."
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "corpus", type=Path, help="a BEIR corpus folder (queries.jsonl supplies the questions)"
    )
    parser.add_argument("--endpoint", choices=["rag_search", "chat"], default="rag_search")
    parser.add_argument(
        "--levels",
        default="8,32,128",
        help='concurrent streaming clients, comma-separated ("": no load level)',
    )
    parser.add_argument("--rounds", type=int, default=3, help="turns per client at each level")
    parser.add_argument(
        "--token-delay", type=float, default=0.02, help="seconds between LLM tokens"
    )
    parser.add_argument(
        "--stream-threads", type=int, help="PARLEY_STREAM_WORKER_THREADS (default: the setting's)"
    )
    parser.add_argument(
        "--partial-interval-ms",
        type=int,
        help="API_SSE_PARTIAL_INTERVAL_MS (default: the setting's)",
    )
    parser.add_argument(
        "--pool-size", type=int, default=20, help="DATABASE_POOL_MAX_SIZE of the bench processes"
    )
    parser.add_argument(
        "--client",
        choices=["wire", "httpx"],
        default="wire",
        help="the load levels' client: the lean bench.api.wire (default) or httpx-sse",
    )
    parser.add_argument(
        "--llm",
        choices=["stub", "offline"],
        default="stub",
        help="the scripted LLM (default) or the offline default (no LLM configured)",
    )
    parser.add_argument(
        "--cpu-turns",
        type=int,
        default=20,
        help="sequential JSON and streamed calls whose CPU per turn is printed (0: none)",
    )
    parser.add_argument(
        "--sequential",
        type=int,
        default=20,
        help="sequential streamed turns timed to their first event, per client (0: none)",
    )
    parser.add_argument(
        "--ingest-timeout",
        type=float,
        default=900,
        help="seconds the bench documents may take to be ingested (a loaded machine is slow)",
    )
    parser.add_argument(
        "--idle-window",
        type=float,
        default=30.0,
        help="seconds with no request, before the CPU windows, to measure each process's idle CPU (0: none)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=600,
        help="seconds to wait, before the CPU windows, for the workers' background tasks to finish",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        help="a folder: uvicorn's and the streams worker's CPU by stack during the CPU-per-turn calls",
    )
    args = parser.parse_args()

    # Queues of their own, so a developer's running ./parley run never takes the bench's tasks.
    os.environ["CELERY_TASK_DEFAULT_QUEUE"] = "bench-api"
    os.environ["CELERY_STREAM_QUEUE"] = "bench-api-streams"
    if args.stream_threads is not None:
        os.environ["PARLEY_STREAM_WORKER_THREADS"] = str(args.stream_threads)
    if args.partial_interval_ms is not None:
        os.environ["API_SSE_PARTIAL_INTERVAL_MS"] = str(args.partial_interval_ms)

    import logging

    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    from bench.api.stack import Stack

    questions = [
        json.loads(line)["text"]
        for line in (args.corpus / "queries.jsonl").read_text().splitlines()[:500]
    ]
    levels = [int(level) for level in args.levels.split(",") if level.strip()]
    if args.profile is not None:
        args.profile = args.profile.resolve()
    with Stack(
        pool_size=args.pool_size, offline=args.llm == "offline", profile=args.profile
    ) as stack:
        stack.documents_ready(args.corpus, timeout=args.ingest_timeout)
        return _bench(stack, args, questions, levels)


def _requests(
    stack, endpoint: str, questions: list[str], count: int
) -> list[tuple[str, dict[str, Any]]]:  # type: ignore[no-untyped-def]
    if endpoint == "rag_search":
        url = f"{stack.base_url}/api/v1/rag_search"
        return [(url, {"query": q, "stream": True}) for q in questions]
    return [
        (
            f"{stack.base_url}/api/v1/conversations/{stack.conversation_start()}/turns",
            {"message": questions[n % len(questions)], "stream": True},
        )
        for n in range(count)
    ]


def _bench(stack, args, questions: list[str], levels: list[int]) -> int:  # type: ignore[no-untyped-def]
    from django.conf import settings

    from bench.api.load import level_run, percentile, plain_requests
    from tests.support.llm_server import REPLY_TOKENS, Reply

    content = json.dumps(
        {
            "status": "not_found_in_context",
            "answer": ANSWER_WORDS,
            "display_answer": True,
            "confidence_score": 0.1,
            "topic": "Out of scope",
            "suggested_topics": [],
            "understanding": "A question the documents do not cover.",
            "redirection_intent": None,
            "context_usage": [],
        }
    )
    tokens = len(REPLY_TOKENS.findall(content))
    llm_seconds = (tokens + 1) * args.token_delay
    # Every call the run makes: the warm-up's 8, the sequential runs (two clients), the JSON and
    # streamed CPU calls, the levels. Each answer takes one reply (a turn whose retrieval finds nothing
    # may take none); the margin covers a retried call. Too few, and the last calls were answered by
    # the fallback generator, not the stub, which made the CPU figures measure another path.
    turns_needed = (
        8 + 2 * args.sequential + 2 * args.cpu_turns + sum(level * args.rounds for level in levels)
    )
    stack.llm.enqueue(
        *[Reply(content=content, token_delay=args.token_delay) for _ in range(turns_needed * 2)]
    )

    path = (
        "/api/v1/rag_search"
        if args.endpoint == "rag_search"
        else "/api/v1/conversations/{id}/turns"
    )
    print(f"endpoint: POST {path} (stream: true)  ({_label(args.endpoint)})")
    print(
        f"LLM: {tokens} streamed tokens per answer, {args.token_delay * 1000:.0f} ms apart "
        f"-> {llm_seconds:.2f} s per answer from the model alone"
    )
    workers = "; ".join(
        " ".join(a for a in argv if a.startswith(("--pool", "--concurrency"))) or "prefork"
        for argv in stack.workers
    )
    print(
        f"workers (as ./parley run): {workers}; partial updates at most every "
        f"{settings.API_SSE_PARTIAL_INTERVAL_MS} ms; uvicorn: 1 process, DATABASE_POOL_MAX_SIZE={args.pool_size}; "
        f"cores: {os.cpu_count()}"
    )
    print()
    warm_up = _requests(stack, args.endpoint, questions, 8)
    asyncio.run(level_run(requests=warm_up, headers=stack.headers, concurrency=4, rounds=2))
    failures = 0
    for client in ("wire", "httpx") if args.sequential else ():
        count = args.sequential
        sequential = _requests(stack, args.endpoint, questions, count)
        warm = asyncio.run(
            level_run(
                requests=sequential,
                headers=stack.headers,
                concurrency=1,
                rounds=count,
                client=client,
            )
        )
        first = [turn.first_event for turn in warm.ok if turn.first_event is not None]
        totals = [turn.total for turn in warm.ok if turn.total is not None]
        partials = sum(turn.partials for turn in warm.ok) / max(1, len(warm.ok))
        print(
            f"sequential, {count} turns, {_CLIENTS[client]}: first event p50 {percentile(first, 50) * 1000:.1f} ms, "
            f"p95 {percentile(first, 95) * 1000:.1f} ms; turn p50 {percentile(totals, 50):.2f} s; "
            f"errors {len(warm.errors)}; {partials:.1f} tool_partial_update events per answer"
        )
        failures += len(warm.errors)
    if args.cpu_turns:
        _cpu_per_turn(stack, args, questions)
    if not levels:
        return 1 if failures else 0
    floor = asyncio.run(
        plain_requests(url=f"{stack.base_url}/api/v1/me", headers=stack.headers, count=20)
    )
    print(
        f"baseline, 20 sequential GET /api/v1/me (any request's floor): p50 {percentile(floor, 50) * 1000:.1f} ms, "
        f"p95 {percentile(floor, 95) * 1000:.1f} ms"
    )
    print()
    header = (
        f"{'clients':>7} {'turns':>6} {'errors':>6} {'turns/s':>8} {'LLM-bound':>9} {'first p50':>10} "
        f"{'first p95':>10} {'turn p50':>9} {'turn p95':>9}"
    )
    print(f"{header}   (client: {_CLIENTS[args.client]})")
    for level in levels:
        requests = _requests(stack, args.endpoint, questions, level * args.rounds)
        cpu_before = stack.cpu_seconds()
        result = asyncio.run(
            level_run(
                requests=requests,
                headers=stack.headers,
                concurrency=level,
                rounds=args.rounds,
                client=args.client,
            )
        )
        cpu = {name: used - cpu_before[name] for name, used in stack.cpu_seconds().items()}
        firsts = [turn.first_event for turn in result.ok if turn.first_event is not None]
        totals = [turn.total for turn in result.ok if turn.total is not None]
        failures += len(result.errors)
        print(
            f"{level:>7} {len(result.turns):>6} {len(result.errors):>6} {result.rate:>8.1f} "
            f"{level / llm_seconds:>9.1f} {percentile(firsts, 50) * 1000:>8.1f}ms "
            f"{percentile(firsts, 95) * 1000:>8.1f}ms "
            f"{percentile(totals, 50):>8.2f}s {percentile(totals, 95):>8.2f}s"
        )
        for error in sorted(set(result.errors))[:3]:
            print(f"        e.g. {error}")
        per_turn = ", ".join(
            f"{name} {used / max(1, len(result.turns)) * 1000:.0f}" for name, used in cpu.items()
        )
        cores = os.cpu_count() or 1
        busy = sum(cpu.values()) / result.elapsed / cores * 100
        ceiling = cores * len(result.turns) / max(sum(cpu.values()), 1e-9)
        print(
            f"        CPU ms per turn: {per_turn}; these processes kept {busy:.0f}% of {cores} cores busy "
            f"(all cores for them alone: at most {ceiling:.0f} turns/s)"
        )
    return 1 if failures else 0


def _cpu_per_turn(stack, args, questions: list[str]) -> None:  # type: ignore[no-untyped-def]
    """CPU milliseconds per turn of each stack process, for sequential JSON and streamed calls."""
    from bench.api.load import json_requests, level_run, percentile
    from bench.api.profile import profiled

    count = args.cpu_turns
    idle, waited = stack.workers_idle(timeout=args.idle_timeout)
    print(
        f"background tasks before the CPU windows: {'none' if idle else 'STILL RUNNING'} "
        f"after {waited:.0f} s" + ("" if idle else " (their CPU is counted in the worker's column)")
    )
    upkeep = _idle_rates(stack, seconds=args.idle_window) if args.idle_window > 0 else {}
    if upkeep:
        rates = ", ".join(f"{name} {rate * 1000:.2f}" for name, rate in upkeep.items())
        print(f"CPU ms per second with no request ({args.idle_window:.0f} s window): {rates}")
    for mode in ("json", "streamed"):
        requests = _requests(stack, args.endpoint, questions[20:], count)[:count]
        errors = 0
        with profiled(folder=args.profile, label=mode):
            before, started = stack.cpu_seconds(), time.monotonic()
            if mode == "json":
                seconds = asyncio.run(json_requests(requests=requests, headers=stack.headers))
            else:
                result = asyncio.run(
                    level_run(requests=requests, headers=stack.headers, concurrency=1, rounds=count)
                )
                seconds = [turn.total for turn in result.ok if turn.total is not None]
                errors = len(result.errors)
            used = {name: spent - before[name] for name, spent in stack.cpu_seconds().items()}
            elapsed = time.monotonic() - started
        parley = sum(v for name, v in used.items() if name not in _NOT_PARLEY)
        detail = ", ".join(f"{name} {v / count * 1000:.1f}" for name, v in used.items())
        print(
            f"CPU per {mode} turn ({args.llm} LLM, {count} sequential): Parley's processes "
            f"{parley / count * 1000:.1f} ms ({detail}); turn p50 {percentile(seconds, 50) * 1000:.0f} ms; "
            f"errors {errors}"
        )
        if upkeep:
            idle_share = sum(r for n, r in upkeep.items() if n not in _NOT_PARLEY) * elapsed / count
            print(
                f"  of which the processes' idle upkeep {idle_share * 1000:.1f} ms (their rate with no "
                f"request x {elapsed / count:.2f} s per turn); the turn's own "
                f"{(parley / count - idle_share) * 1000:.1f} ms"
            )


_NOT_PARLEY = ("bench client", "LLM server")


def _idle_rates(stack, *, seconds: float) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """CPU seconds per second each process spends with no request: its event loop's ticks, Celery's
    broker polls. Sequential turns of about a second each carry it; a loaded server spreads it thinly."""
    before, started = stack.cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - started
    return {name: (spent - before[name]) / elapsed for name, spent in stack.cpu_seconds().items()}


_CLIENTS = {"wire": "lean client", "httpx": "httpx-sse"}


def _label(endpoint: str) -> str:
    if endpoint == "rag_search":
        return "the product's streamed rag_search: retrieval + answer pipeline"
    return "the product's streamed chat turn: a new conversation per turn, retrieval + answer pipeline + audit"


if __name__ == "__main__":
    sys.exit(main())
