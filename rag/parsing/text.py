"""Plain text, Markdown (heading-aware, tables kept with their header) and HTML (main content via trafilatura)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from rag.errors import IngestError
from rag.parsing.blocks import Block, ParsedDocument
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
    heading_first = ""
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end = token.map
        if token.type == "heading_open":
            level = int(token.tag[1:])
            heading = tokens[index + 1].content.strip()
            headings = [(lvl, text) for lvl, text in headings if lvl < level] + [(level, heading)]
            heading_first = heading_first or heading
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
    return ParsedDocument(blocks=blocks, heading=heading_first)


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
    # The page's own <h1> and <title>, read from the page: the extracted article often drops its h1.
    parsed.heading, parsed.own_title = _html_heading_and_title(html)
    return parsed


class _HeadingAndTitle(HTMLParser):
    """Collects the text of the page's first non-empty <h1> and of its <title>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.heading = ""
        self.title = ""
        self._inside: str = ""
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "title") and not self._inside:
            self._inside, self._text = tag, []

    def handle_endtag(self, tag: str) -> None:
        if tag != self._inside:
            return
        text = " ".join("".join(self._text).split())
        if tag == "h1":
            self.heading = self.heading or text
        else:
            self.title = self.title or text
        self._inside = ""

    def handle_data(self, data: str) -> None:
        if self._inside:
            self._text.append(data)


def _html_heading_and_title(html: str) -> tuple[str, str]:
    """The text of the page's first non-empty <h1>, and of its <title>."""
    found = _HeadingAndTitle()
    found.feed(html)
    found.close()
    return found.heading, found.title
