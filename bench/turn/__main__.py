"""Whole-turn latency excluding the LLM, Parley vs a LangChain baseline, side by side in one process; then
the offline default's own time (bench.turn.offline): composer, whole turn and rag_search, before and
after passages made at ingestion.

    .venv/bin/pip install -r bench/requirements.txt      # the baseline's langchain-postgres
    nice -n 10 .venv/bin/python -m bench.turn /work/shared/corpora/covid-faq-en [--chunks 10000] [--turns 200]

Parley: `turn_answer` (idempotency row, guards, hybrid retrieval on the real Chunk table, prompt_build,
the contract, routing, the audit UPDATE). Baseline: LangChain's `langchain-postgres` PGVector retriever
(k = the bot's top_k) + the same `prompt_build` + the same LLM stub + `json.loads`. Same database, same
vectors, same query embedding model; the stub (tests.support.llm_server) answers at once. Recall@5 is
counted by document on the corpus's qrels from each side's retrieved chunks.
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument(
        "--chunks",
        type=int,
        default=10000,
        help="0: the corpus as is (for recall without replicas)",
    )
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument(
        "--offline-turns",
        type=int,
        default=50,
        help="questions for the offline default's rows (0: skip them)",
    )
    args = parser.parse_args()
    import django

    django.setup()
    from bench.turn.load import corpus_scaled, parley_load
    from bench.turn.offline import offline_rows
    from bench.turn.runs import baseline_build, baseline_turn, parley_turn
    from tests.support.llm_server import ScriptedLLMServer

    corpus, rows, vectors = corpus_scaled(args.corpus, args.chunks)
    bot = parley_load(rows, vectors)
    retriever = baseline_build(rows, vectors)
    server = ScriptedLLMServer().start()
    queries = [corpus.queries[i % len(corpus.queries)] for i in range(args.turns)]
    try:
        for warm in queries[:5]:
            parley_turn(bot, warm.text, server)
            baseline_turn(bot, retriever, warm.text, server)
        parley, baseline = [], []
        for query in queries:  # interleaved, so both sides see the same load on a shared machine
            parley.append(parley_turn(bot, query.text, server))
            baseline.append(baseline_turn(bot, retriever, query.text, server))
    finally:
        server.stop()
    print(
        f"\n{corpus.name}: {len(rows)} chunks, {len(queries)} turns each, LLM stub answering at once\n"
    )
    _table("Parley turn_answer", parley)
    _table("LangChain PGVector baseline", baseline)
    own = [t["total"] - t["embed"] - t["llm"] for t in parley]
    print(
        f"Parley's own work (total - query embedding - LLM): p50 {_p(own, 50):.1f} ms, p95 {_p(own, 95):.1f} ms"
    )
    unique = {q.query_id: q for q in queries}.values()
    relevant = [q.relevant for q in unique]
    for name, runs in (("Parley", parley), ("baseline", baseline)):
        by_query = {q.query_id: run["docs"] for q, run in zip(queries, runs, strict=True)}
        recall = statistics.mean(
            len(set(by_query[q.query_id][:5]) & rel) / len(rel)
            for q, rel in zip(unique, relevant, strict=True)
        )
        print(f"recall@5 (by document) {name:>9}: {recall:.3f}")
    if args.offline_turns:
        questions = [q.text for q in queries[: args.offline_turns]]
        offline = offline_rows(bot, questions)
        print(
            f"\nThe offline default (no LLM configured), {len(questions)} questions, Parley's own time"
        )
        print(f"  {'row':<78} {'p50 ms':>8} {'p95 ms':>8}")
        for row, values in offline.items():
            print(f"  {row:<78} {_p(values, 50):>8.1f} {_p(values, 95):>8.1f}")
        made = offline["ingest: passages made, per chunk"][0]
        alone = offline["ingest: chunk text embedded alone, per chunk"][0]
        print(
            f"  ingest throughput with passages / embedding alone (distinct chunk texts, same models): "
            f"{alone / (alone + made):.2f}"
        )


def _p(values: list[float], percentile: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(percentile / 100 * (len(ordered) - 1)))]


def _table(title: str, runs: list[dict]) -> None:
    phases = [k for k in runs[0] if k != "docs"]
    print(f"{title}")
    print(f"  {'phase':<10} {'p50 ms':>8} {'p95 ms':>8}")
    for phase in phases:
        values = [run[phase] for run in runs]
        print(f"  {phase:<10} {_p(values, 50):>8.1f} {_p(values, 95):>8.1f}")
    print()


if __name__ == "__main__":
    main()
