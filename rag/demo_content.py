"""The Lumen Bikes demo knowledge base (our own fictional text): files under rag/demo/, loaded for the demo bot.

The PDFs are generated from the `*-source.txt` files with reportlab, so no binary is committed: the
battery guide as text, the battery connector notice as a scan (typeset, rasterised, put back as an image
with no text layer, so OCR reads it) and the service sheet with a bar chart drawn by Pillow (a
figure, described by the vision model when the workspace has one, else by its OCR text).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.core.files.base import ContentFile
from django.db import transaction

from bots.models import Bot
from core.models import Workspace
from rag.models import Document
from rag.services import document_create

DEMO_DIR = Path(__file__).resolve().parent / "demo"
PDF_SOURCE = "battery-and-charging.pdf-source.txt"
SCAN_SOURCE = "battery-connector-notice.scan-source.txt"
SHEET_SOURCE = "service-intervals.pdf-source.txt"
SERVICE_INTERVALS_KM = {"Brake pads": 1500, "Chain": 3000, "Tyres": 4000, "Full service": 5000}
DEMO_FILES = {
    "orders-and-delivery.md": "Orders and delivery",
    "warranty-and-repairs.html": "Warranty and repairs",
    "battery-and-charging.pdf": "Battery and charging guide",
    "returns-and-refunds-faq.csv": "Returns and refunds FAQ",
    "battery-care-video.vtt": "Battery care video",
    "battery-connector-notice.pdf": "Battery connector service notice",
    "service-intervals.pdf": "Service intervals",
}


def demo_documents_ensure(*, workspace: Workspace, bots: Iterable[Bot]) -> list[Document]:
    """Create the demo documents once per workspace (queued for ingestion) and attach them to the bots."""
    bots = list(bots)
    documents = []
    with transaction.atomic():
        existing = {
            document.filename: document
            for document in Document.objects.filter(
                workspace=workspace, filename__in=DEMO_FILES, conversation=None
            )
        }
        for filename, title in DEMO_FILES.items():
            document = existing.get(filename)
            if document is None:
                content = ContentFile(_demo_bytes(filename), name=filename)
                document = document_create(
                    workspace=workspace, file=content, title=title, bots=bots
                )
            else:
                document.bots.add(*bots)
            documents.append(document)
    return documents


def _demo_bytes(filename: str) -> bytes:
    from rag import demo_media

    if filename == "battery-connector-notice.pdf":
        return demo_media.scanned_notice_bytes((DEMO_DIR / SCAN_SOURCE).read_text().splitlines())
    if filename == "service-intervals.pdf":
        lines = (DEMO_DIR / SHEET_SOURCE).read_text().splitlines()
        return demo_media.chart_sheet_bytes(lines, bars=SERVICE_INTERVALS_KM)
    if filename.endswith(".pdf"):
        return demo_pdf_bytes()
    return (DEMO_DIR / filename).read_bytes()


def demo_pdf_bytes() -> bytes:
    """Typeset the battery guide: '# ' and '## ' lines become headings, other lines paragraphs."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer

    styles = getSampleStyleSheet()
    story: list[Any] = []  # reportlab's flowables (reportlab ships no type hints)
    for line in (DEMO_DIR / PDF_SOURCE).read_text().splitlines():
        if line.startswith("## "):
            if line == "## Storage and winter":
                story.append(
                    PageBreak()
                )  # a two-page guide, so chunks carry page numbers that differ
            story += [Spacer(1, 6), Paragraph(line[3:], styles["Heading2"])]
        elif line.startswith("# "):
            story.append(Paragraph(line[2:], styles["Title"]))
        elif line.strip():
            story.append(Paragraph(line, styles["BodyText"]))
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=A4, title="Lumen Bikes battery and charging guide").build(
        story
    )
    return buffer.getvalue()
