"""A chunk's quotable units and their vectors, as the offline composer scores them: made once per chunk.

A unit is an answerable passage (a whole sentence, a table row written as a sentence, a list item or a
field), with the FAQ question it follows ("" for none) and, for a table row, its subject (first cell).
Its vectors are unit-length float32 rows: the units, then the distinct questions, so the composer's
similarity is one matrix-vector product. The multilingual rows embed each unit after its document's
title (a table row alone loses what it is about), as the chunk itself was embedded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rag.passages.split import PassageKind, passages_split
from textmodels.language import language_detect

# Passages of one chunk the composer considers, in chunk order: bounds its cost and a long chunk's.
PASSAGES_PER_CHUNK = 40

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]


@dataclass(frozen=True)
class PassageUnit:
    text: str
    asked: str = ""  # the FAQ question this passage answers ("" for none)
    row: str | None = None  # a table row's subject (its first cell); None for other passages


@dataclass(frozen=True)
class ChunkUnits:
    language: str
    units: tuple[PassageUnit, ...]
    asked: tuple[str, ...]  # the distinct questions the units answer, in order


def chunk_units(
    *,
    text: str,
    starts_clean: bool | None = None,
    ends_clean: bool | None = None,
    limit: int = PASSAGES_PER_CHUNK,
) -> ChunkUnits:
    """The chunk's answerable units among its first `limit` passages (bounded for any text)."""
    language = language_detect(text)
    passages = passages_split(
        text,
        language=language or "en",
        starts_clean=starts_clean,
        ends_clean=ends_clean,
        limit=limit,
    )
    units: list[PassageUnit] = []
    asked, asking = "", False
    for passage in passages:
        if passage.kind is PassageKind.QUESTION:
            # A question over several sentences ("I lost the box. Can I return it?") is one question.
            asked, asking = (f"{asked} {passage.text}" if asking else passage.text), True
            continue
        asking = False
        if passage.answerable:
            row = passage.text.partition(":")[0] if passage.kind is PassageKind.ROW else None
            units.append(PassageUnit(text=passage.text, asked=asked, row=row))
    questions = tuple(dict.fromkeys(unit.asked for unit in units if unit.asked))
    return ChunkUnits(language=language, units=tuple(units), asked=questions)


def units_texts(units: ChunkUnits, *, title: str = "", titled: bool = False) -> list[str]:
    """What is embedded for the chunk's rows: each unit (after the title when `titled`), then each question."""
    texts = [f"{title}: {u.text}" if titled and title else u.text for u in units.units]
    return [*texts, *units.asked]


def vectors_normalised(vectors: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """Unit-length float32 rows (a zero vector stays zero): a dot product is then the cosine."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        return matrix.reshape(0, 0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def vectors_pack(vectors: Sequence[Sequence[float]] | np.ndarray) -> bytes:
    return vectors_normalised(vectors).astype("<f4").tobytes()


def vectors_unpack(data: bytes | memoryview, *, rows: int) -> np.ndarray | None:
    """The stored matrix, or None when its size does not fit `rows` (a truncated or foreign value)."""
    flat = np.frombuffer(bytes(data), dtype="<f4")
    if rows == 0 or flat.size == 0 or flat.size % rows:
        return None
    return flat.reshape(rows, flat.size // rows)
