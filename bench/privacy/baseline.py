"""The baseline: a naive regex redactor as one would write it in an afternoon (no checksum, no
numbering plan), the same order and overlap rule as Parley's."""

from __future__ import annotations

import re

_PATTERNS = [
    ("email", re.compile(r"\S+@\S+\.\w+")),
    ("iban", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")),
    ("card", re.compile(r"\b(?:\d[ -]?){12,18}\d\b")),
    ("phone", re.compile(r"(?:\+|\b)\d[\d ().-]{7,}\d\b")),
]


def naive_find(text: str) -> list[tuple[int, int, str]]:
    taken: list[tuple[int, int, str]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if not any(start < e and s < end for s, e, _ in taken):
                taken.append((start, end, kind))
    return sorted(taken)
