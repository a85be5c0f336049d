"""Figures become chunks: each image is stored, described by the workspace's vision model or read by OCR.

A vision call that fails is recorded on that figure (its chunk's metadata and the document's
`metadata["figures"]`) and falls back to the figure's OCR text; it never fails the document.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from PIL import Image

from core.llm.errors import LLMError
from core.llm.gateway import vision_describe
from core.llm.types import MediaEndpoint
from rag.errors import IngestError
from rag.models import Document, document_upload_to
from rag.parsing.blocks import Block, Figure
from rag.parsing.ocr import ocr_text

logger = logging.getLogger(__name__)

# A fixed instruction with no document or user data in it (so not a prompt template).
FIGURE_INSTRUCTION = (
    "This image comes from a customer-support document. Describe it in at most three plain"
    " sentences for someone who cannot see it: what it shows, and every number, label or short"
    " text it contains. Answer with the description only."
)


@dataclass
class FigureFile:
    """A figure's PNG and where it is stored once the chunks that link to it are written."""

    name: str
    png: bytes


@dataclass
class DescribedFigures:
    blocks: list[Block]
    files: list[FigureFile]
    report: list[
        dict[str, Any]
    ]  # one entry per figure: page, stored image, source of its text, error


def figures_describe(
    *, document: Document, checksum: str, figures: list[Figure], vision_model: str
) -> DescribedFigures:
    """One standalone block per figure that has a description or OCR text; every figure reported."""
    result = DescribedFigures(blocks=[], files=[], report=[])
    for number, figure in enumerate(figures, start=1):
        name = document_upload_to(document, f"figures/{checksum[:16]}-{number}.png")
        entry: dict[str, Any] = {
            "number": number,
            "page_number": figure.page_number,
            "image_path": name,
        }
        text, source = "", ""
        if vision_model:
            endpoint = MediaEndpoint.vision(model=vision_model)
            try:
                text = vision_describe(
                    endpoint=endpoint, image_png=figure.png, instruction=FIGURE_INSTRUCTION
                )
                source = "vision"
            except LLMError as exc:
                logger.warning("vision description of a figure failed: %s", exc)
                entry["vision_error"] = f"{exc.code}: {exc.message}"[:500]
        if not text and settings.PARLEY_OCR_ENABLED:
            try:
                text, source = ocr_text(Image.open(io.BytesIO(figure.png))), "ocr"
            except IngestError as exc:
                entry["ocr_error"] = exc.message
        entry["description_source"] = source if text else "none"
        result.report.append(entry)
        if not text:
            continue
        label = f"Figure {number}" + (f" (page {figure.page_number})" if figure.page_number else "")
        image: dict[str, object] = {
            "path": name,
            "width": figure.width,
            "height": figure.height,
            "description_source": source,
        }
        if "vision_error" in entry:
            image["vision_error"] = entry["vision_error"]
        metadata = {"modality": "image", "image": image}
        result.files.append(FigureFile(name=name, png=figure.png))
        result.blocks.append(
            Block(
                text=f"{label}: {text}",
                page_number=figure.page_number,
                boxes=[figure.box] if figure.box else [],
                standalone=True,
                metadata=metadata,
            )
        )
    return result
