"""Build a hand-written set's BEIR files (corpus.jsonl, queries.jsonl, qrels.tsv) from its source.md, checking
that every question's answer is an extractive span: found verbatim in exactly one paragraph of its document.

    python bench/corpora/build.py bench/corpora/varnholt-en

source.md: "# D01 | Title" opens a document, blank lines separate its paragraphs, and each
"? question | answer span" line is a question about that document.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_HEADING = re.compile(r"^# (D\d+) \| (.+)$")


def build(folder: Path) -> int:
    documents: list[dict[str, object]] = []
    questions: list[tuple[str, str, str]] = []  # (document id, question, answer)
    for block in re.split(r"\n(?=# D\d+ \| )", (folder / "source.md").read_text(encoding="utf-8")):
        lines = block.strip().splitlines()
        heading = _HEADING.match(lines[0])
        if heading is None:
            raise SystemExit(f"not a document heading: {lines[0]!r}")
        doc_id, title = heading.groups()
        body = [line for line in lines[1:] if not line.startswith("? ")]
        paragraphs = [p.strip() for p in "\n".join(body).split("\n\n") if p.strip()]
        documents.append({"_id": doc_id, "title": title, "text": "\n\n".join(paragraphs)})
        for line in lines[1:]:
            if line.startswith("? "):
                question, _, answer = line[2:].partition(" | ")
                holding = [n for n, p in enumerate(paragraphs) if answer.strip() in p]
                if len(holding) != 1:
                    raise SystemExit(
                        f"{doc_id}: {answer!r} is in paragraphs {holding}, not exactly one"
                    )
                questions.append((doc_id, question.strip(), answer.strip()))
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for document in documents:
            out.write(json.dumps(document, ensure_ascii=False) + "\n")
    with (
        (folder / "queries.jsonl").open("w", encoding="utf-8") as out,
        (folder / "qrels.tsv").open("w", encoding="utf-8") as qrels,
    ):
        qrels.write("query-id\tcorpus-id\tscore\n")
        for number, (doc_id, question, answer) in enumerate(questions, start=1):
            query_id = f"q{number:03d}"
            row = {"_id": query_id, "text": question, "metadata": {"answer": answer}}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            qrels.write(f"{query_id}\t{doc_id}\t1\n")
    words = [len(str(d["text"]).split()) for d in documents]
    print(
        f"{len(documents)} documents ({min(words)}-{max(words)} words), {len(questions)} questions"
    )
    return 0


if __name__ == "__main__":
    sys.exit(build(Path(sys.argv[1])))
