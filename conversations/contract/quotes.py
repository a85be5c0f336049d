"""Quote verification: a sentence the LLM says it used must really be in its chunk.

Both sides are compared after Unicode normalisation, case folding, typographic-quote
folding and whitespace collapsing, so layout differences never count as a misquote. A table row
may be quoted as its "Column: value" phrases (rag.passages.tables), the form the offline provider uses.
"""

from __future__ import annotations

import re
import unicodedata

from rag.passages.tables import tables_render

_TYPOGRAPHIC = str.maketrans(
    {
        "’": "'",
        "‘": "'",
        "ʼ": "'",
        "“": '"',
        "”": '"',
        "«": '"',
        "»": '"',
        "–": "-",
        "—": "-",
        "\u00a0": " ",
    }
)
_SPACES = re.compile(r"\s+")
# Surrounding quotes and ellipses the LLM adds around a quote are not part of it.
_EDGES = "\"' .…"


def text_normalize(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHIC).casefold()
    return _SPACES.sub(" ", folded).strip()


def quote_normalize(quote: str) -> str:
    return text_normalize(quote).strip(_EDGES)


def quote_in_text(*, quote: str, text: str) -> bool:
    """True when `quote` (normalised) appears in `text` (normalised); an empty quote never does."""
    needle = quote_normalize(quote)
    if not needle:
        return False
    if needle in text_normalize(text):
        return True
    return "|" in text and needle in text_normalize(tables_render(text))
