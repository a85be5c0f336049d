"""Okapi BM25 replayed in Python over Parley's own lexemes, to find what separates the full-text side from
bm25s (`python -m bench.retrieval.fulltext --replay`).

The lexemes come from the database's `parley_tsvector` (the product's one analysis) or from variants of it
built inside a transaction that is rolled back; bm25s's tokens come from its own regex tokenizer, PyStemmer
and stop lists. Every variant is ranked by the same exact formula (Lucene's idf, k1, b; a query word said
twice counts twice), over the chunks Parley stores and over whole documents, and counted by document.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import bm25s
import Stemmer
from django.db import connection, transaction

from bench.retrieval.metrics import scores_compute

Bag = Counter[str]
_LEXEMES_SQL = (
    "SELECT u.i, t.lexeme, coalesce(array_length(t.positions, 1), 1)"
    " FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS u(cfg, txt, i),"
)
ANALYSES = {
    name: _LEXEMES_SQL + f" unnest({name}(u.cfg, u.txt)) AS t"
    for name in ("parley_tsvector", "pt_variant")
}
# The product's analysis without the Snowball stop lists (French), in a rolled-back transaction.
NO_STOP_WORDS = """
CREATE TEXT SEARCH DICTIONARY pt_french_stem (TEMPLATE = snowball, language = 'french');
CREATE TEXT SEARCH CONFIGURATION pt_french (COPY = french);
ALTER TEXT SEARCH CONFIGURATION pt_french ALTER MAPPING REPLACE french_stem WITH pt_french_stem;
CREATE FUNCTION pt_variant(cfg text, t text) RETURNS tsvector LANGUAGE sql STABLE
RETURN CASE WHEN cfg = 'french' THEN parley_fold(to_tsvector('pt_french', coalesce(t, ''))::text)::tsvector
            WHEN cfg = 'english' THEN parley_fold(to_tsvector('parley_english', coalesce(t, ''))::text)::tsvector
            ELSE to_tsvector(cfg::regconfig, coalesce(t, '')) END;
"""
BM25S_LANGUAGES = {"english": ("english", "en"), "french": ("french", "fr")}


def lexemes(items: Sequence[tuple[str, str]], *, function: str = "parley_tsvector") -> list[Bag]:
    """(text-search configuration, text) → the lexemes' position counts, through SQL."""
    out: list[Bag] = [Counter() for _ in items]
    with connection.cursor() as cursor:
        for start in range(0, len(items), 2000):
            batch = items[start : start + 2000]
            sql = ANALYSES[function]
            cursor.execute(
                sql,
                [[cfg for cfg, _ in batch], [text for _, text in batch]],
            )
            for index, lexeme, count in cursor.fetchall():
                out[start + index - 1][lexeme] = count
    return out


def bm25s_tokens(texts: Sequence[str], config: str, *, stop: bool = True) -> list[Bag]:
    stemmer_name, stopwords = BM25S_LANGUAGES.get(config, (None, None))
    stemmer = Stemmer.Stemmer(stemmer_name) if stemmer_name else None
    tokens = bm25s.tokenize(
        list(texts),
        stopwords=stopwords if stop else None,
        stemmer=stemmer,
        return_ids=False,
        show_progress=False,
    )
    return [Counter(words) for words in tokens]


def bm25_rank(
    docs: Sequence[Bag], queries: Sequence[Bag], *, k1: float, b: float, depth: int = 100
) -> list[list[int]]:
    """Exact BM25 (Lucene's idf), each query's best `depth` document indexes."""
    n = len(docs)
    lengths = [sum(bag.values()) for bag in docs]
    average = sum(lengths) / max(n, 1)
    postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for index, bag in enumerate(docs):
        for term, tf in bag.items():
            postings[term].append((index, tf))
    out = []
    for query in queries:
        scores: dict[int, float] = defaultdict(float)
        for term, qtf in query.items():
            hits = postings.get(term)
            if not hits:
                continue
            idf = math.log(1 + (n - len(hits) + 0.5) / (len(hits) + 0.5))
            for index, tf in hits:
                norm = k1 * (1 - b + b * lengths[index] / average)
                scores[index] += qtf * idf * tf * (k1 + 1) / (tf + norm)
        out.append(sorted(scores, key=lambda i: (-scores[i], i))[:depth])
    return out


def recall_at_5(
    ranked: Sequence[Sequence[int]], owner: Sequence[str], relevant: Sequence[frozenset[str]]
) -> float:
    documents = [list(dict.fromkeys(owner[i] for i in hits))[:10] for hits in ranked]
    return scores_compute(documents, list(relevant)).recall[5]


def variants_run(
    *,
    units: dict[str, tuple[list[str], list[str], list[str]]],
    queries: list[str],
    relevant: list[frozenset[str]],
    extra: dict[str, str],
) -> dict[str, dict[str, float]]:
    """units: name → (configs, texts, owners); extra: variant name → SQL setup of a `pt_variant(cfg, text)`
    function (run in a rolled-back transaction). Returns R@5 per variant and unit."""
    out: dict[str, dict[str, float]] = {}

    def product(cfg: str, function: str) -> Callable[[list[str], list[str]], list[Bag]]:
        return lambda configs, texts: lexemes(
            list(zip(configs, texts, strict=True)), function=function
        )

    config = Counter(next(iter(units.values()))[0]).most_common(1)[0][0]
    analyses: dict[str, tuple[str, Callable[[list[str], list[str]], list[Bag]]]] = {
        "parley": ("", product(config, "parley_tsvector"))
    }
    for name, setup in extra.items():
        analyses[name] = (setup, product(config, "pt_variant"))
    for name, (setup, analyse) in analyses.items():
        with transaction.atomic():
            if setup:
                with connection.cursor() as cursor:
                    cursor.execute(setup)
            query_bags = analyse([config] * len(queries), queries)
            for unit, (configs, texts, owners) in units.items():
                docs = analyse(configs, texts)
                for k1 in (1.2, 1.5):
                    ranked = bm25_rank(docs, query_bags, k1=k1, b=0.75)
                    key = f"{name} k1={k1}"
                    out.setdefault(key, {})[unit] = recall_at_5(ranked, owners, relevant)
            transaction.set_rollback(True)
    query_tokens = bm25s_tokens(queries, config)
    for unit, (_, texts, owners) in units.items():
        docs = bm25s_tokens(texts, config)
        for k1 in (1.2, 1.5):
            ranked = bm25_rank(docs, query_tokens, k1=k1, b=0.75)
            out.setdefault(f"bm25s tokens k1={k1}", {})[unit] = recall_at_5(
                ranked, owners, relevant
            )
    return out


def replay_print(folder: Path, *, half: int | None) -> None:
    """The replay's table for one set: each analysis at k1 1.2 and 1.5, over chunks and documents."""
    import hashlib
    import json

    from bench.retrieval.corpus import corpus_load
    from bench.retrieval.embed import tokenizer_load
    from rag.language import search_config_for

    corpus = corpus_load(folder, tokenizer=tokenizer_load())
    queries = [
        q
        for q in corpus.queries
        if half is None or hashlib.sha256(q.query_id.encode()).digest()[0] % 2 == half
    ]
    if folder.name == "xquad-dev":  # BM25 cannot cross languages: its English questions only
        queries = [q for q in queries if q.query_id.endswith("-en")]
    language_of: dict[str, str] = {}
    for chunk in corpus.chunks:
        language_of.setdefault(chunk.doc_id, chunk.lang)
    configs, texts, owners = [], [], []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                doc = json.loads(line)
                owner = (doc.get("metadata") or {}).get("fiche") or doc["_id"]
                title = (doc.get("title") or "").strip()
                prefix = f"{title}\n" if title and title != doc["_id"] else ""
                texts.append(prefix + doc["text"])
                owners.append(owner)
                configs.append(search_config_for(language_of.get(owner, "en")))
    units = {
        "chunks": (
            [search_config_for(c.lang) for c in corpus.chunks],
            [c.text for c in corpus.chunks],
            [c.doc_id for c in corpus.chunks],
        ),
        "documents": (configs, texts, owners),
    }
    results = variants_run(
        units=units,
        queries=[q.text for q in queries],
        relevant=[q.relevant for q in queries],
        extra={"no stop words": NO_STOP_WORDS},
    )
    print(f"  replay (exact BM25 in Python, R@5 by document, {len(queries)} queries):")
    for name, by_unit in results.items():
        print(f"    {name:28s}" + "".join(f"{unit} {r:.3f}  " for unit, r in by_unit.items()))
