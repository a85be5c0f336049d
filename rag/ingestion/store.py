"""Write one document's embedded chunks and its ready state in one short transaction, guarded by its claim.

The chunks go in with one ``INSERT ... SELECT FROM unnest(...)``: one array parameter per column, so
the statement is the same size of SQL for 2 chunks or 500, and nothing is compiled per row (the
ORM's ``bulk_create`` compiled two ``SearchVector`` expressions for every row, ~2 ms of worker CPU
per chunk; bench/ingest). The full-text vector is computed by the INSERT itself, so each chunk row
(and its HNSW and GIN entries) is written once; it indexes the heading path as jsonb text (weight A)
and the text (B), exactly as ``SearchVector(heading) + SearchVector(text)`` would.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from rag.ingestion.prepare import PreparedDocument
from rag.language import iso639_3, search_config_for
from rag.models import Chunk, Document

_INSERT = """
INSERT INTO rag_chunk (id, document_id, workspace_id, ordinal, text, heading_path, page_number, bbox, start_time,
                       end_time, metadata, token_count, embedding, embedding_dims, embedding_model, search_config,
                       search_vector)
SELECT gen_random_uuid(), %(document)s, %(workspace)s, r.ordinal, r.text, r.headings::jsonb, r.page_number,
       r.bbox::jsonb, r.start_time, r.end_time, %(metadata)s::jsonb, r.token_count, r.embedding::vector,
       vector_dims(r.embedding::vector), %(model)s, %(config)s,
       setweight(to_tsvector(%(config)s::regconfig, COALESCE(r.headings, '')), 'A')
       || setweight(to_tsvector(%(config)s::regconfig, COALESCE(r.text, '')), 'B')
FROM unnest(%(ordinals)s::int[], %(texts)s::text[], %(headings)s::text[], %(pages)s::int[], %(bboxes)s::text[],
            %(starts)s::float8[], %(ends)s::float8[], %(tokens)s::int[], %(embeddings)s::text[])
     AS r(ordinal, text, headings, page_number, bbox, start_time, end_time, token_count, embedding)
"""


def chunks_replace(
    *, prepared: PreparedDocument, vectors: list[list[float]], claim_id: str
) -> bool:
    """Swap the document's chunks for the new ones and mark it ready; False when its claim was lost meanwhile."""
    document = prepared.document
    with transaction.atomic():
        # The conditional UPDATE is the guard: zero rows means another worker took the document over.
        owned = Document.objects.filter(
            pk=document.pk, claim_id=claim_id, status=Document.Status.PROCESSING
        )
        finished = owned.update(
            status=Document.Status.READY,
            checksum=prepared.checksum,
            language=prepared.language,
            embedding_model=prepared.model_id,
            chunk_count=len(prepared.drafts),
            progress=100,
            claim_id="",
            force=False,
            attempts=0,
            finished_at=timezone.now(),
        )
        if not finished:
            return False
        Chunk.objects.filter(document_id=document.pk).delete()
        _chunks_insert(prepared=prepared, vectors=vectors)
    return True


def _chunks_insert(*, prepared: PreparedDocument, vectors: Sequence[Sequence[float]]) -> None:
    drafts = prepared.drafts
    if len(drafts) != len(vectors):
        raise ValueError(f"{len(drafts)} chunks but {len(vectors)} vectors")
    if not drafts:
        return
    document = prepared.document
    metadata = {
        "filename": document.filename,
        "languages": iso639_3(prepared.language),
        "modality": prepared.modality,
    }
    params: dict[str, Any] = {
        "document": document.pk,
        "workspace": document.workspace_id,
        "metadata": json.dumps(metadata, ensure_ascii=False),
        "model": prepared.model_id,
        "config": search_config_for(prepared.language),
        "ordinals": [draft.ordinal for draft in drafts],
        "texts": [draft.text for draft in drafts],
        # json.dumps with ", " separators and raw Unicode is jsonb's own text form of a list of strings:
        # the full-text side indexes the same text the column shows.
        "headings": [json.dumps(draft.heading_path, ensure_ascii=False) for draft in drafts],
        "pages": [draft.page_number for draft in drafts],
        "bboxes": [json.dumps(draft.bbox) for draft in drafts],
        "starts": [draft.start_time for draft in drafts],
        "ends": [draft.end_time for draft in drafts],
        "tokens": [draft.token_count for draft in drafts],
        "embeddings": ["[" + ",".join(map(repr, vector)) + "]" for vector in vectors],
    }
    with connection.cursor() as cursor:
        cursor.execute(_INSERT, params)
