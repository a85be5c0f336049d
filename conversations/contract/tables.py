"""Pipe tables in chunk text (Markdown, and the HTML/DOCX tables the parsers write the same way), read as rows.

A row reads as "Column: value" phrases under its table's header. The offline provider quotes rows in
that form, and quote verification accepts it, so a quoted row is never raw pipes yet still checks
against its chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SEPARATOR_CELL = re.compile(r"^:?-{2,}:?$")


def table_line_is(line: str) -> bool:
    """True for a line of a pipe table: it starts with a pipe and holds at least one more."""
    stripped = line.strip()
    return stripped.startswith("|") and stripped.count("|") >= 2


def table_cells(line: str) -> list[str]:
    stripped = line.strip()
    inner = stripped[1:-1] if stripped.endswith("|") else stripped[1:]
    return [cell.strip() for cell in inner.split("|")]


def table_separator_is(line: str) -> bool:
    """The |---|:---:| line under a Markdown header."""
    cells = [cell for cell in table_cells(line) if cell]
    return bool(cells) and all(_SEPARATOR_CELL.match(cell) for cell in cells)


def table_row_render(*, header: Sequence[str], cells: Sequence[str]) -> str:
    """One row as "Column: value; Column: value." (empty cells left out; bare values without a header)."""
    phrases = []
    for index, value in enumerate(cells):
        if not value:
            continue
        column = header[index] if index < len(header) else ""
        phrases.append(f"{column}: {value}" if column else value)
    return "; ".join(phrases) + "." if phrases else ""


def tables_render(text: str) -> str:
    """`text` with each table's header and separator lines dropped and each row rendered as phrases.

    A header is a table line directly above a separator line; it names the columns of the rows below
    it until a line of prose (blank lines between rows, as Markdown paragraphs leave them, keep it).
    """
    lines = text.split("\n")
    out: list[str] = []
    header: list[str] = []
    for index, line in enumerate(lines):
        if not table_line_is(line):
            if line.strip():
                header = []
            out.append(line)
            continue
        if table_separator_is(line):
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if table_line_is(following) and table_separator_is(following):
            header = table_cells(line)
            continue
        out.append(table_row_render(header=header, cells=table_cells(line)))
    return "\n".join(out)
