"""Plain text, Markdown (heading-aware, tables kept with their header) and HTML (main content via trafilatura)."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from rag.errors import IngestError
from rag.parsing import Block, ParsedDocument
from rag.parsing.decode import text_decode

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_markdown = MarkdownIt("commonmark").enable("table")


def parse_txt(data: bytes, filename: str) -> ParsedDocument:
    text = text_decode(data)
    return ParsedDocument(
        blocks=[Block(text=part.strip()) for part in _PARAGRAPH_BREAK.split(text)]
    )


def parse_markdown(data: bytes, filename: str) -> ParsedDocument:
    return markdown_blocks(text_decode(data))


def markdown_blocks(source: str) -> ParsedDocument:
    """Top-level Markdown blocks under their heading path; a table becomes rows that carry its header."""
    lines = source.splitlines()
    tokens = _markdown.parse(source)
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    title = ""
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end = token.map
        if token.type == "heading_open":
            level = int(token.tag[1:])
            heading = tokens[index + 1].content.strip()
            headings = [(lvl, text) for lvl, text in headings if lvl < level] + [(level, heading)]
            title = title or heading
            continue
        path = tuple(text for _, text in headings)
        if token.type == "table_open":
            header = "\n".join(lines[start : start + 2])
            for row in lines[start + 2 : end]:
                if row.strip():
                    blocks.append(
                        Block(text=row, heading_path=path, table_header=header, table_id=start)
                    )
            continue
        blocks.append(Block(text="\n".join(lines[start:end]).strip(), heading_path=path))
    return ParsedDocument(blocks=blocks, title=title)


def parse_html(data: bytes, filename: str) -> ParsedDocument:
    import trafilatura

    html = text_decode(data)
    extracted = trafilatura.extract(
        html,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,
        favor_recall=True,
    )
    if not extracted:
        raise IngestError("no_text", "No main content could be found in this HTML page.")
    parsed = markdown_blocks(extracted)
    metadata = trafilatura.extract_metadata(html)
    if metadata is not None and metadata.title:
        parsed.title = metadata.title
    return parsed
