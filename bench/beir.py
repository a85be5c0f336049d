"""Read a labelled set in BEIR's layout (corpus.jsonl, queries.jsonl, qrels.tsv), as the shared corpora and
bench/corpora's hand-written sets are stored, for the benchmarks that answer its questions."""

from __future__ import annotations

import json
from pathlib import Path


def beir_load(folder: Path) -> tuple[dict[str, dict], dict[str, str], dict[str, set[str]]]:
    """(documents by id, questions by id, relevant document ids by question id).

    Only the questions with at least one relevant document that the corpus holds are kept, in id order.
    """
    docs = {
        d["_id"]: d for d in map(json.loads, (folder / "corpus.jsonl").read_text().splitlines())
    }
    queries = {
        q["_id"]: q["text"]
        for q in map(json.loads, (folder / "queries.jsonl").read_text().splitlines())
    }
    qrels: dict[str, set[str]] = {}
    for line in (folder / "qrels.tsv").read_text().splitlines()[1:]:
        qid, did, score = line.split("\t")
        if float(score) > 0 and did in docs:
            qrels.setdefault(qid, set()).add(did)
    return docs, {q: queries[q] for q in sorted(queries) if q in qrels}, qrels
