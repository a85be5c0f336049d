"""A claimed document's work before embedding: read the file, skip it if unchanged, parse, detect language, chunk."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings

from rag.chunking import ChunkDraft, chunks_build
from rag.errors import IngestError
from rag.language import language_detect
from rag.models import Document
from rag.parsing import document_parse


@dataclass
class PreparedDocument:
    """A document's chunk drafts, ready to embed, with what its ready row will record."""

    document: Document
    checksum: str
    model_id: str
    language: str
    modality: str
    drafts: list[ChunkDraft]


def document_prepare(*, document: Document, model_id: str) -> PreparedDocument | None:
    """The document's chunk drafts, or None when its file and model are unchanged since its last ingestion."""
    data = _read(document)
    checksum = hashlib.sha256(data).hexdigest()
    unchanged = (checksum, model_id) == (document.checksum, document.embedding_model)
    if unchanged and document.chunk_count and not document.force:
        return None
    parsed = document_parse(data=data, filename=document.filename)
    language = language_detect("\n".join(block.text for block in parsed.blocks[:400]))
    drafts = chunks_build(
        blocks=parsed.blocks,
        title=document.title,
        size=settings.PARLEY_CHUNK_TOKENS,
        overlap=settings.PARLEY_CHUNK_OVERLAP_TOKENS,
    )
    return PreparedDocument(
        document=document,
        checksum=checksum,
        model_id=model_id,
        language=language,
        modality=parsed.modality,
        drafts=drafts,
    )


def _read(document: Document) -> bytes:
    if not document.file:
        raise IngestError("file_missing", "The document has no file; upload it again.")
    limit = settings.PARLEY_UPLOAD_MAX_BYTES
    try:
        size = document.file.size
        if size > limit:
            raise IngestError(
                "file_too_large", f"The file is {size:,} bytes, over the {limit:,}-byte limit."
            )
        with document.file.open("rb") as handle:
            return handle.read()
    except FileNotFoundError as exc:
        raise IngestError(
            "file_missing", "The document's file is missing from storage; upload it again."
        ) from exc
