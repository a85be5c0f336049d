"""A chunk's text as quotable passages: whole sentences (pysbd) and table rows, in their order in the chunk.

The chunk's structure decides the units before any sentence segmenter runs: pipe-table lines are rows
(rendered "Column: value", rag.passages.tables), list items and "label: value" fields (CSV rows) are
units of their own, and the other lines of a paragraph are unwrapped and segmented. A chunk cut
from the middle of a document may begin or end inside a sentence (overlaps are whole blocks, and a
PDF line or a subtitle cue is a block): such edge sentences are marked partial and never quoted.
With a `limit`, a long chunk (thousands of sentences, or a block with no sentence boundary at all) is
segmented window by window only as far as the limit needs: pysbd's time grows faster than the text.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from enum import StrEnum

import pysbd  # type: ignore[import-untyped]  # pysbd ships no type hints
from pysbd.languages import LANGUAGE_CODES  # type: ignore[import-untyped]  # pysbd ships no type hints

from rag.passages.tables import (
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
# Characters pysbd segments at once when a limit is set: pysbd's time grows faster than the text's
# length (docs/decisions/passages-at-ingestion.md).
_WINDOW = 3000


def passages_split(
    text: str,
    *,
    language: str = _DEFAULT_LANGUAGE,
    starts_clean: bool | None = None,
    ends_clean: bool | None = None,
    limit: int | None = None,
) -> list[Passage]:
    """The passages of one chunk's text (the first `limit` of them, at a bounded cost, when set).

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
            room = None if limit is None else max(1, limit - len(passages))
            block, cuttable = _prose_passages(prose, language, room)
            if cuttable and block:
                opening.add(len(passages))
                closing.add(len(passages) + len(block) - 1)
            passages.extend(block)
            prose.clear()

    for index, line in enumerate(lines):
        if limit is not None and len(passages) >= limit:
            prose.clear()
            break
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
    if limit is not None and len(passages) > limit:
        del passages[limit:]
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


def _prose_passages(
    lines: list[str], language: str, limit: int | None = None
) -> tuple[list[Passage], bool]:
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
    parts, cut = _segment_bounded(" ".join(line.strip() for line in lines), language, limit)
    for number, part in enumerate(parts):
        sentence = _sentence(part)
        if cut and number == len(parts) - 1:
            sentence = replace(sentence, complete=False)  # the window ended inside it
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


def _segment_bounded(text: str, language: str, limit: int | None) -> tuple[list[str], bool]:
    """The first `limit` sentences of `text` (all without a limit), segmented a window at a time; and
    whether the last one was cut by a window rather than ended by the text."""
    if limit is None or len(text) <= _WINDOW:
        return _segment(text, language), False
    parts: list[str] = []
    start = 0
    while len(parts) < limit:
        window = text[start : start + _WINDOW]
        pieces = _segment(window, language)
        if start + _WINDOW >= len(text):
            return parts + pieces, False
        resume = window.rfind(pieces[-1]) if len(pieces) > 1 else -1
        if resume <= 0:
            # No boundary in a whole window (a code block, a headerless table): one cut passage.
            return parts + pieces, True
        parts.extend(pieces[:-1])  # the last piece may run on past the window: segmented again
        start += resume
    return parts[:limit], False


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
