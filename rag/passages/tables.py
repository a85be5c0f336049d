"""Pipe tables in chunk text (Markdown, and the HTML/DOCX tables the parsers write the same way), read as rows.

A row reads as one plain sentence: its first cell, then the other values, a bare number or range
followed by its column's name ("Belgium and Luxembourg: Lumen courier, 3 to 4 working days, free.").
The offline provider quotes rows in that form, and quote verification accepts it, so a quoted row is
never raw pipes (the bot's "plain sentences" rule) yet still checks against its chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SEPARATOR_CELL = re.compile(r"^:?-{2,}:?$")
# A value that says nothing without its column: a number, or a range of two ("3 to 4", "2-3").
_WORDS = re.compile(r"\w+")
_BARE_NUMBER = re.compile(r"^\d[\d.,\s]*(?:(?:to|-|–|or|and)\s*\d[\d.,]*)?$", re.IGNORECASE)


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
    """One row as a sentence: "First cell: value, value." A bare number takes its column's name
    ("3 to 4 working days"); empty cells are left out. A one-cell row is that cell."""
    phrases = []
    for index, value in enumerate(cells):
        if not value:
            continue
        column = header[index] if index < len(header) else ""
        if index > 0 and column and _BARE_NUMBER.match(value):
            value = f"{value} {column if column.isupper() else column.lower()}"
        phrases.append(value)
    if not phrases:
        return ""
    first, rest = phrases[0], phrases[1:]
    sentence = f"{first}: {', '.join(rest)}" if rest else first
    return sentence if sentence.endswith((".", "!", "?")) else sentence + "."


NAMED_PREFIX = 5


def table_row_named(*, question: str, subject: str) -> bool:
    """Whether a question names a table row's subject (its first cell): a word of it of four letters
    or more (not "and", "de") among the question's words, case-folded, or one whose first five letters
    begin one of them (a name in the question's language: "batterie" names "Battery", "Belgique"
    names "Belgium"). "Do you deliver to Belgium?" names "Belgium and Luxembourg"; "How much does
    delivery cost?" names no row."""
    words = set(_WORDS.findall(question.casefold()))
    starts = {word[:NAMED_PREFIX] for word in words if len(word) >= NAMED_PREFIX}
    return any(
        len(word) >= 4 and (word in words or word[:NAMED_PREFIX] in starts)
        for word in _WORDS.findall(subject.casefold())
    )


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
