"""Write one document's embedded chunks and its ready state in one short transaction, guarded by its claim.

The full-text vector is computed by the INSERT itself, so each chunk row (and its HNSW and GIN
entries) is written once; it indexes the heading path as jsonb text (weight A) and the text (B).
"""

from __future__ import annotations

import json

from django.contrib.postgres.search import SearchVector
from django.db import transaction
from django.db.models import Value
from django.utils import timezone

from rag.ingestion.prepare import PreparedDocument
from rag.language import iso639_3, search_config_for
from rag.models import Chunk, Document


def chunks_replace(*, prepared: PreparedDocument, vectors: list[list[float]], claim_id: str) -> bool:
    """Swap the document's chunks for the new ones and mark it ready; False when its claim was lost meanwhile."""
    document = prepared.document
    config = search_config_for(prepared.language)
    metadata = {"filename": document.filename, "languages": iso639_3(prepared.language), "modality": prepared.modality}
    chunks = [
        Chunk(
            document_id=document.pk,
            workspace_id=document.workspace_id,
            ordinal=draft.ordinal,
            text=draft.text,
            heading_path=draft.heading_path,
            page_number=draft.page_number,
            bbox=draft.bbox,
            start_time=draft.start_time,
            end_time=draft.end_time,
            metadata=metadata,
            token_count=draft.token_count,
            embedding=vector,
            embedding_dims=len(vector),
            embedding_model=prepared.model_id,
            search_config=config,
            search_vector=_search_vector(heading_path=draft.heading_path, text=draft.text, config=config),
        )
        for draft, vector in zip(prepared.drafts, vectors, strict=True)
    ]
    with transaction.atomic():
        # The conditional UPDATE is the guard: zero rows means another worker took the document over.
        owned = Document.objects.filter(pk=document.pk, claim_id=claim_id, status=Document.Status.PROCESSING)
        finished = owned.update(
            status=Document.Status.READY,
            checksum=prepared.checksum,
            language=prepared.language,
            embedding_model=prepared.model_id,
            chunk_count=len(chunks),
            progress=100,
            claim_id="",
            force=False,
            attempts=0,
            finished_at=timezone.now(),
        )
        if not finished:
            return False
        Chunk.objects.filter(document_id=document.pk).delete()
        Chunk.objects.bulk_create(chunks, batch_size=500)
    return True


def _search_vector(*, heading_path: list[str], text: str, config: str) -> SearchVector:
    # json.dumps with ", " separators and raw Unicode is jsonb's own text form of a list of strings.
    headings = json.dumps(heading_path, ensure_ascii=False)
    heading_vector = SearchVector(Value(headings), config=config, weight="A")
    return heading_vector + SearchVector(Value(text), config=config, weight="B")
