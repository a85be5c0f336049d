"""Fixtures made in code for OCR, figures and audio: a scan of a generated PDF, text images, a chart, speech.

Nothing is downloaded: reportlab draws the pages, pypdfium2 rasterises them, Pillow draws images
and charts, and espeak-ng speaks the audio.
"""

from __future__ import annotations

import io
import subprocess
import tempfile
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from tests.rag.files import pdf_bytes

SCAN_DPI = 150
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def scanned_pdf_bytes(
    *, pages: list[list[str]], heading: str = "Service notice", encrypt: str | None = None
) -> bytes:
    """A born-digital PDF rendered to images and back into a PDF that has no text layer at all."""
    source = pdfium.PdfDocument(pdf_bytes(pages=pages, heading=heading))
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, encrypt=encrypt)
    width, height = A4
    for page in source:
        image = page.render(scale=SCAN_DPI / 72, grayscale=True).to_pil()
        pdf.drawImage(ImageReader(image), 0, 0, width=width, height=height)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def text_image_bytes(*, lines: list[str], image_format: str = "PNG") -> bytes:
    """Black text on white, 40 px type, one line every 70 px from (60, 60)."""
    image = Image.new("RGB", (1400, 120 + 70 * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 40)
    for number, line in enumerate(lines):
        draw.text((60, 60 + 70 * number), line, fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format=image_format)
    return buffer.getvalue()


def chart_png(*, title: str, bars: dict[str, int]) -> bytes:
    """A bar chart with a title and labelled bars, drawn with Pillow."""
    image = Image.new("RGB", (800, 500), "white")
    draw = ImageDraw.Draw(image)
    big, small = ImageFont.truetype(FONT, 34), ImageFont.truetype(FONT, 26)
    draw.text((40, 20), title, fill="black", font=big)
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
    top = max(bars.values())
    for index, (label, value) in enumerate(bars.items()):
        x = 80 + index * 170
        bar_top = 440 - int(320 * value / top)
        draw.rectangle([x, bar_top, x + 110, 440], fill=colours[index % len(colours)])
        draw.text((x, 450), label, fill="black", font=small)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


# Where chart_pdf_bytes draws its chart, in PDF points from the page's top-left corner.
CHART_BOX = (72.0, 300.0, 472.0, 550.0)


def chart_pdf_bytes(*, title: str, bars: dict[str, int], lines: list[str]) -> bytes:
    """One born-digital page of text with a chart image embedded at CHART_BOX."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    height = A4[1]
    pdf.setFont("Helvetica", 11)
    y = 760
    for line in lines:
        pdf.drawString(72, y, line)
        y -= 16
    x0, top, x1, bottom = CHART_BOX
    chart = ImageReader(Image.open(io.BytesIO(chart_png(title=title, bars=bars))))
    pdf.drawImage(chart, x0, height - bottom, width=x1 - x0, height=bottom - top)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def speech_wav_bytes(sentence: str) -> bytes:
    """`sentence` spoken by espeak-ng, as a WAV file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "speech.wav"
        subprocess.run(["espeak-ng", "-w", str(path), sentence], check=True, timeout=60)
        return path.read_bytes()


def audio_duration(data: bytes, *, suffix: str) -> float:
    """The duration ffprobe reads from an audio or video file, in seconds."""
    with tempfile.NamedTemporaryFile(suffix=suffix) as handle:
        handle.write(data)
        handle.flush()
        out = subprocess.run(
            [
                "ffprobe",
                "-v",
                "error",
                "-show_entries",
                "format=duration",
                "-of",
                "csv=p=0",
                handle.name,
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
    return float(out.stdout.strip())
