"""A claimed document's work before embedding: read the file, skip it if unchanged, parse (or transcribe),
describe its figures, detect language, chunk."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from django.conf import settings

from rag.chunking import ChunkDraft, chunks_build
from rag.errors import IngestError
from rag.ingestion.figures import DescribedFigures, FigureFile, figures_describe
from rag.ingestion.transcribe import audio_transcribe
from rag.models import Document
from rag.parsing import AUDIO_EXTENSIONS, document_parse
from rag.parsing.blocks import Block, ParsedDocument
from rag.parsing.titles import title_after_ingestion
from rag.passages.make import MadePassages
from rag.selectors import workspace_media_models
from textmodels.language import language_detect


@dataclass
class PreparedDocument:
    """A document's chunk drafts, ready to embed, with what its ready row will record."""

    document: Document
    checksum: str
    model_id: str
    language: str
    modality: str
    drafts: list[ChunkDraft]
    title: str  # the document's title once its file is read (rag.parsing.titles)
    figure_files: list[FigureFile] = field(default_factory=list)  # stored with the chunks
    metadata: dict[str, Any] = field(
        default_factory=dict
    )  # the document's: OCR'd pages, figures' outcomes
    # The multilingual model of the workspace ("" none) and, once embedded, each chunk's vector of it.
    multi_model_id: str = ""
    multi_vectors: list[list[float]] = field(default_factory=list)
    # Each chunk's quotable passages and their vectors (rag.passages), in draft order; empty when
    # they could not be made (the backfill makes them later).
    passages: list[MadePassages] = field(default_factory=list)


def document_prepare(
    *, document: Document, model_id: str, multi_model_id: str = ""
) -> PreparedDocument | None:
    """The document's chunk drafts, or None when its file and model are unchanged since its last ingestion."""
    data = _read(document)
    checksum = hashlib.sha256(data).hexdigest()
    unchanged = (checksum, model_id) == (document.checksum, document.embedding_model)
    if unchanged and document.chunk_count and not document.force:
        return None
    vision_model, transcription_model = workspace_media_models(workspace_id=document.workspace_id)
    parsed = _parse(data=data, filename=document.filename, transcription_model=transcription_model)
    figures = DescribedFigures(blocks=[], files=[], report=[])
    if parsed.figures:
        figures = figures_describe(
            document=document, checksum=checksum, figures=parsed.figures, vision_model=vision_model
        )
    blocks = _with_figures(parsed.blocks, figures.blocks)
    if not blocks:
        raise IngestError(
            "no_text",
            "No text could be extracted from this file, not even by OCR, and no vision model"
            " described its images.",
        )
    language = language_detect("\n".join(block.text for block in blocks[:400]))
    title, title_auto = title_after_ingestion(
        current=document.title,
        metadata=document.metadata,
        heading=parsed.heading,
        own_title=parsed.own_title,
        filename=document.filename,
        url=document.source_url,
    )
    drafts = chunks_build(
        blocks=blocks,
        title=title,
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
        title=title,
        figure_files=figures.files,
        metadata={
            "ocr_pages": parsed.ocr_pages,
            "figures": figures.report,
            "title_auto": title_auto,
        },
        multi_model_id=multi_model_id,
    )


def _parse(*, data: bytes, filename: str, transcription_model: str) -> ParsedDocument:
    if PurePath(filename).suffix.lower() in AUDIO_EXTENSIONS:
        return audio_transcribe(data=data, filename=filename, model=transcription_model)
    return document_parse(data=data, filename=filename)


def _with_figures(blocks: list[Block], figures: list[Block]) -> list[Block]:
    """Each figure's block after the last text block of its page, so chunks stay in reading order."""
    merged = list(blocks)
    for figure in figures:
        page = figure.page_number
        after = [
            i
            for i, block in enumerate(merged)
            if page is not None and (block.page_number or 0) <= page
        ]
        merged.insert(after[-1] + 1 if after else len(merged), figure)
    return merged


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
            data: bytes = handle.read()
            return data
    except FileNotFoundError as exc:
        raise IngestError(
            "file_missing", "The document's file is missing from storage; upload it again."
        ) from exc
