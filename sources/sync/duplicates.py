"""The same text under several URLs: an exact hash of the normalised text, and for near-copies (a page
whose only difference is a date or a breadcrumb) a bottom-k MinHash sketch of its word shingles, whose
estimated Jaccard similarity against the source's other pages decides.

Bottom-k keeps the k smallest hashes of the shingle set: one hash per shingle (not k), and the estimate
is exact when a page has fewer than k shingles. A page of a few thousand words costs well under a
millisecond; a comparison is a merge of two 64-integer lists."""

from __future__ import annotations

import hashlib

SKETCH_SIZE = 64
SHINGLE_WORDS = 5


def text_normal(text: str) -> str:
    """Case and spacing folded: what two copies of a page share whatever their layout."""
    return " ".join(text.casefold().split())


def text_hash(text: str) -> str:
    return hashlib.sha256(text_normal(text).encode()).hexdigest()


def text_sketch(text: str) -> list[int]:
    words = text_normal(text).split()
    if not words:
        return []
    width = min(SHINGLE_WORDS, len(words))
    shingles = {" ".join(words[i : i + width]) for i in range(len(words) - width + 1)}
    hashes = {
        int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "big") >> 1
        for s in shingles
    }
    return sorted(hashes)[:SKETCH_SIZE]


def sketch_similarity(first: list[int], second: list[int]) -> float:
    """The estimated Jaccard similarity of two pages' shingle sets, from their bottom-k sketches."""
    if not first or not second:
        return 0.0
    a, b = set(first), set(second)
    union = sorted(a | b)[:SKETCH_SIZE]
    shared = sum(1 for value in union if value in a and value in b)
    return shared / len(union)


def near_copy_of(sketch: list[int], others: dict[str, list[int]], *, threshold: float) -> str:
    """The URL of the first other page this sketch nearly copies, or ""."""
    for url, other in others.items():
        if sketch_similarity(sketch, other) >= threshold:
            return url
    return ""
