"""The bench's rows: real corpus texts and their MiniLM vectors, multiplied to the requested size.

Embedding a million texts on 2 cores takes hours, so each row reuses one base text's vector with a
small Gaussian perturbation (re-normalised; cosine to the base about 0.93) and the base text with a
unique marker word. The base texts are the whole corpus cut into chunk-sized pieces (scifact-en: about
9,000), so each text recurs as rarely as the corpus allows: at 1M rows, ~100 times (the first 2,000
documents' openings, used until 2026-12-05, recurred 500 times, which made every lexeme common and
every neighbourhood a cluster of near-ties). The tenants follow the issue's shape scaled to the size: one holds half the
rows, nine hold 5% each, ninety share the last 5%.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.retrieval.embed import embeddings_cached

NOISE = 0.02  # per dimension; ||noise|| ~ 0.39 for 384 dimensions
PIECE = 800  # characters of a document's text per base text (the title goes before it)
BIG, MID, SMALL = 1, 9, 90


@dataclass(frozen=True)
class ScaleCorpus:
    name: str
    texts: list[str]
    vectors: np.ndarray
    queries: list[str]
    query_vectors: np.ndarray


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def pieces(text: str, *, size: int = PIECE) -> list[str]:
    """`text` cut at word boundaries into pieces of at most `size` characters (one chunk's worth)."""
    out: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > size:
            out.append(current)
            current = ""
        current = f"{current} {word}" if current else word[:size]
    if current:
        out.append(current)
    return out


def corpus_load(folder: Path, *, base_limit: int, query_limit: int) -> ScaleCorpus:
    """Every document of the corpus in chunk-sized pieces (the first `base_limit` pieces if it is set),
    and `query_limit` questions, embedded once (bench.retrieval.embed's cache). Each piece starts with
    its document's title, as a chunk's heading would."""
    texts: list[str] = []
    for document in _jsonl(folder / "corpus.jsonl"):
        title = document.get("title", "")
        texts.extend(f"{title}. {piece}" for piece in pieces(document["text"]))
    if base_limit:
        texts = texts[:base_limit]
    queries = [q["text"] for q in _jsonl(folder / "queries.jsonl")[:query_limit]]
    return ScaleCorpus(
        name=folder.name,
        texts=texts,
        vectors=embeddings_cached(f"{folder.name}-scale-base", texts),
        queries=queries,
        query_vectors=embeddings_cached(f"{folder.name}-scale-queries", queries),
    )


def tenant_sizes(total: int) -> dict[int, int]:
    """Workspace id -> rows: 1 is the big tenant (half), 2-10 the mid ones (5% each), 11-100 small."""
    sizes = {1: total // 2}
    for workspace in range(2, 2 + MID):
        sizes[workspace] = total // 20
    rest = total - sum(sizes.values())
    for index, workspace in enumerate(range(2 + MID, 2 + MID + SMALL)):
        sizes[workspace] = rest // SMALL + (1 if index < rest % SMALL else 0)
    return sizes


def rows(
    corpus: ScaleCorpus, *, sizes: dict[int, int], start_id: int = 1, seed: int = 7
) -> Iterator[tuple[int, int, np.ndarray, str]]:
    """(id, workspace_id, vector, text) for every row, workspace by workspace."""
    generator = np.random.default_rng(seed)
    base_count = len(corpus.texts)
    row_id = start_id
    for workspace, count in sizes.items():
        for offset in range(0, count, 4096):
            n = min(4096, count - offset)
            picks = generator.integers(0, base_count, size=n)
            noisy = corpus.vectors[picks] + generator.normal(0, NOISE, size=(n, 384)).astype(
                np.float32
            )
            noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
            for pick, vector in zip(picks, noisy, strict=True):
                yield row_id, workspace, vector, f"{corpus.texts[pick]} m{row_id}x"
                row_id += 1
