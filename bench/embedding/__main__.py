"""The local model in float32 and in bfloat16 (textmodels.embeddings.precision), side by side in one run.

    .venv/bin/python -m bench.embedding /work/shared/corpora/covid-faq-en /work/shared/corpora/xquad-dev \
        [--limit 2000] [--threads 1]

For each BEIR folder: every document (title and text, as a chunk's embedded text starts) and every
question is embedded by `LocalProvider` twice, float32 then bfloat16, on the same thread count. It prints
the CPU milliseconds per document and per question, the cosine of each bfloat16 vector to its float32
twin (mean and minimum), recall@5 by document of exact cosine search with each precision, and how many
questions' top 5 differ between the two. Nothing is tuned: the figures only compare the two precisions.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpora", type=Path, nargs="+", help="BEIR folders.")
    parser.add_argument("--limit", type=int, default=2000, help="Documents per corpus at most.")
    parser.add_argument("--threads", type=int, default=1, help="Torch threads (a worker's: 1).")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import torch

    from bench.beir import beir_load
    from textmodels.embeddings import LOCAL_MODEL_ID
    from textmodels.embeddings.local import LocalProvider
    from textmodels.embeddings.precision import bf16_native

    torch.set_num_threads(args.threads)
    print(f"bfloat16 in hardware: {bf16_native()}; torch threads: {args.threads}")
    providers = {
        precision: LocalProvider(
            model_id=LOCAL_MODEL_ID, batch_size=32, threads=args.threads, bf16=precision == "bf16"
        )
        for precision in ("fp32", "bf16")
    }
    for provider in providers.values():
        provider.embed_texts(["warm-up"])
    print(
        f"{'corpus':14} {'precision':9} {'ms/doc':>7} {'ms/question':>11} {'recall@5':>8} "
        f"{'cos to fp32 mean / min':>24} {'top 5 differ':>12}"
    )
    for folder in args.corpora:
        docs, questions, qrels = beir_load(folder)
        ids = list(docs)[: args.limit]
        kept = {qid: text for qid, text in questions.items() if qrels[qid] & set(ids)}
        texts = [_doc_text(docs[doc_id]) for doc_id in ids]
        measured = {}
        for precision, provider in providers.items():
            started = time.process_time()
            matrix = np.asarray(provider.embed_texts(texts), dtype=np.float32)
            per_doc = (time.process_time() - started) / len(texts) * 1000
            started = time.process_time()
            asked = np.asarray(
                [provider.embed_query(text) for text in kept.values()], dtype=np.float32
            )
            per_question = (time.process_time() - started) / max(1, len(kept)) * 1000
            top = np.argsort(-(asked @ matrix.T), axis=1)[:, :5]
            measured[precision] = (matrix, asked, top, per_doc, per_question)
        base_docs, base_questions, base_top = measured["fp32"][:3]
        for precision, (matrix, asked, top, per_doc, per_question) in measured.items():
            recall = np.mean(
                [
                    len({ids[i] for i in row} & qrels[qid]) / min(5, len(qrels[qid] & set(ids)))
                    for qid, row in zip(kept, top, strict=True)
                ]
            )
            cosines = np.concatenate(
                [(matrix * base_docs).sum(axis=1), (asked * base_questions).sum(axis=1)]
            )
            differ = sum(set(row) != set(base) for row, base in zip(top, base_top, strict=True))
            print(
                f"{folder.name:14} {precision:9} {per_doc:7.1f} {per_question:11.2f} {recall:8.3f} "
                f"{cosines.mean():15.6f} / {cosines.min():.6f} {differ:8d} of {len(kept)}"
            )


def _doc_text(doc: dict) -> str:
    title = (doc.get("title") or "").strip()
    return f"{title}\n\n{doc['text']}" if title else doc["text"]


if __name__ == "__main__":
    main()
