"""Streaming through the real stack: time to first SSE event and turns per second at 8/32/128 clients.

    .venv/bin/python -m bench.api /work/shared/corpora/covid-faq-en [--token-delay 0.02] [--rounds 3]

Processes, all on loopback: uvicorn serving config.asgi, a Celery worker running the stream
runners, Redis (Valkey) buffering the events, the scripted OpenAI-compatible server
(tests/support/llm_server.py) answering every LLM call with --tokens tokens spaced by
--token-delay seconds. Questions come from the corpus's queries.jsonl.

Endpoint: ``POST /api/v1/rag_search`` with ``stream: true`` when the product mounts it; until then
the bench-only ``POST /api/v1/bench/stream`` (bench/api/urls.py), which runs a scripted runner
with the same path around the model (auth, stream open, Celery, gateway, Redis, SSE) but no
retrieval. The printout says which one ran. Beside each measured rate it prints the rate the
LLM alone allows (clients / seconds per answer), the baseline Parley should approach.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.api.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

QUEUE = "bench-api"
ANSWER_WORDS = (
    "Parley found no passage that answers this question in the documents it was given, so it says so plainly "
    "instead of guessing, and suggests asking about the topics it covers."
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="a BEIR corpus folder (queries.jsonl supplies the questions)")
    parser.add_argument("--levels", default="8,32,128", help="concurrent streaming clients, comma-separated")
    parser.add_argument("--rounds", type=int, default=3, help="turns per client at each level")
    parser.add_argument("--token-delay", type=float, default=0.02, help="seconds between LLM tokens")
    parser.add_argument("--worker-processes", type=int, default=2, help="Celery worker processes (threads pool)")
    parser.add_argument("--worker-threads", type=int, default=80, help="threads per worker process")
    parser.add_argument("--pool-size", type=int, default=20, help="DATABASE_POOL_MAX_SIZE of the bench processes")
    parser.add_argument("--endpoint", choices=["auto", "bench", "rag_search"], default="auto")
    args = parser.parse_args()

    import logging

    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    from bench.api.stack import Stack

    questions = [json.loads(line)["text"] for line in (args.corpus / "queries.jsonl").read_text().splitlines()[:500]]
    levels = [int(level) for level in args.levels.split(",")]
    processes, threads = args.worker_processes, args.worker_threads
    stack = Stack(worker_processes=processes, worker_threads=threads, queue=QUEUE, pool_size=args.pool_size)
    with stack:
        return _bench(stack, args, questions, levels)


def _bench(stack, args, questions: list[str], levels: list[int]) -> int:  # type: ignore[no-untyped-def]
    from bench.api.load import level_run, percentile
    from tests.support.llm_server import _TOKENS, Reply

    endpoint = args.endpoint
    if endpoint == "auto":
        endpoint = "rag_search" if "/api/v1/rag_search" in stack.schema_paths() else "bench"
    content = json.dumps({"status": "not_found_in_context", "answer": ANSWER_WORDS, "display_answer": True,
                          "confidence_score": 0.1, "topic": "Out of scope", "suggested_topics": [],
                          "understanding": "A question the documents do not cover.", "redirection_intent": None,
                          "context_usage": []})  # fmt: skip
    tokens = len(_TOKENS.findall(content))
    llm_seconds = (tokens + 1) * args.token_delay
    turns_needed = 28 + sum(level * args.rounds for level in levels)
    stack.llm.enqueue(*[Reply(content=content, token_delay=args.token_delay) for _ in range(turns_needed * 2)])
    url, bodies = stack.endpoint(endpoint, questions, args.corpus)

    print(f"endpoint: POST {url.removeprefix(stack.base_url)}  ({_label(endpoint)})")
    print(f"LLM: {tokens} streamed tokens per answer, {args.token_delay * 1000:.0f} ms apart "
          f"-> {llm_seconds:.2f} s per answer from the model alone")  # fmt: skip
    workers = f"{args.worker_processes} x --pool=threads --concurrency={args.worker_threads}"
    print(f"workers: {workers}; uvicorn: 1 process, DATABASE_POOL_MAX_SIZE={args.pool_size}; cores: {os.cpu_count()}")
    print()
    asyncio.run(level_run(url=url, headers=stack.headers, bodies=bodies, concurrency=4, rounds=2))  # warm-up
    warm = asyncio.run(level_run(url=url, headers=stack.headers, bodies=bodies, concurrency=1, rounds=20))
    first = [turn.first_event for turn in warm.ok if turn.first_event is not None]
    print(f"sequential, 20 turns: first event p50 {percentile(first, 50) * 1000:.1f} ms, "
          f"p95 {percentile(first, 95) * 1000:.1f} ms; errors {len(warm.errors)}")  # fmt: skip
    print()
    header = f"{'clients':>7} {'turns':>6} {'errors':>6} {'turns/s':>8} {'LLM-bound':>9} {'first p50':>10} " \
             f"{'first p95':>10} {'turn p50':>9} {'turn p95':>9}"  # fmt: skip
    print(header)
    failures = 0
    for level in levels:
        result = asyncio.run(
            level_run(url=url, headers=stack.headers, bodies=bodies, concurrency=level, rounds=args.rounds)
        )
        firsts = [turn.first_event for turn in result.ok if turn.first_event is not None]
        totals = [turn.total for turn in result.ok if turn.total is not None]
        failures += len(result.errors)
        print(f"{level:>7} {len(result.turns):>6} {len(result.errors):>6} {result.rate:>8.1f} "
              f"{level / llm_seconds:>9.1f} {percentile(firsts, 50) * 1000:>8.1f}ms "
              f"{percentile(firsts, 95) * 1000:>8.1f}ms "
              f"{percentile(totals, 50):>8.2f}s {percentile(totals, 95):>8.2f}s")  # fmt: skip
        for error in sorted(set(result.errors))[:3]:
            print(f"        e.g. {error}")
    return 1 if failures else 0


def _label(endpoint: str) -> str:
    if endpoint == "rag_search":
        return "the product's streamed rag_search: retrieval + answer pipeline"
    return "bench-only scripted runner: same stream path, no retrieval (rag_search not mounted yet)"


if __name__ == "__main__":
    sys.exit(main())
