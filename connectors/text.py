"""Text as platforms take it: a message over the platform's length limit split at sentence boundaries
(pysbd), and an e-mail's quoted earlier mail cut from the question."""

from __future__ import annotations

import re

import pysbd  # type: ignore[import-untyped]  # pysbd ships no type hints
from pysbd.languages import LANGUAGE_CODES  # type: ignore[import-untyped]  # pysbd ships no type hints


def text_split(text: str, *, limit: int, language: str = "en") -> list[str]:
    """Pieces of at most ``limit`` characters, cut between sentences; a sentence longer than the limit
    alone is cut between words (between characters for a word longer than the limit)."""
    if len(text) <= limit:
        return [text]
    segmenter = pysbd.Segmenter(
        language=language if language in LANGUAGE_CODES else "en", clean=False, char_span=False
    )
    pieces: list[str] = []
    current = ""
    for sentence in segmenter.segment(text):
        for part in _fit(sentence, limit=limit):
            if current and len(current) + len(part) > limit:
                pieces.append(current.rstrip())
                current = ""
            current += part
    if current.strip():
        pieces.append(current.rstrip())
    return [piece for piece in pieces if piece]


def _fit(sentence: str, *, limit: int) -> list[str]:
    if len(sentence) <= limit:
        return [sentence]
    parts: list[str] = []
    current = ""
    for word in re.findall(r"\S+\s*", sentence):
        while len(word) > limit:
            if current:
                parts.append(current)
                current = ""
            parts.append(word[:limit])
            word = word[limit:]
        if len(current) + len(word) > limit:
            parts.append(current)
            current = ""
        current += word
    if current:
        parts.append(current)
    return parts


# Where the quoted earlier mail starts in a reply (the common clients' attribution lines).
_QUOTE_HEADERS = [
    re.compile(r"^\s*On\b.{0,300}\bwrote:\s*$", re.IGNORECASE | re.DOTALL),  # Gmail, Apple Mail
    re.compile(r"^\s*Le\b.{0,300}\ba écrit\s*:\s*$", re.IGNORECASE | re.DOTALL),
    re.compile(r"^\s*Am\b.{0,300}\bschrieb\b.{0,100}:\s*$", re.IGNORECASE | re.DOTALL),
    re.compile(r"^\s*-{2,}\s*Original Message\s*-{2,}\s*$", re.IGNORECASE),  # Outlook
    re.compile(r"^\s*_{10,}\s*$"),  # Outlook's rule before From:/Sent:
    re.compile(r"^\s*From:\s.+$", re.IGNORECASE),  # Outlook's header block
]


def email_reply_strip(text: str) -> str:
    """The new part of an e-mail: what comes before the quoted earlier mail (an attribution line,
    ``>`` lines) and before a ``-- `` signature; the whole text when that would leave nothing."""
    lines = text.replace("\r\n", "\n").split("\n")
    kept: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith(">") or line == "-- ":
            break
        # An attribution line may wrap onto the next one ("On Mon, ... <a@b>\nwrote:").
        joined = f"{line} {lines[index + 1]}" if index + 1 < len(lines) else line
        if any(p.match(line) for p in _QUOTE_HEADERS) or (
            _QUOTE_HEADERS[0].match(joined) and lines[index + 1].strip().endswith("wrote:")
        ):
            break
        kept.append(line)
    stripped = "\n".join(kept).strip()
    return stripped or text.strip()
