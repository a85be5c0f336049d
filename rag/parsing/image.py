"""Image documents (PNG, JPEG, WebP, TIFF): OCR'd text lines, boxes in the image's pixels.

An image is one page whose unit is the pixel (a PDF page's is the point), so a chunk's bbox
crops the same image again for its preview. An image with no text to read is handed on whole as
a figure, for the workspace's vision model to describe.
"""

from __future__ import annotations

from django.conf import settings

from rag.parsing.blocks import Box, Figure, ParsedDocument
from rag.parsing.images import image_open, image_png
from rag.parsing.ocr import ocr_page


def parse_image(data: bytes, filename: str) -> ParsedDocument:
    image = image_open(data)
    # With OCR off, an image can still be described by the workspace's vision model (as a figure).
    blocks = ocr_page(image, page_number=1).blocks if settings.PARLEY_OCR_ENABLED else []
    figures = []
    if not blocks:
        width, height = image.size
        box = Box(page_number=1, x0=0.0, top=0.0, x1=float(width), bottom=float(height))
        figures.append(
            Figure(png=image_png(image), page_number=1, box=box, width=width, height=height)
        )
    return ParsedDocument(
        blocks=blocks, modality="image", figures=figures, ocr_pages=int(settings.PARLEY_OCR_ENABLED)
    )
