"""PDF: text lines per page with their boxes (word boxes merged by pdfplumber), larger type read as headings."""

from __future__ import annotations

import io
import statistics

from rag.errors import IngestError
from rag.parsing import Block, Box, ParsedDocument


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
    except Exception as exc:
        raise IngestError(
            "corrupt_pdf", f"The PDF is damaged and cannot be read ({type(exc).__name__})."
        ) from exc
    sizes = [_size(line) for _, lines in pages for line in lines if line["text"].strip()]
    body_size = statistics.median(sizes) if sizes else 0.0
    blocks: list[Block] = []
    headings: list[tuple[float, str]] = []
    for page_number, lines in pages:
        for line in lines:
            text = line["text"].strip()
            if not text:
                continue
            size = _size(line)
            if body_size and size >= body_size * 1.2 and len(text) < 120:
                headings = [(s, h) for s, h in headings if s > size] + [(size, text)]
                continue
            x0, top, x1, bottom = (round(line[key], 2) for key in ("x0", "top", "x1", "bottom"))
            box = Box(page_number, x0, top, x1, bottom)
            path = tuple(h for _, h in headings)
            blocks.append(Block(text=text, heading_path=path, page_number=page_number, boxes=[box]))
    return ParsedDocument(blocks=blocks, title=headings[0][1] if headings else "")


def _size(line: dict) -> float:
    chars = line.get("chars") or []
    return round(statistics.median(c["size"] for c in chars), 1) if chars else 0.0
