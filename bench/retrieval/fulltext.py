"""python -m bench.retrieval.fulltext CORPUS_PATH... [--half tune|report|all] [--replay] [--text-only]

The full-text side against textbook BM25, per set, side by side in one run (recall@5 by document):
Parley's full text as the product runs it (`chunks_retrieve(mode="text")`, pruned by the postings budget),
the same statement ranking exactly (no budget), bm25s + PyStemmer over the chunks Parley stored and over
the whole corpus documents, and the ratios. Then the workspace's calibration as a workspace gets it (no
per-set setting): its choice, where its pairs came from, its held-back figures for each side and the
choice, beside the same three on the set's real questions, so one can see whether the pairs rank the
sides as the questions do. The queries can be halved (by a hash of their id): tune on one half, report
on the other. `--replay` also replays BM25 in Python over Parley's lexemes and bm25s's tokens
(`bench.retrieval.fulltext_replay`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

HALVES = {"tune": 0, "report": 1}
# bm25s's Snowball stemmer and stop list by the chunks' text-search configuration (as the reference).
BM25S_LANGUAGES = {"english": ("english", "en"), "french": ("french", "fr")}


def query_half(query_id: str) -> int:
    return hashlib.sha256(query_id.encode()).digest()[0] % 2


def query_languages(folder: Path) -> dict[str, str]:
    """The queries' own `metadata.language` where the set gives one (xquad-dev)."""
    out = {}
    with (folder / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                query = json.loads(line)
                out[query["_id"]] = (query.get("metadata") or {}).get("language", "")
    return out


def documents_ranked(folder: Path, config: str, questions: list[str]) -> list[list[str]]:
    """bm25s over the whole corpus documents (title and text), each counted for its owner (a fiche
    for spf-fr's sections), as the issue's reference indexed them."""
    import bm25s
    import Stemmer

    texts, owners = [], []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            doc = json.loads(line)
            title = (doc.get("title") or "").strip()
            prefix = f"{title}\n" if title and title != doc["_id"] else ""
            texts.append(prefix + doc["text"])
            owners.append((doc.get("metadata") or {}).get("fiche") or doc["_id"])
    stemmer_name, stopwords = BM25S_LANGUAGES.get(config, (None, None))
    stemmer = Stemmer.Stemmer(stemmer_name) if stemmer_name else None

    def tokens(batch: list[str]) -> list[list[str]]:
        return bm25s.tokenize(  # type: ignore[no-any-return]
            batch, stopwords=stopwords, stemmer=stemmer, return_ids=False, show_progress=False
        )

    retriever = bm25s.BM25()
    retriever.index(tokens(texts), show_progress=False)
    ranked = []
    for question in questions:
        known = [token for token in tokens([question])[0] if token in retriever.vocab_dict]
        if not known:
            ranked.append([])
            continue
        ids, scores = retriever.retrieve([known], k=min(100, len(texts)), show_progress=False)
        ranked.append([owners[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if s > 0])
    return ranked


def ranked(corpus, scope, mode: str) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """Per query, the documents of `chunks_retrieve`'s hits in one mode, best first (as the main
    bench ranks them: no cosine threshold, the whole fused pool)."""
    from rag.retrieval import FUSION, chunks_retrieve

    out = []
    for query in corpus.queries:
        result = chunks_retrieve(
            scope=scope,
            question=query.text,
            top_k=2 * FUSION.candidates,
            mode=mode,
            score_threshold=-1.0,
            language=query.lang,
        )
        out.append([hit.title for hit in result.hits])
    return out


def recall_at_5(queries, rankings: list[list[str]]) -> float:  # type: ignore[no-untyped-def]
    from bench.retrieval.metrics import scores_compute

    documents = [list(dict.fromkeys(titles))[:10] for titles in rankings]
    return scores_compute(documents, [q.relevant for q in queries]).recall[5]


def text_only_prepare(folder: Path, *, limit_queries: int | None):  # type: ignore[no-untyped-def]
    """The set in its own workspace (`bench-text-<name>`) with random unit vectors instead of the
    model's: the full-text statement never reads a vector, and a large set is then measured without
    embedding it (no calibration, no vector side: they would be meaningless)."""
    import numpy as np

    from bench.retrieval.corpus import corpus_load
    from bench.retrieval.embed import tokenizer_load
    from bench.retrieval.load import workspace_load
    from rag.retrieval import RetrievalScope

    corpus = corpus_load(folder, tokenizer=tokenizer_load(), limit_queries=limit_queries)
    vectors = np.random.default_rng(0).normal(size=(len(corpus.chunks), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = [(chunk.doc_id, chunk.lang, chunk.text) for chunk in corpus.chunks]
    workspace, bot = workspace_load(f"bench-text-{corpus.name}", rows, vectors)
    scope = RetrievalScope(
        workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)], external_user_id=""
    )
    return corpus, scope


def set_report(
    folder: Path, *, half: str, limit_queries: int | None, text_only: bool = False
) -> None:
    from django.test import override_settings

    from bench.retrieval import evaluate
    from bench.retrieval.reference import bm25_reference_rank
    from rag.models import Chunk

    if text_only:
        corpus, scope = text_only_prepare(folder, limit_queries=limit_queries)
    else:
        corpus, scope = evaluate.corpus_prepare(folder, limit_queries=limit_queries)
    if half in HALVES:
        kept = [q for q in corpus.queries if query_half(q.query_id) == HALVES[half]]
        corpus = replace(corpus, queries=kept)
    languages = query_languages(folder)
    config = Counter(
        Chunk.objects.filter(workspace_id=scope.workspace_id).values_list(
            "search_config", flat=True
        )
    ).most_common(1)[0][0]
    questions = [q.text for q in corpus.queries]
    with override_settings(RERANKER_URL=""):
        pruned = ranked(corpus, scope, "text")
        with override_settings(RETRIEVAL_BM25_POSTINGS_BUDGET=2**31 - 1):
            exact = ranked(corpus, scope, "text")
    rankings = {
        "Parley full text (pruned)": pruned,
        "Parley exact BM25": exact,
        "bm25s, Parley's chunks": bm25_reference_rank(scope=scope, questions=questions),
        "bm25s, whole documents": documents_ranked(folder, config, questions),
    }
    print(
        f"\n{corpus.name}: {corpus.documents} documents, {len(corpus.chunks)} chunks,"
        f" {len(corpus.queries)} queries ({half} half)",
        flush=True,
    )
    groups = {"all": list(range(len(corpus.queries)))}
    for language in sorted({languages.get(q.query_id, "") for q in corpus.queries} - {""}):
        groups[f"{language} questions"] = [
            n for n, q in enumerate(corpus.queries) if languages.get(q.query_id) == language
        ]
    for group, indexes in groups.items():
        sub = [corpus.queries[n] for n in indexes]
        recall = {
            name: recall_at_5(sub, [lists[n] for n in indexes]) for name, lists in rankings.items()
        }
        print(f"  R@5 by document, {group} ({len(indexes)}):")
        for name, value in recall.items():
            print(f"    {name:30s} {value:.3f}")
        text = recall["Parley full text (pruned)"]
        print(
            "    ratios: pruned/exact {:.3f}, pruned/bm25s chunks {:.3f},"
            " pruned/bm25s documents {:.3f}, exact/bm25s documents {:.3f}".format(
                *(
                    a / b if b else float("nan")
                    for a, b in (
                        (text, recall["Parley exact BM25"]),
                        (text, recall["bm25s, Parley's chunks"]),
                        (text, recall["bm25s, whole documents"]),
                        (recall["Parley exact BM25"], recall["bm25s, whole documents"]),
                    )
                )
            ),
            flush=True,
        )
    if not text_only:
        calibration_report(corpus, scope, text_ranked=pruned, groups=groups)


def calibration_report(corpus, scope, *, text_ranked, groups) -> None:  # type: ignore[no-untyped-def]
    """The workspace's calibration as the product runs it, beside the real questions' figures (per
    question language too, where the set gives one)."""
    from django.test import override_settings

    from rag.retrieval.calibration.service import workspace_fusion_calibrate
    from rag.retrieval.fusion import FusionChoice

    fusion = workspace_fusion_calibrate(workspace_id=scope.workspace_id)
    if fusion is None:
        print("  calibration: too few pairs, product defaults kept", flush=True)
        return
    choice = FusionChoice.from_stored(method=fusion.method, parameters=fusion.parameters)
    origins = "; ".join(f"{o['label']}: {o['count']}" for o in fusion.pair_origins)
    print(f"  calibration: {choice.label()}, pairs: {fusion.pair_source} ({origins})")
    with override_settings(RERANKER_URL=""):
        lists = {
            "vector": ranked(corpus, scope, "vector"),
            "text": text_ranked,
            "hybrid": ranked(corpus, scope, "hybrid"),
        }
    pairs = {
        "vector": fusion.vector_recall_at_5,
        "text": fusion.text_recall_at_5,
        "hybrid": fusion.recall_at_5,
    }
    print(f"    {'R@5':30s}" + "".join(f"{side:>10s}" for side in pairs))
    print(
        f"    {f'held-back pairs ({fusion.held_out_count})':30s}"
        + "".join(f"{value:10.3f}" for value in pairs.values())
    )
    order_pairs = sorted(pairs, key=lambda side: -pairs[side])
    for group, indexes in groups.items():
        queries = [corpus.queries[n] for n in indexes]
        real = {
            side: recall_at_5(queries, [rows[n] for n in indexes]) for side, rows in lists.items()
        }
        print(
            f"    {f'real questions, {group} ({len(indexes)})':30s}"
            + "".join(f"{real[side]:10.3f}" for side in pairs)
        )
        order_real = sorted(real, key=lambda side: -real[side])
        better = max(real["vector"], real["text"])
        agree = (pairs["text"] > pairs["vector"]) == (real["text"] > real["vector"])
        print(
            f"      order on the pairs: {' > '.join(order_pairs)}; on these questions:"
            f" {' > '.join(order_real)}; the better side agrees: {'yes' if agree else 'NO'};"
            f" hybrid minus the better side: {real['hybrid'] - better:+.3f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.retrieval.fulltext", description=__doc__.splitlines()[0]
    )
    parser.add_argument("corpora", nargs="+", type=Path, help="BEIR corpus folders")
    parser.add_argument("--half", choices=["tune", "report", "all"], default="all")
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument("--replay", action="store_true", help="also replay BM25 in Python")
    parser.add_argument(
        "--text-only",
        action="store_true",
        help="full text only, on random vectors (no embedding, no calibration)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings

    print(
        f"BM25 k1 {settings.RETRIEVAL_BM25_K1}, b {settings.RETRIEVAL_BM25_B},"
        f" postings budget {settings.RETRIEVAL_BM25_POSTINGS_BUDGET}"
    )
    for folder in args.corpora:
        set_report(
            folder, half=args.half, limit_queries=args.limit_queries, text_only=args.text_only
        )
        if args.replay:
            from bench.retrieval.fulltext_replay import replay_print

            replay_print(folder, half=HALVES.get(args.half))
    return 0


if __name__ == "__main__":
    sys.exit(main())
