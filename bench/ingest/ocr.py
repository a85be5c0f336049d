"""OCR throughput for bench/ingest: corpus records typeset as PDF pages, rasterised, and put back as scans.

The scans have no text layer at all (each page is one image, as a scanner makes), so every page
goes through Tesseract; the same files then go through the worker's full pipeline.
"""

from __future__ import annotations

import io
import resource
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

SCAN_DPI = 150
LINES_PER_PAGE = 40


def scanned_pdfs_write(
    texts: list[str], folder: Path, *, pages: int, pages_per_file: int
) -> list[Path]:
    """`pages` pages of the texts (wrapped at 90 characters), `pages_per_file` to a scanned PDF."""
    lines = [line for text in texts for line in [*textwrap.wrap(text, 90), ""]]
    page_texts = [lines[i : i + LINES_PER_PAGE] for i in range(0, len(lines), LINES_PER_PAGE)]
    page_texts = (page_texts * (1 + pages // max(1, len(page_texts))))[:pages]
    files = []
    for start in range(0, len(page_texts), pages_per_file):
        path = folder / f"scan-{start:05d}.pdf"
        path.write_bytes(_scan(page_texts[start : start + pages_per_file]))
        files.append(path)
    return files


def _scan(pages: list[list[str]]) -> bytes:
    import pypdfium2 as pdfium
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    typeset = io.BytesIO()
    pdf = canvas.Canvas(typeset, pagesize=A4)
    for lines in pages:
        pdf.setFont("Helvetica", 10)
        for number, line in enumerate(lines):
            pdf.drawString(56, 780 - 18 * number, line)
        pdf.showPage()
    pdf.save()
    scanned = io.BytesIO()
    scan = canvas.Canvas(scanned, pagesize=A4)
    source = pdfium.PdfDocument(typeset.getvalue())
    for page in source:
        image = page.render(scale=SCAN_DPI / 72, grayscale=True).to_pil()
        scan.drawImage(ImageReader(image), 0, 0, width=A4[0], height=A4[1])
        scan.showPage()
    scan.save()
    return scanned.getvalue()


def ocr_parse_seconds(files: list[Path]) -> tuple[int, float, float]:
    """(pages, seconds, CPU seconds) of parsing the scans in this process: rendering and Tesseract.

    The CPU seconds count this process and its children (Tesseract runs as a subprocess), so they
    stay meaningful on a machine other work is loading, where the wall-clock rate does not."""
    from rag.parsing import document_parse

    pages, started, cpu_before = 0, time.perf_counter(), _cpu_with_children()
    for path in files:
        pages += document_parse(data=path.read_bytes(), filename=path.name).ocr_pages
    return pages, time.perf_counter() - started, _cpu_with_children() - cpu_before


def _cpu_with_children() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def ocr_run(
    *, workspace: object, scans: list[Path], wait: Callable[..., None]
) -> tuple[int, float, float, int, float]:
    """(pages, seconds) of OCR alone in this process, then of the same scans through the worker."""
    from rag.models import Document
    from rag.services import documents_create_from_paths

    pages, parse_seconds, parse_cpu = ocr_parse_seconds(scans)
    started = time.perf_counter()
    documents = documents_create_from_paths(workspace=workspace, paths=scans)  # type: ignore[arg-type]
    ids = [document.pk for document in documents]
    wait(ids, timeout=3600)
    seconds = time.perf_counter() - started
    done = Document.objects.filter(pk__in=ids, status="ready").values_list("metadata", flat=True)
    pipeline_pages = sum(int((meta or {}).get("ocr_pages", 0)) for meta in done)
    return pages, parse_seconds, parse_cpu, pipeline_pages, seconds


def ocr_print(figures: tuple[int, float, float, int, float], *, files: int, dpi: int) -> None:
    pages, parse_seconds, parse_cpu, pipeline_pages, seconds = figures
    print(
        f"OCR, Tesseract alone  {pages} scanned pages in {parse_seconds:.1f} s ="
        f" {pages / parse_seconds:.2f} pages/s (this process, {dpi} dpi);"
        f" {parse_cpu / pages:.2f} CPU s per page = {pages / parse_cpu:.2f} pages per CPU second"
    )
    print(
        f"OCR pipeline (worker) {pipeline_pages} scanned pages in {seconds:.1f} s ="
        f" {pipeline_pages / seconds:.2f} pages/s ({files} PDFs: render, OCR, embed, store)"
    )
