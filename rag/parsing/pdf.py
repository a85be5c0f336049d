"""PDF: text lines per page with their boxes (word boxes merged by pdfplumber), larger type read as headings.

Pages whose text layer holds fewer than PARLEY_OCR_MIN_PAGE_CHARS characters (scans) are OCR'd
instead, and embedded images large enough to be figures are handed on (rag.parsing.pdf_raster).
"""

from __future__ import annotations

import io
import statistics
from typing import TYPE_CHECKING, Any

from django.conf import settings

from rag.errors import IngestError
from rag.parsing.blocks import Block, Box, ParsedDocument
from rag.parsing.pdf_raster import pdf_figures, pdf_pages_ocr

if TYPE_CHECKING:
    import pdfplumber.page
    import pypdf


def parse_pdf(data: bytes, filename: str) -> ParsedDocument:
    import pdfplumber
    import pypdf

    if not data.lstrip().startswith(b"%PDF-"):
        raise IngestError(
            "corrupt_pdf", "This is not a readable PDF: the file does not start with a PDF header."
        )
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        encrypted = reader.is_encrypted
    except Exception as exc:
        raise IngestError(
            "corrupt_pdf", f"The PDF is damaged and cannot be read ({type(exc).__name__})."
        ) from exc
    if encrypted:
        try:
            readable = reader.decrypt("") != pypdf.PasswordType.NOT_DECRYPTED
        except Exception:
            readable = False
        if not readable:
            raise IngestError(
                "encrypted_pdf", "The PDF is password-protected; upload a copy without a password."
            )
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            pages = [
                (page.page_number, page.extract_text_lines(return_chars=True)) for page in pdf.pages
            ]
            covered = {page.page_number: _image_coverage(page) for page in pdf.pages}
    except Exception as exc:
        raise IngestError(
            "corrupt_pdf", f"The PDF is damaged and cannot be read ({type(exc).__name__})."
        ) from exc
    # A scan: no text layer, or too little of it over an image that fills most of the page.
    scanned = [
        number
        for number, lines in pages
        if not _chars(lines)
        or (_chars(lines) < settings.PARLEY_OCR_MIN_PAGE_CHARS and covered[number] >= 0.5)
    ]
    if not settings.PARLEY_OCR_ENABLED:
        scanned = []
    pages = [(number, [] if number in scanned else lines) for number, lines in pages]
    sizes = [_size(line) for _, lines in pages for line in lines if line["text"].strip()]
    body_size = statistics.median(sizes) if sizes else 0.0
    blocks: list[Block] = []
    headings: list[tuple[float, str]] = []
    heading_first = ""
    for page_number, lines in pages:
        for line in lines:
            text = line["text"].strip()
            if not text:
                continue
            size = _size(line)
            if body_size and size >= body_size * 1.2 and len(text) < 120:
                headings = [(s, h) for s, h in headings if s > size] + [(size, text)]
                heading_first = heading_first or text
                continue
            x0, top, x1, bottom = (round(line[key], 2) for key in ("x0", "top", "x1", "bottom"))
            box = Box(page_number=page_number, x0=x0, top=top, x1=x1, bottom=bottom)
            path = tuple(h for _, h in headings)
            blocks.append(Block(text=text, heading_path=path, page_number=page_number, boxes=[box]))
    if scanned:
        ocr_blocks = pdf_pages_ocr(data, page_numbers=scanned)
        blocks = sorted([*blocks, *ocr_blocks], key=lambda block: block.page_number or 0)
    figures = pdf_figures(data, skip_pages=set(scanned))
    return ParsedDocument(
        blocks=blocks,
        heading=heading_first,
        own_title=_metadata_title(reader),
        figures=figures,
        ocr_pages=len(scanned),
    )


def _metadata_title(reader: pypdf.PdfReader) -> str:
    """The title in the PDF's document information ("" when it has none or it cannot be read)."""
    try:
        metadata = reader.metadata
        return str(metadata.title or "") if metadata is not None else ""
    except Exception:  # a damaged information dictionary only costs the title
        return ""


def _image_coverage(page: pdfplumber.page.Page) -> float:
    """The share of the page its largest image covers."""
    area = float(page.width * page.height) or 1.0
    sizes = [
        float((image["x1"] - image["x0"]) * (image["bottom"] - image["top"]))
        for image in page.images
    ]
    return max(sizes, default=0.0) / area


def _chars(lines: list[dict[str, Any]]) -> int:
    return sum(len(line["text"].strip()) for line in lines)


def _size(line: dict[str, Any]) -> float:
    chars = line.get("chars") or []
    return round(statistics.median(c["size"] for c in chars), 1) if chars else 0.0
