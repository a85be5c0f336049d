"""The raster side of a PDF, through pypdfium2: pages without a text layer OCR'd, embedded figures extracted.

pypdfium2 (Apache-2.0/BSD, PDFium's renderer) renders a page several times faster than
pdfplumber's own rendering and, unlike PyMuPDF, carries no AGPL obligations. Boxes are in PDF
points from the page's top-left corner, as pdfplumber gives them for born-digital text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings

from rag.errors import IngestError
from rag.parsing.blocks import Block, Box, Figure
from rag.parsing.images import image_png
from rag.parsing.ocr import ocr_page

if TYPE_CHECKING:
    import pypdfium2

# An image covering this share of its page is the page itself (a scan), not a figure on it.
_SCAN_COVERAGE = 0.8


def pdf_pages_ocr(data: bytes, *, page_numbers: list[int]) -> list[Block]:
    """OCR the given pages (1-based); the first one picks the language the others are read in."""
    import pypdfium2 as pdfium

    scale = settings.PARLEY_OCR_DPI / 72
    blocks: list[Block] = []
    language: str | None = None
    document = _open(data)
    try:
        for number in page_numbers:
            page = document[number - 1]
            image = page.render(scale=scale, grayscale=True).to_pil()
            result = ocr_page(image, page_number=number, scale=scale, language=language)
            # The first page with text decides; a blank first page leaves the choice to the next.
            language = language or (result.language if result.blocks else None)
            blocks.extend(result.blocks)
            page.close()
    except pdfium.PdfiumError as exc:
        raise IngestError(
            "corrupt_pdf", f"A page of the PDF cannot be rendered for OCR ({exc})."
        ) from exc
    finally:
        document.close()
    return blocks


def pdf_figures(data: bytes, *, skip_pages: set[int]) -> list[Figure]:
    """Embedded images at least PARLEY_FIGURE_MIN_SIDE pixels on each side, page order, capped per document."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    limit = settings.PARLEY_FIGURES_PER_DOCUMENT
    smallest = settings.PARLEY_FIGURE_MIN_SIDE
    figures: list[Figure] = []
    document = _open(data)
    try:
        for index in range(len(document)):
            if len(figures) >= limit:
                break
            if index + 1 in skip_pages:
                continue
            page = document[index]
            page_width, page_height = page.get_size()
            for item in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)):
                assert isinstance(item, pdfium.PdfImage)
                width, height = item.get_px_size()
                left, bottom, right, top = item.get_bounds()
                coverage = (right - left) * (top - bottom) / (page_width * page_height)
                if min(width, height) < smallest or coverage >= _SCAN_COVERAGE:
                    continue
                try:  # the raw pixels, at the image's own size
                    picture = item.get_bitmap(render=False).to_pil()
                except (pdfium.PdfiumError, ValueError):  # a format only rendering decodes
                    picture = item.get_bitmap(render=True).to_pil()
                box = Box(
                    page_number=index + 1,
                    x0=round(left, 2),
                    top=round(page_height - top, 2),
                    x1=round(right, 2),
                    bottom=round(page_height - bottom, 2),
                )
                figures.append(
                    Figure(
                        png=image_png(picture),
                        page_number=index + 1,
                        box=box,
                        width=width,
                        height=height,
                    )
                )
                if len(figures) >= limit:
                    break
            page.close()
    except pdfium.PdfiumError as exc:
        raise IngestError("corrupt_pdf", f"The PDF's images cannot be read ({exc}).") from exc
    finally:
        document.close()
    return figures


def _open(data: bytes) -> pypdfium2.PdfDocument:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise IngestError("corrupt_pdf", f"The PDF is damaged and cannot be read ({exc}).") from exc
