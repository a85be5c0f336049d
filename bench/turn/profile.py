"""Where a turn's CPU goes in Parley's own code: cProfile over sequential `turn_answer` calls, in-process.

    nice -n 10 .venv/bin/python -m bench.turn.profile /work/shared/corpora/covid-faq-en \
        [--chunks 10000] [--turns 30] [--llm offline|stub] [--streamed] [--top 30]

A workspace of its own ("bench-profile", loaded as bench.turn loads its own, its passages made).
`--llm stub`: the scripted OpenAI-compatible server answers at once (its own process, not profiled);
`offline`: the offline default. `--streamed`: the turn gets an
emitter, so the answer is streamed and its partial JSON parsed per delta (the emitter only collects:
the Redis relay and the SSE writer run in other processes, which bench.api measures). Prints the
functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time
import uuid
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class CollectingEmitter:
    """A PipelineEmitter that keeps the events (the streamed path's work up to the relay)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def search_preparation_started(self) -> None:
        self.events.append(("search", ""))

    def retrieval_completed(self, *, retrieved_count: int) -> None:
        self.events.append(("retrieved", str(retrieved_count)))

    def reranking_completed(
        self, *, initial_count: int, reranked_count: int, kept_count: int
    ) -> None:
        self.events.append(("reranked", str(kept_count)))

    def compiling_results_started(self) -> None:
        self.events.append(("compiling", ""))

    def partial(self, *, content: str, output_key: str = "response") -> None:
        self.events.append((output_key, content))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--chunks", type=int, default=0, help="0: the corpus as is")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--llm", choices=["offline", "stub"], default="offline")
    parser.add_argument("--streamed", action="store_true")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    import django

    django.setup()
    from bench.retrieval.load import workspace_load
    from bench.turn.load import corpus_scaled
    from bench.turn.runs import STUB_ANSWER
    from conversations.models import Conversation
    from conversations.pipeline import turn_answer
    from core.llm.types import LLMEndpoint
    from rag.passages.backfill import chunks_passages_backfill
    from tests.support.llm_server import Reply, ScriptedLLMServer

    corpus, rows, vectors = corpus_scaled(args.corpus, args.chunks)
    workspace, bot = workspace_load("bench-profile", rows, vectors)
    made = chunks_passages_backfill(workspace_id=workspace.pk)  # as ingestion would have
    print(f"passages made for {made} chunks")
    server = ScriptedLLMServer().start() if args.llm == "stub" else None
    endpoint = (
        LLMEndpoint(model="stub", base_url=server.base_url, api_key="k", max_retries=0)
        if server
        else None
    )
    questions = [corpus.queries[i % len(corpus.queries)].text for i in range(args.turns + 3)]

    def turn(question: str) -> None:
        if server:
            server.enqueue(Reply.json(STUB_ANSWER))
        conversation = Conversation.objects.create(bot=bot)
        turn_answer(
            conversation_id=conversation.pk,
            client_message_id=uuid.uuid4().hex,
            message=question,
            endpoint=endpoint,
            emitter=CollectingEmitter() if args.streamed else None,
        )

    try:
        for question in questions[:3]:
            turn(question)
        profile = cProfile.Profile()
        started = time.perf_counter()
        profile.enable()
        for question in questions[3:]:
            turn(question)
        profile.disable()
        elapsed = (time.perf_counter() - started) * 1000 / args.turns
    finally:
        if server:
            server.stop()
    mode = f"{args.llm} LLM, {'streamed' if args.streamed else 'JSON'}"
    print(f"{args.turns} turns ({mode}), {len(rows)} chunks: {elapsed:.1f} ms per turn (profiled)")
    for order in ("cumulative", "tottime"):
        out = io.StringIO()
        stats = pstats.Stats(profile, stream=out)
        stats.sort_stats(order).print_stats(args.top)
        print(out.getvalue().split("\n", 6)[-1].replace(str(Path.cwd()) + "/", ""))


if __name__ == "__main__":
    main()
