"""Turn a file's bytes into located text blocks: one parser per format, chosen by extension and checked by content.

Parsers raise IngestError with a stable code and a sentence a user can act on; they never
return half a document.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from pathlib import PurePath

from rag.errors import IngestError
from rag.parsing.blocks import ParsedDocument

Parser = Callable[[bytes, str], ParsedDocument]


def _parsers() -> dict[str, Parser]:
    from rag.parsing import docx, image, pdf, subtitles, tabular, text

    return {
        **dict.fromkeys(IMAGE_EXTENSIONS, image.parse_image),
        ".txt": text.parse_txt,
        ".text": text.parse_txt,
        ".md": text.parse_markdown,
        ".markdown": text.parse_markdown,
        ".html": text.parse_html,
        ".htm": text.parse_html,
        ".pdf": pdf.parse_pdf,
        ".docx": docx.parse_docx,
        ".csv": tabular.parse_csv,
        ".vtt": subtitles.parse_vtt,
        ".srt": subtitles.parse_srt,
    }


IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".tif", ".tiff")
# Transcribed through the workspace's transcription endpoint (rag.ingestion.transcribe), not parsed here.
AUDIO_EXTENSIONS = (".mp3", ".m4a", ".wav", ".mp4", ".webm")

SUPPORTED_EXTENSIONS = (
    ".txt",
    ".text",
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".pdf",
    ".docx",
    ".csv",
    ".vtt",
    ".srt",
    *IMAGE_EXTENSIONS,
    *AUDIO_EXTENSIONS,
)


def mime_type_guess(filename: str) -> str:
    suffix = PurePath(filename).suffix.lower()
    known = {
        ".md": "text/markdown",
        ".vtt": "text/vtt",
        ".srt": "application/x-subrip",
        ".markdown": "text/markdown",
        ".webp": "image/webp",
        ".m4a": "audio/mp4",
    }
    return known.get(suffix) or mimetypes.guess_type(filename)[0] or "application/octet-stream"


def document_parse(*, data: bytes, filename: str) -> ParsedDocument:
    """Parse a file's bytes; raises IngestError for empty, unsupported, unreadable or textless files."""
    suffix = PurePath(filename).suffix.lower()
    parser = _parsers().get(suffix)
    if parser is None and suffix in AUDIO_EXTENSIONS:
        raise IngestError(
            "transcription_not_configured",
            "Audio and video need a transcription endpoint: set the workspace's transcription model"
            " (PARLEY_TRANSCRIPTION_OPENAI_BASE_URL), or upload a VTT/SRT subtitle file instead.",
        )
    if parser is None:
        supported = ", ".join(sorted({s.lstrip(".") for s in SUPPORTED_EXTENSIONS}))
        message = f"Files of type '{suffix or 'none'}' are not supported. Use: {supported}."
        raise IngestError("unsupported_type", message)
    if not data.strip():
        raise IngestError("empty_file", "The file is empty.")
    parsed = parser(data, filename)
    parsed.blocks = [block for block in parsed.blocks if block.text.strip()]
    if not parsed.blocks and not parsed.figures:
        raise IngestError("no_text", "No text could be extracted from this file, not even by OCR.")
    return parsed
