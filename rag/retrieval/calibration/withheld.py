"""The inverse cloze task on the product's candidate lists: a synthetic pair's sentence is withheld from
the chunks before they are scored, so its target must be found from its other sentences.

Searching an index without the sentence would mean a copy of the workspace per pair. Instead each side's
candidate lists come from the product's statements as they are, and then every chunk that holds the
sentence (the target, and a neighbour that repeats it or part of it through the chunk overlap) is scored
again without it, by the same formulas: BM25 over `parley_tsvector` of the shortened text with the
workspace's term statistics, and the cosine of the question's vector with the shortened text's
embedding. A rescored chunk takes its new place in each list (or leaves it, when it falls below the
list's last candidate or no longer matches). Only a chunk holding the sentence changes, so the other
candidates keep their scores, and a chunk outside the lists that does not hold the sentence could not
have entered them. The statistics still count the sentence's lexemes once or twice in the whole
workspace: a difference of one or two chunks in a document frequency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from rag.models import Chunk
from rag.retrieval.calibration.pairs import CalibrationPair
from rag.retrieval.fusion import Ranked
from rag.retrieval.planning import FUSION
from textmodels.embeddings import embed_texts

# A neighbour repeats the sentence's first or last words through the chunks' overlap; fewer than this
# many shared words at a chunk's edge is a coincidence, not a copy.
OVERLAP_MIN_WORDS = 4

# BM25 of one query over given (chunk, text) pairs, exactly as rag.retrieval.bm25 scores a candidate:
# the chunk's heading path (weight A) and the given text (weight B) analysed by `parley_tsvector` in the
# chunk's configuration, the workspace's statistics for N, the average length and each lexeme's df.
_SCORE_SQL = """
WITH given AS (
    SELECT u.id, c.search_config AS cfg,
           setweight(parley_tsvector(c.search_config, c.heading_path::text), 'A')
             || setweight(parley_tsvector(c.search_config, u.txt), 'B') AS v
    FROM unnest(%(ids)s::uuid[], %(texts)s::text[]) AS u(id, txt)
    JOIN rag_chunk AS c ON c.id = u.id AND c.workspace_id = %(workspace_id)s
)
SELECT g.id, coalesce((
    SELECT sum(q.qtf * ln(1 + (cs.chunks - st.chunks + 0.5) / (st.chunks + 0.5)) * t.tf * (%(k1)s + 1)
               / (t.tf + %(k1)s * (1 - %(b)s + %(b)s * parley_tsvector_length(g.v)
                                     / (cs.length::float8 / cs.chunks))))
    FROM (SELECT lexeme, coalesce(array_length(positions, 1), 1) AS tf FROM unnest(g.v)) AS t
    JOIN (SELECT lexeme, coalesce(array_length(positions, 1), 1) AS qtf
          FROM unnest(parley_tsvector(g.cfg, %(query)s))) AS q ON q.lexeme = t.lexeme
    JOIN rag_corpusstat AS cs ON cs.workspace_id = %(workspace_id)s AND cs.config = g.cfg AND cs.chunks > 0
    CROSS JOIN LATERAL (  -- a primary-key probe per lexeme, as in rag.retrieval.bm25's query_terms
        SELECT s.chunks FROM rag_termstat AS s
        WHERE s.workspace_id = %(workspace_id)s AND s.config = g.cfg AND s.term = t.lexeme LIMIT 1
    ) AS st
), 0) FROM given AS g
"""


def text_without(text: str, sentence: str) -> str | None:
    """`text` (whitespace collapsed) without `sentence` or the part of it an overlapping neighbour
    repeats at its start or end; None when it holds none of it."""
    flat = " ".join(text.split())
    if sentence and sentence in flat:
        return " ".join(flat.replace(sentence, " ").split())
    words, said = flat.split(), sentence.split()
    for size in range(min(len(words), len(said) - 1), OVERLAP_MIN_WORDS - 1, -1):
        if words[-size:] == said[:size]:
            return " ".join(words[:-size])
        if words[:size] == said[-size:]:
            return " ".join(words[size:])
    return None


def withheld_texts(*, target: str, sentence: str, candidates: Sequence[str]) -> dict[str, str]:
    """The target and every candidate holding the sentence (or its overlap), each without it."""
    ids = list(dict.fromkeys([target, *candidates]))
    out = {}
    for chunk_id, text in Chunk.objects.filter(pk__in=ids).values_list("pk", "text"):
        shortened = text_without(text, sentence)
        if shortened is not None:
            out[str(chunk_id)] = shortened
    return out


def text_scores(*, workspace_id: str, query: str, texts: dict[str, str]) -> dict[str, float]:
    """The full-text side's BM25 score of `query` on each chunk with its given text."""
    if not texts:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            _SCORE_SQL,
            {
                "ids": list(texts),
                "texts": list(texts.values()),
                "workspace_id": workspace_id,
                "query": query,
                "k1": float(settings.RETRIEVAL_BM25_K1),
                "b": float(settings.RETRIEVAL_BM25_B),
            },
        )
        return {str(chunk_id): float(score) for chunk_id, score in cursor.fetchall()}


def vector_scores(
    *, model_id: str, query_vector: Sequence[float], texts: dict[str, str]
) -> dict[str, float]:
    """The vector side's cosine similarity of the question with each given text's embedding."""
    if not texts:
        return {}
    vectors = embed_texts(list(texts.values()), model_id=model_id)
    return {
        chunk_id: _cosine(query_vector, vector)
        for chunk_id, vector in zip(texts, vectors, strict=True)
    }


def reranked(ranked: Ranked, rescored: dict[str, float], *, depth: int) -> list[tuple[str, float]]:
    """`ranked` with the rescored chunks in their new places: a chunk stays or enters when it scores
    above 0 and, when the search returned a full list, at least as high as its last candidate (below
    it, chunks the list did not show may come first); ties keep chunk id order."""
    kept = [(chunk_id, score) for chunk_id, score in ranked if chunk_id not in rescored]
    floor = ranked[-1][1] if len(ranked) >= depth else -math.inf
    entering = [
        (chunk_id, score) for chunk_id, score in rescored.items() if score > 0 and score >= floor
    ]
    merged = sorted([*kept, *entering], key=lambda item: (-item[1], item[0]))
    return merged[:depth]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass(frozen=True)
class WithheldSides:
    """A pair's candidate lists as the searches returned them, and what each vector side embeds with."""

    text: Ranked
    vector: Ranked  # the workspace model's side (empty when the question's language turned it off)
    multi: Ranked  # the multilingual side (empty when the workspace has none)
    model_id: str
    query_vector: Sequence[float]
    multi_model_id: str = ""
    multi_vector: Sequence[float] = ()


def withheld_lists(
    *, pair: CalibrationPair, workspace_id: str, sides: WithheldSides
) -> tuple[list[tuple[str, float]], list[tuple[str, float]], list[tuple[str, float]]]:
    """A synthetic pair's three candidate lists (full text, the workspace model's vectors, the
    multilingual vectors) as if its sentence were in none of the chunks; an empty list stays empty."""
    depth = FUSION.candidates
    texts = withheld_texts(
        target=pair.chunk_id,
        sentence=pair.withheld,
        candidates=[chunk_id for chunk_id, _ in (*sides.text, *sides.vector, *sides.multi)],
    )
    text_out = reranked(
        sides.text,
        text_scores(workspace_id=workspace_id, query=pair.query, texts=texts),
        depth=depth,
    )
    vector_out = (
        reranked(
            sides.vector,
            vector_scores(model_id=sides.model_id, query_vector=sides.query_vector, texts=texts),
            depth=depth,
        )
        if sides.vector
        else []
    )
    multi_out = (
        reranked(
            sides.multi,
            vector_scores(
                model_id=sides.multi_model_id, query_vector=sides.multi_vector, texts=texts
            ),
            depth=depth,
        )
        if sides.multi and sides.multi_model_id
        else []
    )
    return text_out, vector_out, multi_out
