"""Tesseract OCR through pytesseract: an image's text lines with their boxes and confidences.

The language follows the text: a first pass with PARLEY_OCR_DEFAULT_LANGUAGE, then textmodels.language
on what it read, then (when that is another installed pack) the page again with the right one.
Boxes come back in the caller's coordinates: pixels divided by `scale` (PDF points for a page
rendered at `scale` pixels per point).
"""

from __future__ import annotations

import functools
import os
import statistics
from dataclasses import dataclass

from django.conf import settings
from PIL import Image

from rag.errors import IngestError
from rag.language import iso639_3
from rag.parsing.blocks import Block, Box
from textmodels.language import language_detect

# Tesseract's OpenMP threads would fight the worker pool's processes for the same cores.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


@dataclass
class OcrResult:
    blocks: list[Block]
    language: str  # the Tesseract pack used, e.g. "fra"


@functools.cache
def ocr_languages() -> frozenset[str]:
    """The installed Tesseract language packs (cached per process)."""
    import pytesseract

    try:
        return frozenset(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractNotFoundError, OSError) as exc:
        raise _unavailable() from exc


def ocr_language_for(text: str) -> str | None:
    """The installed pack for the language `text` is in, or None when unsure or not installed."""
    code = iso639_3(language_detect(text))
    return code[0] if code and code[0] in ocr_languages() else None


def ocr_page(
    image: Image.Image, *, page_number: int, scale: float = 1.0, language: str | None = None
) -> OcrResult:
    """OCR one image; with no `language`, pick it from a first pass with the default pack."""
    default = settings.PARLEY_OCR_DEFAULT_LANGUAGE
    first = _lines(image, page_number=page_number, scale=scale, language=language or default)
    if language is not None:
        return OcrResult(first, language)
    detected = ocr_language_for(" ".join(block.text for block in first))
    if detected is None or detected == default:
        return OcrResult(first, default)
    return OcrResult(
        _lines(image, page_number=page_number, scale=scale, language=detected), detected
    )


def ocr_text(image: Image.Image) -> str:
    """All the text OCR finds in an image, as one string (a figure's fallback description)."""
    return " ".join(block.text for block in ocr_page(image, page_number=1).blocks)


def _lines(image: Image.Image, *, page_number: int, scale: float, language: str) -> list[Block]:
    import pytesseract

    try:
        data = pytesseract.image_to_data(
            image.convert("L"),
            lang=language,
            output_type=pytesseract.Output.DICT,
            timeout=settings.PARLEY_OCR_TIMEOUT,
        )
    except pytesseract.TesseractNotFoundError as exc:
        raise _unavailable() from exc
    except RuntimeError as exc:  # pytesseract's timeout
        limit = settings.PARLEY_OCR_TIMEOUT
        raise IngestError(
            "ocr_timeout", f"OCR of page {page_number} took longer than {limit} s."
        ) from exc
    except pytesseract.TesseractError as exc:
        raise IngestError("ocr_failed", f"OCR of page {page_number} failed: {exc.message}") from exc
    lines: dict[tuple[int, int, int], list[int]] = {}
    for index, word in enumerate(data["text"]):
        if word.strip() and float(data["conf"][index]) >= 0:
            key = (data["block_num"][index], data["par_num"][index], data["line_num"][index])
            lines.setdefault(key, []).append(index)
    blocks = []
    for indexes in lines.values():
        left = min(data["left"][i] for i in indexes)
        top = min(data["top"][i] for i in indexes)
        right = max(data["left"][i] + data["width"][i] for i in indexes)
        bottom = max(data["top"][i] + data["height"][i] for i in indexes)
        box = Box(
            page_number=page_number,
            x0=round(left / scale, 2),
            top=round(top / scale, 2),
            x1=round(right / scale, 2),
            bottom=round(bottom / scale, 2),
        )
        blocks.append(
            Block(
                text=" ".join(data["text"][i].strip() for i in indexes),
                page_number=page_number,
                boxes=[box],
                confidence=round(statistics.fmean(float(data["conf"][i]) for i in indexes), 1),
            )
        )
    return blocks


def _unavailable() -> IngestError:
    return IngestError(
        "ocr_unavailable",
        "OCR needs Tesseract, which is not installed: apt-get install tesseract-ocr"
        " tesseract-ocr-eng (./parley run installs it when run as root).",
    )
