"""Loads a BEIR-layout corpus and cuts its documents into chunks that fit the embedding model's window.

Each chunk keeps the id of the document it counts for: in `spf-fr` a fiche section counts for
its fiche (`metadata.fiche`), so recall is measured by document as the corpus README asks.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import py3langid
from langchain_text_splitters import RecursiveCharacterTextSplitter

CHUNK_TOKENS = 200  # the model truncates at 256 word pieces; keep room for the title prefix
CHUNK_OVERLAP_TOKENS = 24
LANGUAGES = {"fr", "en"}  # others are treated as "simple" (no stemming) by the full-text side


@dataclass(frozen=True)
class Chunk:
    chunk_id: int
    doc_id: str  # the document it counts for when scoring (a fiche for spf-fr sections)
    lang: str
    text: str


@dataclass(frozen=True)
class Query:
    query_id: str
    text: str
    lang: str
    relevant: frozenset[str]
    # The set's own label of the question's language (xquad-dev's `metadata.language`), "" without one.
    labelled_language: str = ""


@dataclass(frozen=True)
class Corpus:
    name: str
    chunks: list[Chunk]
    queries: list[Query]
    documents: int


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def language_detect(text: str) -> str:
    lang, _ = py3langid.classify(text)
    return lang if lang in LANGUAGES else "simple"


def _splitter(tokenizer) -> RecursiveCharacterTextSplitter:
    return RecursiveCharacterTextSplitter.from_huggingface_tokenizer(
        tokenizer, chunk_size=CHUNK_TOKENS, chunk_overlap=CHUNK_OVERLAP_TOKENS
    )


def corpus_load(folder: Path, *, tokenizer, limit_queries: int | None = None) -> Corpus:
    """Read corpus, queries and qrels; chunk each document (title prepended to every chunk)."""
    splitter = _splitter(tokenizer)
    chunks: list[Chunk] = []
    documents = _jsonl(folder / "corpus.jsonl")
    for doc in documents:
        counts_for = (doc.get("metadata") or {}).get("fiche") or doc["_id"]
        title = (doc.get("title") or "").strip()
        prefix = f"{title}\n" if title and title != doc["_id"] else ""
        lang = language_detect(prefix + doc["text"][:2000])
        for piece in splitter.split_text(doc["text"]) or [""]:
            chunks.append(
                Chunk(chunk_id=len(chunks) + 1, doc_id=counts_for, lang=lang, text=prefix + piece)
            )
    relevant: dict[str, set[str]] = {}
    with (folder / "qrels.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if int(row["score"]) > 0:
                relevant.setdefault(row["query-id"], set()).add(row["corpus-id"])
    queries = [
        Query(
            query_id=q["_id"],
            text=q["text"],
            lang=language_detect(q["text"]),
            relevant=frozenset(relevant[q["_id"]]),
            labelled_language=str((q.get("metadata") or {}).get("language") or ""),
        )
        for q in _jsonl(folder / "queries.jsonl")
        if q["_id"] in relevant
    ]
    if limit_queries:
        queries = queries[:limit_queries]
    return Corpus(name=folder.name, chunks=chunks, queries=queries, documents=len(documents))
