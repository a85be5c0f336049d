"""A chunk's source, shown where it sits: a PNG of its page region with its boxes highlighted, cached on disk.

PDF pages are rendered with pypdfium2; image documents and stored figures are cropped with
Pillow. The region (page, box in the source's units, pixels per unit) travels in the PNG's own
text metadata, so a cached preview answers with it without rendering again. Re-ingesting a
document drops its previews (rag.ingestion.store), since its chunks are new ones.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, ImageDraw
from PIL.PngImagePlugin import PngInfo

from core.errors import ErrorKind, ParleyError
from rag.errors import IngestError
from rag.models import Chunk, Document
from rag.parsing import IMAGE_EXTENSIONS
from rag.parsing.images import image_open

# The outline is a colour no scan or chart draws, so a test can find the highlight's pixels.
HIGHLIGHT_OUTLINE = (230, 0, 126)
HIGHLIGHT_FILL = (255, 214, 0, 70)
PDF_SCALE = 2.0  # pixels per PDF point (144 dpi): sharp enough to read, small enough to send
MARGIN = 48.0  # points (or image pixels) of context around the boxes
LONGEST_SIDE = 1400
_CACHE_VERSION = "v1"


class PreviewUnavailable(ParleyError):
    """The chunk's source has no page to show (plain text, HTML, audio, video)."""

    code = "preview_unavailable"
    kind = ErrorKind.NOT_FOUND


@dataclass(frozen=True)
class Preview:
    png: bytes
    region: (
        dict[
            str, Any
        ]  # {"page_number", "box": [x0, top, x1, bottom] in source units, "scale": px per unit}
    )


def chunk_preview(*, chunk: Chunk) -> Preview:
    """The chunk's cached preview, rendered on first use."""
    name = _cache_name(chunk)
    if default_storage.exists(name):
        with default_storage.open(name, "rb") as handle:
            png = handle.read()
        text = getattr(Image.open(io.BytesIO(png)), "text", {})  # PNG text chunks, header only
        region = json.loads(text.get("parley-region") or "{}")
        if region:
            return Preview(png=png, region=region)
    preview = _render(chunk)
    if default_storage.exists(name):
        default_storage.delete(name)
    default_storage.save(name, ContentFile(preview.png))
    return preview


def preview_cache_clear(*, document_id: object) -> None:
    """Drop every cached preview of the document (its chunks were replaced or deleted)."""
    folder = f"previews/{document_id}"
    if default_storage.exists(folder):
        for name in default_storage.listdir(folder)[1]:
            default_storage.delete(f"{folder}/{name}")


def _cache_name(chunk: Chunk) -> str:
    return f"previews/{chunk.document_id}/{chunk.pk}-{_CACHE_VERSION}.png"


def _render(chunk: Chunk) -> Preview:
    document = Document.objects.only("file", "filename").get(pk=chunk.document_id)
    suffix = PurePath(document.filename).suffix.lower()
    image_meta = (chunk.metadata or {}).get("image") or {}
    page = chunk.page_number
    boxes = [
        entry["bbox"] for entry in chunk.bbox or [] if page is None or entry["page_number"] == page
    ]
    if suffix == ".pdf" and page is not None:
        picture, scale = _pdf_page(_read(document.file.name or ""), page), PDF_SCALE
    elif suffix in IMAGE_EXTENSIONS:
        picture, scale = _image(_read(document.file.name or "")), 1.0
    elif image_meta.get("path"):  # a DOCX figure: the stored image itself, whole
        picture, scale = _image(_read(image_meta["path"])), 1.0
        boxes = [[0.0, 0.0, float(picture.width), float(picture.height)]]
    else:
        raise PreviewUnavailable("This source has no page to show.")
    return _highlight(picture, scale=scale, boxes=boxes, page=page)


def _read(name: str) -> bytes:
    try:
        with default_storage.open(name, "rb") as handle:
            data: bytes = handle.read()
            return data
    except FileNotFoundError as exc:
        raise PreviewUnavailable("The source file is missing from storage.") from exc


def _pdf_page(data: bytes, page_number: int) -> Image.Image:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    try:
        page = document[page_number - 1]
        image: Image.Image = page.render(scale=PDF_SCALE).to_pil().convert("RGB")
        return image
    finally:
        document.close()


def _image(data: bytes) -> Image.Image:
    try:
        return image_open(data).convert("RGB")
    except IngestError as exc:
        raise PreviewUnavailable(exc.message) from exc


def _highlight(
    picture: Image.Image, *, scale: float, boxes: list[list[float]], page: int | None
) -> Preview:
    """Crop around the boxes (the whole page when there are none), shade them and outline them."""
    width, height = picture.width / scale, picture.height / scale
    if boxes:
        x0 = max(0.0, min(b[0] for b in boxes) - MARGIN)
        top = max(0.0, min(b[1] for b in boxes) - MARGIN)
        x1 = min(width, max(b[2] for b in boxes) + MARGIN)
        bottom = min(height, max(b[3] for b in boxes) + MARGIN)
    else:
        x0, top, x1, bottom = 0.0, 0.0, width, height
    crop = picture.crop(
        (round(x0 * scale), round(top * scale), round(x1 * scale), round(bottom * scale))
    )
    shade = Image.new("RGBA", crop.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(shade)
    outline_width = max(2, round(scale * 1.5))
    rectangles = []
    for box in boxes:
        rectangle = [
            (box[0] - x0) * scale - outline_width,
            (box[1] - top) * scale - outline_width,
            (box[2] - x0) * scale + outline_width,
            (box[3] - top) * scale + outline_width,
        ]
        rectangles.append(rectangle)
        draw.rectangle(rectangle, fill=HIGHLIGHT_FILL)
    framed = Image.alpha_composite(crop.convert("RGBA"), shade).convert("RGB")
    outline = ImageDraw.Draw(framed)
    for rectangle in rectangles:
        outline.rectangle(rectangle, outline=HIGHLIGHT_OUTLINE, width=outline_width)
    factor = min(1.0, LONGEST_SIDE / max(framed.size))
    if factor < 1.0:
        # NEAREST keeps the outline's exact colour, which LANCZOS would blend away.
        size = (round(framed.width * factor), round(framed.height * factor))
        framed = framed.resize(size, Image.Resampling.NEAREST)
    region = {
        "page_number": page,
        "box": [round(x0, 2), round(top, 2), round(x1, 2), round(bottom, 2)],
        "scale": round(scale * factor, 4),
    }
    info = PngInfo()
    info.add_text("parley-region", json.dumps(region))
    buffer = io.BytesIO()
    framed.save(buffer, format="PNG", pnginfo=info)
    return Preview(png=buffer.getvalue(), region=region)
