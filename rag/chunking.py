"""Token-aware chunking: sections stay apart, overlap carries trailing blocks, tables keep their header.

Each chunk keeps its heading path and the union of its blocks' locations: one bbox per page
for PDFs (OCR'd pages too), the first cue's start and last cue's end for subtitles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from langchain_text_splitters import RecursiveCharacterTextSplitter

from rag.parsing.blocks import Block, Box
from rag.tokens import token_count, token_counts


@dataclass
class ChunkDraft:
    ordinal: int
    text: str
    embed_text: str  # the text prefixed with title and headings, so the chunk stands alone
    heading_path: list[str]
    page_number: int | None
    bbox: list[dict[str, Any]]
    start_time: float | None
    end_time: float | None
    token_count: int
    metadata: dict[str, Any] = field(
        default_factory=dict
    )  # merged over the document's (OCR confidence, figures)


def chunks_build(*, blocks: list[Block], title: str, size: int, overlap: int) -> list[ChunkDraft]:
    overlap = min(overlap, size // 2)
    pieces = _split_oversized(blocks, size)
    counts = token_counts([block.text for block in pieces])
    groups: list[list[int]] = []
    current: list[int] = []
    current_tokens = 0
    for index, block in enumerate(pieces):
        fresh = (
            not current
            or block.standalone
            or pieces[current[-1]].standalone
            or block.heading_path != pieces[current[-1]].heading_path
        )
        header_tokens = _header_tokens(block, pieces, current)
        if not fresh and current_tokens + counts[index] + header_tokens <= size:
            current.append(index)
            current_tokens += counts[index] + header_tokens
            continue
        if current:
            groups.append(current)
        carried = [] if fresh else _tail(current, counts, overlap)
        current = [*carried, index]
        current_tokens = sum(counts[i] for i in current) + sum(
            _header_tokens(pieces[i], pieces, current[:n]) for n, i in enumerate(current)
        )
    if current:
        groups.append(current)
    return [
        _draft(ordinal, [pieces[i] for i in group], title) for ordinal, group in enumerate(groups)
    ]


def _split_oversized(blocks: list[Block], size: int) -> list[Block]:
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=0, length_function=token_count
    )
    result = []
    counts = token_counts([block.text for block in blocks])
    for block, count in zip(blocks, counts, strict=True):
        if count <= size:
            result.append(block)
            continue
        for text in splitter.split_text(block.text):
            piece = Block(**{**block.__dict__, "text": text})
            result.append(piece)
    return result


def _header_tokens(block: Block, pieces: list[Block], current: list[int]) -> int:
    if not block.table_header:
        return 0
    if current and pieces[current[-1]].table_id == block.table_id:
        return 0
    return token_count(block.table_header)


def _tail(group: list[int], counts: list[int], overlap: int) -> list[int]:
    tail: list[int] = []
    total = 0
    for index in reversed(group[1:]):  # never carry the whole previous chunk
        if total + counts[index] > overlap:
            break
        tail.insert(0, index)
        total += counts[index]
    return tail


def _draft(ordinal: int, blocks: list[Block], title: str) -> ChunkDraft:
    lines: list[str] = []
    previous_table: int | None = None
    for block in blocks:
        if block.table_header and block.table_id != previous_table:
            lines.append(block.table_header)
        previous_table = block.table_id if block.table_header else None
        lines.append(block.text)
    joiner = "\n" if blocks[0].page_number is not None or blocks[0].table_header else "\n\n"
    if blocks[0].start_time is not None:
        joiner = " "
    text = joiner.join(lines).strip()
    path = list(blocks[0].heading_path)
    prefix = " › ".join(part for part in [title, *path] if part)
    embed_text = f"{prefix}\n\n{text}" if prefix else text
    starts = [b.start_time for b in blocks if b.start_time is not None]
    ends = [b.end_time for b in blocks if b.end_time is not None]
    pages = [b.page_number for b in blocks if b.page_number is not None]
    return ChunkDraft(
        ordinal=ordinal,
        text=text,
        embed_text=embed_text,
        heading_path=path,
        page_number=pages[0] if pages else None,
        bbox=_merge_boxes([box for block in blocks for box in block.boxes]),
        start_time=min(starts) if starts else None,
        end_time=max(ends) if ends else None,
        token_count=token_count(embed_text),
        metadata=_metadata(blocks),
    )


def _metadata(blocks: list[Block]) -> dict[str, Any]:
    """The blocks' own metadata, and for OCR'd text its mean confidence and a low-confidence mark."""
    metadata: dict[str, Any] = {}
    for block in blocks:
        metadata.update(block.metadata)
    confidences = [b.confidence for b in blocks if b.confidence is not None]
    if confidences:
        mean = round(sum(confidences) / len(confidences), 1)
        low = mean < settings.PARLEY_OCR_LOW_CONFIDENCE
        metadata["ocr"] = {"confidence": mean, "low_confidence": low}
    return metadata


def _merge_boxes(boxes: list[Box]) -> list[dict[str, Any]]:
    """One enclosing box per page, in page order: a chunk that spans pages gets one entry per page."""
    by_page: dict[int, list[Box]] = {}
    for box in boxes:
        by_page.setdefault(box.page_number, []).append(box)
    return [
        {
            "bbox": [
                min(b.x0 for b in page_boxes),
                min(b.top for b in page_boxes),
                max(b.x1 for b in page_boxes),
                max(b.bottom for b in page_boxes),
            ],
            "page_number": page,
        }
        for page, page_boxes in sorted(by_page.items())
    ]
