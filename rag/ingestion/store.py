"""Write one document's embedded chunks and its ready state in one short transaction, guarded by its claim.

Its figures' images are stored just before and removed again if the swap does not happen; after
commit, an earlier version's figures and the document's cached previews are dropped.

The chunks go in with one ``INSERT ... SELECT FROM unnest(...)``: one array parameter per column, so
the statement is the same size of SQL for 2 chunks or 500, and nothing is compiled per row (the
ORM's ``bulk_create`` compiled two ``SearchVector`` expressions for every row, worker CPU per chunk;
bench/ingest). The full-text vector is computed by the INSERT itself, so each chunk row
(and its HNSW and GIN entries) is written once; it indexes the heading path as jsonb text (weight A)
and the text (B), as ``SearchVector(heading) + SearchVector(text)`` would, through ``parley_tsvector`` (the
configuration's stemmer and stop words, then accents folded: the analysis the BM25 query uses too), and its length.
The chunks' passages and their vectors (rag.passages) are written in the same transaction. The same
transaction keeps BM25's term statistics (rag_termstat, rag_corpusstat): the triggers of migration
0003 count the deleted chunks out and the inserted ones in, whatever statement deletes or inserts them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from guard.detector import NOTHING, Detection
from guard.screen import chunk_quarantined
from rag.ingestion.figures import FigureFile
from rag.ingestion.prepare import PreparedDocument
from rag.language import iso639_3, search_config_for
from rag.models import Chunk, Document, document_upload_to
from rag.passages.make import passages_write
from rag.preview import preview_cache_clear
from rag.workspace_indexes import own_graphs_ready

_INSERT = """
INSERT INTO rag_chunk (id, document_id, workspace_id, ordinal, text, heading_path, page_number, bbox, start_time,
                       end_time, metadata, token_count, embedding, embedding_dims, embedding_model, search_config,
                       search_vector, search_length, injection_score, injection_label, injection_excerpt,
                       quarantined, embedding_multi, embedding_multi_model, shared_indexed)
SELECT gen_random_uuid(), %(document)s, %(workspace)s, r.ordinal, r.text, r.headings::jsonb, r.page_number,
       r.bbox::jsonb, r.start_time, r.end_time, %(metadata)s::jsonb || r.extra::jsonb, r.token_count,
       r.embedding::vector, vector_dims(r.embedding::vector), %(model)s, %(config)s, s.v, parley_tsvector_length(s.v),
       r.injection_score, r.injection_label, r.injection_excerpt, r.quarantined,
       r.multi::vector, CASE WHEN r.multi IS NULL THEN '' ELSE %(multi_model)s END, NOT %(apart)s
FROM unnest(%(ordinals)s::int[], %(texts)s::text[], %(headings)s::text[], %(pages)s::int[], %(bboxes)s::text[],
            %(starts)s::float8[], %(ends)s::float8[], %(tokens)s::int[], %(embeddings)s::text[], %(extras)s::text[],
            %(injection_scores)s::float8[], %(injection_labels)s::text[], %(injection_excerpts)s::text[],
            %(quarantined)s::boolean[], %(multis)s::text[])
     AS r(ordinal, text, headings, page_number, bbox, start_time, end_time, token_count, embedding, extra,
          injection_score, injection_label, injection_excerpt, quarantined, multi),
     LATERAL (SELECT setweight(parley_tsvector(%(config)s, r.headings), 'A')
                     || setweight(parley_tsvector(%(config)s, r.text), 'B') AS v) AS s
RETURNING id, ordinal
"""


def chunks_replace(
    *,
    prepared: PreparedDocument,
    vectors: list[list[float]],
    claim_id: str,
    detections: Sequence[Detection] | None = None,
) -> bool:
    """Swap the document's chunks for the new ones and mark it ready; False when its claim was lost meanwhile.

    `detections` (rag.ingestion.screen, one per chunk) are stored on the chunks; flagged ones are quarantined.
    """
    document = prepared.document
    written = _figures_write(prepared.figure_files)
    try:
        stored = _chunks_swap(
            prepared=prepared, vectors=vectors, claim_id=claim_id, detections=detections
        )
    except BaseException:
        _files_delete(written)
        raise
    if not stored:
        _files_delete(written)
        return False
    keep = {figure.name for figure in prepared.figure_files}
    # Only when there can be something to drop: a first ingestion had no chunks, hence no previews.
    if keep or (document.metadata or {}).get("figures"):
        transaction.on_commit(lambda: _figures_prune(document=document, keep=keep))
    if document.chunk_count:
        transaction.on_commit(lambda: preview_cache_clear(document_id=document.pk))
    return True


def _chunks_swap(
    *,
    prepared: PreparedDocument,
    vectors: list[list[float]],
    claim_id: str,
    detections: Sequence[Detection] | None,
) -> bool:
    document = prepared.document
    # A workspace with graphs of its own keeps the document's chunks out of the shared graphs
    # (rag.workspace_indexes: its inserts then walk its own graphs only).
    apart = bool(vectors) and own_graphs_ready(
        workspace_id=document.workspace_id,
        dims=len(vectors[0]),
        multilingual=bool(prepared.multi_model_id),
    )
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
            metadata=prepared.metadata,
            title=prepared.title,
            chunks_apart=apart,
        )
        if not finished:
            return False
        Chunk.objects.filter(document_id=document.pk).delete()
        _chunks_insert(prepared=prepared, vectors=vectors, detections=detections, apart=apart)
    return True


def _figures_write(figures: list[FigureFile]) -> list[str]:
    """Store the figures the new chunks link to (before they exist); returns the names written now."""
    written = []
    for figure in figures:
        if default_storage.exists(figure.name):  # same file, same checksum: same picture
            continue
        written.append(default_storage.save(figure.name, ContentFile(figure.png)))
    return written


def _files_delete(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)


def _figures_prune(*, document: Document, keep: set[str]) -> None:
    """Remove the figures of an earlier version of the file, once the chunks linking them are gone."""
    folder = document_upload_to(document, "figures")
    if not default_storage.exists(folder):
        return
    for name in default_storage.listdir(folder)[1]:
        path = f"{folder}/{name}"
        if path not in keep:
            default_storage.delete(path)


def _chunks_insert(
    *,
    prepared: PreparedDocument,
    vectors: Sequence[Sequence[float]],
    detections: Sequence[Detection] | None,
    apart: bool = False,
) -> None:
    drafts = prepared.drafts
    verdicts = list(detections) if detections is not None else [NOTHING] * len(drafts)
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
        "apart": apart,
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
        # The multilingual vectors (NULL without them: the backfill computes them later).
        "multi_model": prepared.multi_model_id,
        "multis": _multi_literals(prepared, len(drafts)),
        "injection_scores": [verdict.score for verdict in verdicts],
        "injection_labels": [verdict.label for verdict in verdicts],
        "injection_excerpts": [verdict.excerpt for verdict in verdicts],
        "quarantined": [chunk_quarantined(verdict) for verdict in verdicts],
        # Per-chunk metadata (OCR confidence, a figure's link and modality) over the document's.
        "extras": [json.dumps(draft.metadata, ensure_ascii=False) for draft in drafts],
    }
    with connection.cursor() as cursor:
        cursor.execute(_INSERT, params)
        ids = dict((ordinal, chunk_id) for chunk_id, ordinal in cursor.fetchall())
    if len(prepared.passages) == len(drafts):
        # The chunks' passages, in the same transaction: a chunk is never stored with stale ones.
        chunks = [(ids[draft.ordinal], draft.text) for draft in drafts]
        passages_write(chunks=chunks, made=prepared.passages)


def _multi_literals(prepared: PreparedDocument, count: int) -> list[str | None]:
    if not prepared.multi_model_id or len(prepared.multi_vectors) != count:
        return [None] * count
    return ["[" + ",".join(map(repr, vector)) + "]" for vector in prepared.multi_vectors]


def chunks_swap_ready(
    *,
    prepared: PreparedDocument,
    vectors: list[list[float]],
    detections: Sequence[Detection] | None,
    checksum_before: str,
) -> bool:
    """A ready document's new file and chunks in place of its old ones, in one transaction: a search
    before it commits reads the old chunks, after it the new ones, never none. False (nothing written)
    when the document is no longer ready with the file `checksum_before`: another change won."""
    document = prepared.document
    apart = bool(vectors) and own_graphs_ready(
        workspace_id=document.workspace_id,
        dims=len(vectors[0]),
        multilingual=bool(prepared.multi_model_id),
    )
    written = _figures_write(prepared.figure_files)
    try:
        with transaction.atomic():
            current = (
                Document.objects.select_for_update()
                .filter(pk=document.pk, status=Document.Status.READY, checksum=checksum_before)
                .first()
            )
            if current is None:
                _files_delete(written)
                return False
            Document.objects.filter(pk=document.pk).update(
                file=document.file.name,
                filename=document.filename,
                mime_type=document.mime_type,
                size_bytes=document.size_bytes,
                checksum=prepared.checksum,
                language=prepared.language,
                embedding_model=prepared.model_id,
                chunk_count=len(prepared.drafts),
                finished_at=timezone.now(),
                metadata=prepared.metadata,
                title=prepared.title,
                chunks_apart=apart,
                force=False,
            )
            Chunk.objects.filter(document_id=document.pk).delete()
            _chunks_insert(prepared=prepared, vectors=vectors, detections=detections, apart=apart)
            keep = {figure.name for figure in prepared.figure_files}
            transaction.on_commit(lambda: _figures_prune(document=document, keep=keep))
            transaction.on_commit(lambda: preview_cache_clear(document_id=document.pk))
    except BaseException:
        _files_delete(written)
        raise
    return True
