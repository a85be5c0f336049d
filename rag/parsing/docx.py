"""DOCX: paragraphs under their Heading styles, tables as rows with their header, inline figures; zip bombs refused."""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING

from django.conf import settings
from docx.oxml.ns import qn

from rag.errors import IngestError
from rag.parsing.blocks import Block, Figure, ParsedDocument
from rag.parsing.images import image_open, image_png

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument

MAX_EXPANSION = 20  # a DOCX may expand to at most this many times the upload limit


def parse_docx(data: bytes, filename: str) -> ParsedDocument:
    import docx
    from docx.table import Table

    _refuse_bombs(data)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:
        message = f"The DOCX file is damaged and cannot be read ({type(exc).__name__})."
        raise IngestError("corrupt_docx", message) from exc
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    heading_first = ""
    for table_id, item in enumerate(document.iter_inner_content()):
        path = tuple(text for _, text in headings)
        if isinstance(item, Table):
            rows = [
                [cell.text.strip().replace("\n", " ") for cell in row.cells] for row in item.rows
            ]
            if not rows:
                continue
            header = "| " + " | ".join(rows[0]) + " |\n|" + "---|" * len(rows[0])
            blocks.extend(
                Block(
                    text="| " + " | ".join(row) + " |",
                    heading_path=path,
                    table_header=header,
                    table_id=table_id,
                )
                for row in rows[1:]
            )
            continue
        text = item.text.strip()
        level = _heading_level(item.style.name if item.style is not None else "")
        if level and text:
            headings = [(lvl, h) for lvl, h in headings if lvl < level] + [(level, text)]
            heading_first = heading_first or text
        elif text:
            blocks.append(Block(text=text, heading_path=path))
    return ParsedDocument(
        blocks=blocks,
        heading=heading_first,
        own_title=document.core_properties.title or "",
        figures=_figures(document),
    )


def _figures(document: DocxDocument) -> list[Figure]:
    """Inline pictures at least PARLEY_FIGURE_MIN_SIDE pixels on each side, in document order.

    A DOCX has no fixed pages, so its figures have no page or box; each image is opened through
    the same bomb check as an image upload."""
    smallest, limit = settings.PARLEY_FIGURE_MIN_SIDE, settings.PARLEY_FIGURES_PER_DOCUMENT
    figures: list[Figure] = []
    seen: set[str] = set()
    for blip in document.element.body.iter(qn("a:blip")):
        relation = blip.get(qn("r:embed"))
        if not relation or relation in seen or len(figures) >= limit:
            continue
        seen.add(relation)
        part = document.part.related_parts.get(relation)
        blob = getattr(part, "blob", None)
        if not blob:
            continue
        image = image_open(blob, label="embedded image")
        if min(image.size) < smallest:
            continue
        figures.append(
            Figure(
                png=image_png(image),
                page_number=None,
                box=None,
                width=image.width,
                height=image.height,
            )
        )
    return figures


def _heading_level(style: str) -> int:
    if style == "Title":
        return 1
    if style.startswith("Heading "):
        suffix = style.removeprefix("Heading ")
        return int(suffix) if suffix.isdigit() else 0
    return 0


def _refuse_bombs(data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            expanded = sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile as exc:
        raise IngestError(
            "corrupt_docx", "The DOCX file is damaged: it is not a valid zip archive."
        ) from exc
    limit = settings.PARLEY_UPLOAD_MAX_BYTES * MAX_EXPANSION
    if expanded > limit:
        raise IngestError(
            "zip_bomb",
            f"The DOCX expands to {expanded // 1_000_000} MB, over the {limit // 1_000_000} MB allowed:"
            " refused as a zip bomb.",
        )
