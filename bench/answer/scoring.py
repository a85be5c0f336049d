"""How an answer is scored: does the text a visitor reads hold a gold span, and how many sentences long is it.

Both sides (Parley's answer and the reference's) are scored by these same functions.
"""

from __future__ import annotations

import functools
import statistics
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass


def normalised(text: str) -> str:
    """Case folded, punctuation turned into spaces, spaces collapsed (SQuAD's normalisation, less its
    English article removal, which would not hold in French, German or Spanish)."""
    folded = "".join(
        " " if unicodedata.category(char).startswith(("P", "S")) else char
        for char in unicodedata.normalize("NFC", text.casefold())
    )
    return " ".join(folded.split())


def holds_span(answer: str, spans: Sequence[str]) -> bool:
    """Whether the answer holds one of the gold spans (as whole words)."""
    haystack = f" {normalised(answer)} "
    return any(f" {normalised(span)} " in haystack for span in spans if normalised(span))


@functools.lru_cache(maxsize=8)
def _segmenter(language: str):  # type: ignore[no-untyped-def]
    import pysbd  # type: ignore[import-untyped]

    return pysbd.Segmenter(language=language if language in ("en", "fr", "de", "es") else "en")


_QUOTES = str.maketrans(dict.fromkeys('«»“”„"', " "))


def sentences(text: str, language: str) -> list[str]:
    """The text's sentences (quotation marks out first: a frame that quotes three sentences in
    another language is three sentences, not one)."""
    plain = text.translate(_QUOTES)
    return [part.strip() for part in _segmenter(language).segment(plain) if part.strip()]


@dataclass
class Tally:
    """One row of the bench's table: a side's answers to one set's questions."""

    answerable: int = 0
    held: int = 0
    refused: int = 0
    unanswerable: int = 0
    declined: int = 0
    lengths: list[int] | None = None

    def answered(self, *, text: str, found: bool, spans: Sequence[str], language: str) -> None:
        self.answerable += 1
        if not found:
            self.refused += 1
            return
        self.held += holds_span(text, spans) if spans else 0
        self.lengths = [*(self.lengths or []), len(sentences(text, language))]

    def unanswerable_seen(self, *, found: bool) -> None:
        self.unanswerable += 1
        self.declined += not found

    def cells(self, *, spans: bool) -> list[str]:
        def share(part: int, whole: int) -> str:
            return f"{part / whole:.3f}" if whole else "-"

        median = f"{statistics.median(self.lengths):g}" if self.lengths else "-"
        return [
            share(self.held, self.answerable) if spans else "-",
            share(self.refused, self.answerable),
            share(self.declined, self.unanswerable),
            median,
        ]
