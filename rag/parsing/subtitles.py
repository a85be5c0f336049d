"""WebVTT and SRT subtitles: cues with their start and end times, in seconds."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable

from webvtt.models import Caption

from rag.errors import IngestError
from rag.parsing.blocks import Block, ParsedDocument
from rag.parsing.decode import text_decode


def parse_vtt(data: bytes, filename: str) -> ParsedDocument:
    import webvtt

    return _cues(lambda text: webvtt.from_buffer(io.StringIO(text), format="vtt").captions, data)


def parse_srt(data: bytes, filename: str) -> ParsedDocument:
    import webvtt

    return _cues(lambda text: webvtt.from_buffer(io.StringIO(text), format="srt").captions, data)


def _cues(read: Callable[[str], Iterable[Caption]], data: bytes) -> ParsedDocument:
    text = text_decode(data)
    try:
        captions = read(text)
    except Exception as exc:
        raise IngestError(
            "corrupt_subtitles", f"The subtitle file could not be read ({exc})."
        ) from exc
    blocks = [
        Block(
            text=" ".join(caption.text.split()),
            start_time=caption.start_time.in_milliseconds() / 1000,
            end_time=caption.end_time.in_milliseconds() / 1000,
        )
        for caption in captions
    ]
    return ParsedDocument(blocks=blocks, modality="video")
