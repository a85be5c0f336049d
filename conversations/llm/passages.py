"""A chunk's text as quotable passages: whole sentences (pysbd) and table rows, in their order in the chunk.

The chunk's structure decides the units before any sentence segmenter runs: pipe-table lines are rows
(rendered "Column: value", contract.tables), list items and "label: value" fields (CSV rows) are
units of their own, and the other lines of a paragraph are unwrapped and segmented. A chunk cut
from the middle of a document may begin or end inside a sentence (overlaps are whole blocks, and a
PDF line or a subtitle cue is a block): such edge sentences are marked partial and never quoted.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from enum import StrEnum

import pysbd  # type: ignore[import-untyped]
from pysbd.languages import LANGUAGE_CODES  # type: ignore[import-untyped]

from conversations.contract.tables import (
    table_cells,
    table_line_is,
    table_row_render,
    table_separator_is,
)


class PassageKind(StrEnum):
    SENTENCE = "sentence"
    ROW = "row"  # a table row, rendered as phrases
    ITEM = "item"  # a list item or a "label: value" field: whole by the document's structure
    QUESTION = "question"  # a sentence ending in "?": a FAQ's question, not an answer
    LEAD_IN = "lead_in"  # a sentence ending in ":" that introduces what follows


@dataclass(frozen=True)
class Passage:
    text: str
    kind: PassageKind
    # False for a sentence cut by the chunk's edge, or with no end punctuation (a heading, a caption).
    complete: bool = True
    # False when nothing shows the sentence starts here (the chunk's edge, no punctuation before it).
    opens: bool = True

    @property
    def answerable(self) -> bool:
        """Whether this passage may be quoted as part of an answer."""
        return self.complete and self.kind in (
            PassageKind.SENTENCE,
            PassageKind.ROW,
            PassageKind.ITEM,
        )


_BULLET = re.compile(r"^\s*([-*•–]|\d{1,3}[.)])\s+\S")
_FIELD = re.compile(r"^[^\s:|][^:|]{0,40}:\s+\S")
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*$")
_OPENS_AFTER = re.compile(r"[.!?…:][\"'”’»)\]]*$")
_DEFAULT_LANGUAGE = "en"


def passages_split(
    text: str,
    *,
    language: str = _DEFAULT_LANGUAGE,
    starts_clean: bool | None = None,
    ends_clean: bool | None = None,
) -> list[Passage]:
    """The passages of one chunk's text.

    `starts_clean` / `ends_clean` say whether the chunk's first / last character is a sentence
    boundary of its document (True at the document's start and end); None means unknown, and the
    edge sentence is then judged by its own shape (a capital to open, end punctuation to close).
    """
    passages: list[Passage] = []
    header: list[str] = []
    lines = text.split("\n")
    prose: list[str] = []
    # Indexes of passages that open or close a block of prose (which a chunk's edge may cut).
    opening: set[int] = set()
    closing: set[int] = set()

    def flush() -> None:
        if prose:
            block, cuttable = _prose_passages(prose, language)
            if cuttable and block:
                opening.add(len(passages))
                closing.add(len(passages) + len(block) - 1)
            passages.extend(block)
            prose.clear()

    for index, line in enumerate(lines):
        if table_line_is(line):
            flush()
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if table_separator_is(line):
                continue
            if table_line_is(following) and table_separator_is(following):
                header = table_cells(line)
                continue
            rendered = table_row_render(header=header, cells=table_cells(line))
            if rendered:
                passages.append(Passage(rendered, PassageKind.ROW))
            continue
        if not line.strip():
            flush()
            continue
        header = []
        if _BULLET.match(line):
            flush()
        prose.append(line)
    flush()
    last = len(passages) - 1
    if passages and last in closing and ends_clean is not None:
        # At the document's end a sentence is whole even without a full stop; elsewhere the cut
        # may fall after a full stop inside a sentence ("e.g."), so an unclean end is never quoted.
        passages[last] = replace(passages[last], complete=ends_clean and passages[last].opens)
    if passages and 0 in opening:
        opens = starts_clean if starts_clean is not None else _opens_like_sentence(text)
        if not opens:
            passages[0] = replace(passages[0], complete=False, opens=False)
    return passages


def _prose_passages(lines: list[str], language: str) -> tuple[list[Passage], bool]:
    """One paragraph's passages, and whether a chunk's edge may cut them.

    Fields (CSV rows) and list items are whole lines of the document; other lines are unwrapped
    (a PDF's or a hard-wrapped Markdown file's line ends are not sentence ends) and segmented.
    """
    if len(lines) > 1 and all(_FIELD.match(line) for line in lines):
        return [passage for line in lines for passage in _field_passages(line, language)], False
    if _BULLET.match(lines[0]):
        return [Passage(" ".join(part.strip() for part in lines), PassageKind.ITEM)], False
    passages = []
    previous = ""
    for part in _segment(" ".join(line.strip() for line in lines), language):
        sentence = _sentence(part)
        if previous and not _OPENS_AFTER.search(previous):
            # The segmenter cut where no punctuation ends the text before ("… (PDF) What to do"):
            # not a sentence start the document shows.
            sentence = replace(sentence, complete=False, opens=False)
        passages.append(sentence)
        previous = part
    return passages, True


def _field_passages(line: str, language: str) -> list[Passage]:
    """A "label: value" field: its value's sentences when it is prose, else the whole field as one item."""
    label, value = (part.strip() for part in line.split(":", 1))
    sentences = [_sentence(part) for part in _segment(value, language)]
    if any(s.kind is PassageKind.QUESTION for s in sentences):
        # "I no longer have the box. Can I still return it?": all of it is the question.
        return [replace(s, kind=PassageKind.QUESTION) for s in sentences]
    if sentences and all(s.complete for s in sentences) and _opens_like_sentence(value):
        return sentences
    return [Passage(f"{label}: {value}", PassageKind.ITEM)]


def _sentence(text: str) -> Passage:
    if text.endswith("?"):
        return Passage(text, PassageKind.QUESTION)
    if text.endswith(":"):
        return Passage(text, PassageKind.LEAD_IN)
    return Passage(text, PassageKind.SENTENCE, complete=bool(_SENTENCE_END.search(text)))


def _opens_like_sentence(text: str) -> bool:
    """A capital letter or a digit before any other letter (quotes, brackets and bullets may precede)."""
    for char in text:
        if char.isalnum():
            return char.isupper() or char.isdigit()
    return False


def _segment(text: str, language: str) -> list[str]:
    return [part.strip() for part in _segmenter(language).segment(text) if part.strip()]


# A pysbd Segmenter keeps the text it works on in its attributes: one per thread and language.
_local = threading.local()


def _segmenter(language: str) -> pysbd.Segmenter:
    code = language if language in LANGUAGE_CODES else _DEFAULT_LANGUAGE
    cache: dict[str, pysbd.Segmenter] = _local.__dict__.setdefault("segmenters", {})
    if code not in cache:
        cache[code] = pysbd.Segmenter(language=code, clean=False)
    return cache[code]
