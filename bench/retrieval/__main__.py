"""python -m bench.retrieval CORPUS_PATH... [--all] [--limit-queries N] [--sweep fusion] [--latency]

Prints the fusion the workspace's calibration chose, then Recall@1/5/10 and MRR@10 (by document) per
corpus for vector-only, full-text-only, hybrid (the calibrated fusion) and hybrid + reranker, each
through Parley's own `rag.retrieval.chunks_retrieve` on its own tables
(the worktree's database, one workspace per corpus), beside a bm25s BM25 reference on the same stored
chunks, and optionally the fusion grids and the
latency / ef_search / HNSW build-memory tables.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

CORPORA_ROOT = Path("/work/shared/corpora")


def table_print(title: str, rows: dict) -> None:  # type: ignore[type-arg]
    from bench.retrieval.metrics import CUTOFFS

    header = [f"R@{c}" for c in CUTOFFS] + ["MRR@10"]
    width = max(len(name) for name in rows) + 2
    print(f"\n{title}")
    print("  " + "".ljust(width) + "".join(h.rjust(8) for h in header))
    for name, scores in rows.items():
        cells = scores.row() if scores else ["n/a"] * len(header)
        print("  " + name.ljust(width) + "".join(cell.rjust(8) for cell in cells), flush=True)


def grid_print(title: str, columns: list[str], rows: dict) -> None:  # type: ignore[type-arg]
    width = max(len(name) for name in rows) + 2
    print(f"\n{title}")
    print("  " + "".ljust(width) + "".join(c.rjust(12) for c in columns))
    for name, cells in rows.items():
        print(
            "  "
            + name.ljust(width)
            + "".join(f"{s.recall[5]:.3f}/{s.mrr:.3f}".rjust(12) for s in cells)
        )


def fusion_print(name: str, prepared, evaluate) -> None:  # type: ignore[no-untyped-def]
    grid = evaluate.fusion_sweep(prepared)
    grid_print(
        f"{name}: weighted RRF, R@5/MRR@10 by vector:text weight ratio (columns), rrf k and depth N (rows)",
        [f"{r:g}:1" for r in evaluate.RATIOS],
        {f"k={k} N={n}": cells for (k, n), cells in grid.items()},
    )
    grid_print(
        f"{name}: min-max score fusion, N=40, R@5/MRR@10 by vector share",
        [f"{s:g}" for s in evaluate.SHARES],
        {"score fusion": evaluate.score_fusion_sweep(prepared)},
    )


def calibration_print(workspace_id: str) -> None:
    """Calibrate the bench workspace as the product would (its loader bypasses ingestion's trigger)."""
    from rag.retrieval.calibration.service import workspace_fusion_calibrate
    from rag.retrieval.fusion import FusionChoice

    fusion = workspace_fusion_calibrate(workspace_id=workspace_id)
    if fusion is None:
        print("\n  fusion calibration: too few pairs, product defaults kept", flush=True)
        return
    choice = FusionChoice.from_stored(method=fusion.method, parameters=fusion.parameters)
    origins = ", ".join(f"{o['label']} ({o['count']})" for o in fusion.pair_origins) or "-"
    print(
        f"\n  fusion calibration: {choice.label()}; held-back R@5"
        f" ({'by document' if fusion.pair_source == 'evaluation' else 'by chunk'})"
        f" {fusion.recall_at_5:.3f}"
        f" (MiniLM {fusion.vector_recall_at_5:.3f}, multilingual {fusion.multi_recall_at_5:.3f},"
        f" full text {fusion.text_recall_at_5:.3f}) on"
        f" {fusion.held_out_count} of {fusion.pair_count} pairs;"
        f" pairs' source: {fusion.get_pair_source_display()} [{origins}]",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.retrieval", description=__doc__.splitlines()[0]
    )
    parser.add_argument("corpora", nargs="*", type=Path, help="BEIR corpus folders")
    parser.add_argument("--all", action="store_true", help=f"every corpus under {CORPORA_ROOT}")
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument(
        "--sweep", action="append", choices=["fusion"], default=[], help="also print fusion grids"
    )
    parser.add_argument(
        "--latency", action="store_true", help="also measure latency at 1k/10k/100k chunks"
    )
    parser.add_argument("--latency-sizes", default="1000,10000,100000")
    parser.add_argument(
        "--latency-search-only",
        action="store_true",
        help="with --latency, only the search-phase table (no HNSW build or ef_search table)",
    )
    parser.add_argument(
        "--latency-corpora",
        default="",
        help="comma-separated shared corpora to cycle for --latency (default: all of them)",
    )
    args = parser.parse_args(argv)
    folders = (
        sorted(p for p in CORPORA_ROOT.iterdir() if (p / "corpus.jsonl").exists())
        if args.all
        else args.corpora
    )  # retrieval sets only (injection-train is not one)
    if not folders and not args.latency:
        parser.error("give corpus folders, --all, or --latency")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings

    from bench.retrieval import evaluate, latency
    from rag.retrieval import FUSION

    ef_search = FUSION.ef_search or settings.RETRIEVAL_HNSW_EF_SEARCH
    print(
        f"product defaults: {FUSION}, ef_search {ef_search}, reranker {settings.RERANKER_URL or 'none'}"
    )
    for folder in folders:
        corpus, scope = evaluate.corpus_prepare(folder, limit_queries=args.limit_queries)
        chunks = sum(1 for _ in corpus.chunks)
        title = f"{corpus.name}: {corpus.documents} documents, {chunks} chunks, {len(corpus.queries)} queries"
        calibration_print(scope.workspace_id)
        ranked = evaluate.strategies_rank(corpus, scope)
        rows = evaluate.strategies_score(corpus, ranked)
        table_print(title, rows)
        print(evaluate.reference_ratio(rows))
        print(evaluate.done_when(rows))
        for language in evaluate.corpus_languages(corpus):
            per_language = evaluate.strategies_score(corpus, ranked, language=language)
            count = sum(q.labelled_language == language for q in corpus.queries)
            table_print(f"{corpus.name}, questions in {language!r} ({count})", per_language)
            print(evaluate.done_when(per_language))
        if "fusion" in args.sweep:
            fusion_print(corpus.name, evaluate.sweep_prepare(corpus, scope), evaluate)
    if args.latency:
        latency.latency_report(
            sizes=[int(s) for s in args.latency_sizes.split(",")],
            corpora=[name for name in args.latency_corpora.split(",") if name] or None,
            search_only=args.latency_search_only,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
