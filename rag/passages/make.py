"""Make and write chunks' passages and vectors: at ingestion, beside the chunks, and by the backfill.

A batch's units are embedded together, each distinct text once (overlapping chunks share sentences),
shortest first so a model batch pads little. The write is one upsert from arrays, joined to the chunk
by its id and text: a chunk deleted or re-ingested meanwhile gets nothing.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection

from rag.passages.prepared import ChunkUnits, chunk_units, units_texts, vectors_pack
from textmodels.embeddings import embedding_provider_get


@dataclass(frozen=True)
class PassageSource:
    """One chunk as the passages see it: its text, its document's title, whether its edges are the
    document's (the first chunk starts clean, the last ends clean; None elsewhere: judged by shape)."""

    text: str
    title: str = ""
    starts_clean: bool | None = None
    ends_clean: bool | None = None


def document_sources(*, texts: Sequence[str], title: str = "") -> list[PassageSource]:
    """A whole document's chunks, in order, as passage sources: its first chunk starts clean and its
    last ends clean."""
    last = len(texts) - 1
    return [
        PassageSource(
            text=text,
            title=title,
            starts_clean=True if ordinal == 0 else None,
            ends_clean=True if ordinal == last else None,
        )
        for ordinal, text in enumerate(texts)
    ]


@dataclass(frozen=True)
class MadePassages:
    units: ChunkUnits
    model: str
    vectors: bytes
    multi_model: str
    multi_vectors: bytes | None


def passages_make(
    *, sources: Sequence[PassageSource], model_id: str, multi_model_id: str = ""
) -> list[MadePassages]:
    """Each chunk's units and their vectors with the workspace's model (and the multilingual one, on
    the titled units, when the workspace has it); raises the provider's EmbeddingError."""
    made = [
        chunk_units(text=s.text, starts_clean=s.starts_clean, ends_clean=s.ends_clean)
        for s in sources
    ]
    mono = _embedded(model_id, [units_texts(units) for units in made])
    multi: list[np.ndarray | None] = [None] * len(made)
    if multi_model_id:
        titled = [
            units_texts(units, title=source.title, titled=True)
            for units, source in zip(made, sources, strict=True)
        ]
        multi = list(_embedded(multi_model_id, titled))
    return [
        MadePassages(
            units=units,
            model=model_id,
            vectors=vectors_pack(vectors),
            multi_model=multi_model_id if multi_vectors is not None else "",
            multi_vectors=None if multi_vectors is None else vectors_pack(multi_vectors),
        )
        for units, vectors, multi_vectors in zip(made, mono, multi, strict=True)
    ]


def _embedded(model_id: str, texts_per_chunk: list[list[str]]) -> list[np.ndarray]:
    distinct = sorted({text for texts in texts_per_chunk for text in texts}, key=len)
    size = settings.PARLEY_EMBEDDING_BATCH_SIZE
    provider = embedding_provider_get(model_id=model_id)
    vectors: dict[str, list[float]] = {}
    for start in range(0, len(distinct), size):
        batch = distinct[start : start + size]
        vectors.update(zip(batch, provider.embed_texts(batch), strict=True))
    return [
        np.asarray([vectors[text] for text in texts], dtype=np.float32) for texts in texts_per_chunk
    ]


_UPSERT = """
INSERT INTO rag_chunkpassages (chunk_id, language, units, asked, model, vectors, multi_model, multi_vectors,
                               created_at)
SELECT r.id, r.language, r.units::jsonb, r.asked::jsonb, %(model)s, r.vectors, r.multi_model, r.multi, now()
FROM unnest(%(ids)s::uuid[], %(texts)s::text[], %(languages)s::text[], %(units)s::text[], %(asked)s::text[],
            %(vectors)s::bytea[], %(multi_models)s::text[], %(multis)s::bytea[])
     AS r(id, text, language, units, asked, vectors, multi_model, multi)
JOIN rag_chunk AS c ON c.id = r.id AND c.text = r.text
ON CONFLICT (chunk_id) DO UPDATE SET language = EXCLUDED.language, units = EXCLUDED.units,
    asked = EXCLUDED.asked, model = EXCLUDED.model, vectors = EXCLUDED.vectors,
    multi_model = EXCLUDED.multi_model, multi_vectors = EXCLUDED.multi_vectors, created_at = now()
"""


def passages_write(
    *, chunks: Sequence[tuple[uuid.UUID | str, str]], made: Sequence[MadePassages]
) -> int:
    """Store `made[i]` for the chunk `chunks[i]` (its id and the text it was made from); returns the
    rows written (a chunk gone or changed meanwhile is skipped)."""
    if not made:
        return 0
    models = {item.model for item in made}
    if len(models) != 1:
        raise ValueError(f"one model per write, got {sorted(models)}")
    params: dict[str, Any] = {
        "model": models.pop(),
        "ids": [str(chunk_id) for chunk_id, _ in chunks],
        "texts": [text for _, text in chunks],
        "languages": [item.units.language for item in made],
        "units": [
            json.dumps([[u.text, u.asked, u.row] for u in item.units.units], ensure_ascii=False)
            for item in made
        ],
        "asked": [json.dumps(list(item.units.asked), ensure_ascii=False) for item in made],
        "vectors": [item.vectors for item in made],
        "multi_models": [item.multi_model for item in made],
        "multis": [item.multi_vectors for item in made],
    }
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT, params)
        return int(cursor.rowcount)
