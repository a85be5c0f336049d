"""What every parser returns: a document's located text blocks, their boxes and its figures. Apart from the
dispatcher (rag.parsing) so that the parsers it loads need not import it back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Box:
    page_number: int
    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class Block:
    """The smallest unit the chunker packs: a paragraph, a PDF line, a table row, a subtitle cue, a CSV row."""

    text: str
    heading_path: tuple[str, ...] = ()
    page_number: int | None = None
    boxes: list[Box] = field(default_factory=list)
    start_time: float | None = None
    end_time: float | None = None
    table_header: str = ""  # repeated above this row in every chunk that holds it
    table_id: int | None = None
    standalone: bool = False  # always a chunk of its own (CSV rows, figure descriptions)
    confidence: float | None = None  # Tesseract's mean word confidence (0-100) for an OCR'd line
    metadata: dict[str, Any] = field(
        default_factory=dict
    )  # added to the chunk's metadata (a figure's link)


@dataclass(frozen=True)
class Figure:
    """An image found inside a document, as PNG, with where it sits (PDF points, or None in a DOCX)."""

    png: bytes
    page_number: int | None
    box: Box | None
    width: int
    height: int


@dataclass
class ParsedDocument:
    blocks: list[Block]
    modality: str = "text"
    # What the title rule reads (rag.parsing.titles): the first heading, and the format's own title.
    heading: str = ""
    own_title: str = ""
    figures: list[Figure] = field(default_factory=list)
    ocr_pages: int = 0  # pages (or images) read by OCR
