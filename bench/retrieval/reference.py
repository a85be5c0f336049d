"""A textbook BM25 reference for the full-text side: `bm25s` (its defaults: Lucene's BM25, k1 1.5, b 0.75) with
PyStemmer's Snowball stemmer and bm25s's stop words for the corpus language, on exactly the chunks Parley stored.

The chunks are read back from rag_chunk for the corpus's workspace (heading path and text, as the tsvector
indexes them), so the reference and Parley rank the same pieces; each query's ranked chunks count by document,
like the product's rows.
"""

from __future__ import annotations

from collections import Counter

import bm25s
import Stemmer
from django.db import connection

from rag.retrieval import RetrievalScope

# Snowball stemmer and bm25s stop-word list by the chunks' text-search configuration.
_LANGUAGES = {
    "english": ("english", "en"),
    "french": ("french", "fr"),
    "german": ("german", "de"),
    "spanish": ("spanish", "es"),
    "italian": ("italian", "it"),
    "portuguese": ("portuguese", "pt"),
    "dutch": ("dutch", "nl"),
}
DEPTH = 100  # ranked chunks per query, enough to count ten distinct documents


def _stored_chunks(workspace_id: str) -> list[tuple[str, str, str]]:
    """(document title, text-search configuration, indexed text) of every chunk in the workspace."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT d.title, c.search_config, c.heading_path::text, c.text"
            " FROM rag_chunk AS c JOIN rag_document AS d ON d.id = c.document_id"
            " WHERE c.workspace_id = %s AND d.status = 'ready' ORDER BY c.document_id, c.ordinal",
            [workspace_id],
        )
        return [
            (title, config, text if headings in ("[]", "") else f"{headings}\n{text}")
            for title, config, headings, text in cursor.fetchall()
        ]


def bm25_reference_rank(*, scope: RetrievalScope, questions: list[str]) -> list[list[str]]:
    """Per question, the documents (titles) of bm25s's top chunks, best first."""
    chunks = _stored_chunks(scope.workspace_id)
    if not chunks:
        return [[] for _ in questions]
    config = Counter(config for _, config, _ in chunks).most_common(1)[0][0]
    stemmer_name, stopwords = _LANGUAGES.get(config, (None, None))
    stemmer = Stemmer.Stemmer(stemmer_name) if stemmer_name else None

    def tokens(texts: list[str]) -> list[list[str]]:
        return bm25s.tokenize(  # type: ignore[no-any-return]
            texts, stopwords=stopwords, stemmer=stemmer, return_ids=False, show_progress=False
        )

    retriever = bm25s.BM25()
    retriever.index(tokens([text for _, _, text in chunks]), show_progress=False)
    depth = min(DEPTH, len(chunks))
    ranked = []
    for question in questions:
        known = [token for token in tokens([question])[0] if token in retriever.vocab_dict]
        if not known:  # only stop words or unseen words: nothing to score
            ranked.append([])
            continue
        ids, scores = retriever.retrieve([known], k=depth, show_progress=False)
        ranked.append(
            [chunks[int(i)][0] for i, s in zip(ids[0], scores[0], strict=True) if float(s) > 0]
        )
    return ranked
