"""The demo's scanned notice and figure, made in code: a page typeset, rasterised and put back as a scan; a chart.

Shared by the demo loader and the tests, so both read the same bytes; nothing binary is committed.
"""

from __future__ import annotations

import io
import textwrap

from PIL import Image, ImageDraw, ImageFont

SCAN_DPI = 150
CHART_SIZE = (900, 520)


def scanned_notice_bytes(lines: list[str]) -> bytes:
    """The first line as a heading, the rest as wrapped paragraphs, on one A4 page with no text layer."""
    import pypdfium2 as pdfium
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    typeset = io.BytesIO()
    pdf = canvas.Canvas(typeset, pagesize=A4)
    y = 770.0
    for number, line in enumerate(line for line in lines if line.strip()):
        size = 16 if number < 2 else 11
        pdf.setFont("Helvetica-Bold" if number < 2 else "Helvetica", size)
        for part in textwrap.wrap(line, 95 if number >= 2 else 60):
            pdf.drawString(64, y, part)
            y -= size * 1.45
        y -= 8
    pdf.showPage()
    pdf.save()
    page = pdfium.PdfDocument(typeset.getvalue())[0]
    image = page.render(scale=SCAN_DPI / 72, grayscale=True).to_pil()
    scanned = io.BytesIO()
    scan = canvas.Canvas(scanned, pagesize=A4)
    scan.drawImage(ImageReader(image), 0, 0, width=A4[0], height=A4[1])
    scan.showPage()
    scan.save()
    return scanned.getvalue()


def chart_png(*, title: str, bars: dict[str, int]) -> bytes:
    """A labelled bar chart (Pillow's own font, so no system font is needed)."""
    image = Image.new("RGB", CHART_SIZE, "white")
    draw = ImageDraw.Draw(image)
    big, small = ImageFont.load_default(size=34), ImageFont.load_default(size=24)
    draw.text((40, 20), title, fill="black", font=big)
    top = max(bars.values())
    width = (CHART_SIZE[0] - 80) // len(bars)
    for index, (label, value) in enumerate(bars.items()):
        x = 50 + index * width
        bar_top = 430 - int(320 * value / top)
        draw.rectangle([x, bar_top, x + width - 50, 430], fill=("#2b6cb0", "#dd6b20")[index % 2])
        draw.text((x, bar_top - 32), f"{value} km", fill="black", font=small)
        draw.text((x, 445), label, fill="black", font=small)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def chart_sheet_bytes(lines: list[str], *, bars: dict[str, int]) -> bytes:
    """A born-digital page: a '# ' heading, paragraphs, then the chart as an embedded image."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    y = 770.0
    for line in lines:
        heading = line.startswith("# ")
        pdf.setFont("Helvetica-Bold" if heading else "Helvetica", 18 if heading else 11)
        for part in textwrap.wrap(line.removeprefix("# "), 95):
            pdf.drawString(64, y, part)
            y -= 26 if heading else 16
    chart = chart_png(title="Service interval by part (km)", bars=bars)
    width = A4[0] - 128
    height = width * CHART_SIZE[1] / CHART_SIZE[0]
    pdf.drawImage(ImageReader(Image.open(io.BytesIO(chart))), 64, y - 30 - height, width, height)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()
