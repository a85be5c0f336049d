"""Fixture files generated in code (PDF, DOCX, subtitles, zip bombs...), so the repository holds no binaries."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from docx import Document as DocxDocument
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

PAGE_HEIGHT = A4[1]


def pdf_bytes(
    *, pages: list[list[str]], heading: str = "Battery care", encrypt: str | None = None
) -> bytes:
    """One line of 11pt text per string, from y=700 down; the heading on page 1 in 18pt."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, encrypt=encrypt)
    for number, lines in enumerate(pages):
        y = 760
        if number == 0 and heading:
            pdf.setFont("Helvetica-Bold", 18)
            pdf.drawString(72, y, heading)
        y = 700
        pdf.setFont("Helvetica", 11)
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def docx_bytes() -> bytes:
    document = DocxDocument()
    document.add_heading("Warranty guide", level=1)
    document.add_paragraph(
        "Every Lumen frame carries a ten-year warranty against manufacturing defects."
    )
    document.add_heading("Parts covered", level=2)
    table = document.add_table(rows=3, cols=2)
    for row, (part, years) in enumerate([("Part", "Years"), ("Frame", "10"), ("Motor", "2")]):
        table.cell(row, 0).text = part
        table.cell(row, 1).text = years
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def zip_bomb_docx_bytes(*, expanded_bytes: int) -> bytes:
    """A DOCX-shaped zip whose document.xml inflates to `expanded_bytes` of spaces."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b" " * (1 << 20)
            for _ in range(expanded_bytes // len(block)):
                member.write(block)
    return buffer.getvalue()


VTT = """WEBVTT

00:00:01.000 --> 00:00:04.500
Welcome to the Lumen battery video.

00:00:04.500 --> 00:00:09.000
Charge the battery with the supplied charger only.

00:01:00.000 --> 00:01:05.250
A full charge takes about four hours.
"""

SRT = """1
00:00:02,000 --> 00:00:05,000
Lift the bike onto the stand.

2
00:00:05,500 --> 00:00:08,750
Remove the rear wheel with the quick release.
"""

MARKDOWN = """# Orders

## Delivery times

Bikes ship within five working days.

| Country | Days |
|---|---|
| France | 3 |
| Belgium | 4 |
"""

HTML = """<html><head><title>Returns policy</title></head><body>
<nav><a href="/">Home</a> | <a href="/shop">Shop</a> | <a href="/login">Log in</a></nav>
<article><h1>Returns policy</h1>
<p>You may return an unused bike within thirty days of delivery for a full refund of the purchase price.</p>
<p>Contact the help desk first so that we can send you a prepaid shipping label and a return number.</p>
</article>
<footer>Copyright Lumen Bikes. Cookie settings. Follow us on social networks.</footer>
</body></html>
"""

CSV = """question,answer
How long is the warranty?,Ten years on the frame and two years on the motor.
Can I ride in the rain?,"Yes, the motor and battery are sealed against rain."
"""


def write_every_format(folder: Path) -> dict[str, Path]:
    """One file per supported format under `folder` (with a nested subfolder), by extension."""
    nested = folder / "more"
    nested.mkdir(parents=True, exist_ok=True)
    files = {
        "txt": folder / "notes.txt",
        "md": folder / "orders.md",
        "html": folder / "returns.html",
        "pdf": folder / "battery.pdf",
        "docx": nested / "warranty.docx",
        "csv": nested / "faq.csv",
        "vtt": nested / "battery-video.vtt",
        "srt": nested / "repair.srt",
    }
    files["txt"].write_text("Keep the tyres inflated to the pressure printed on their side.\n")
    files["md"].write_text(MARKDOWN)
    files["html"].write_text(HTML)
    pages = [["Charge at room temperature.", "Unplug when full."], ["Store at half charge."]]
    files["pdf"].write_bytes(pdf_bytes(pages=pages))
    files["docx"].write_bytes(docx_bytes())
    files["csv"].write_text(CSV)
    files["vtt"].write_text(VTT)
    files["srt"].write_text(SRT)
    return files
