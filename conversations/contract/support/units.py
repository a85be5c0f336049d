"""The passages an answer is checked against, and each sentence's best supporting units among them: the
multilingual cosine with the unit vectors made at ingestion, or in the same language the unit's share
of the sentence's content words (`rag.relevance.lexical`), whichever is higher."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rag.relevance.lexical import question_wording, term_support, wording

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class SupportPassage:
    """A passage given to the model: a chunk's text, its language and its units with their vectors
    (unit-length rows, one per unit; empty when none were made)."""

    chunk_id: str
    text: str
    language: str
    units: tuple[str, ...] = ()
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    cited: bool = False


@dataclass(frozen=True)
class Unit:
    text: str
    language: str
    score: float


def sentences_units_ranked(
    sentences: Sequence[str],
    language: str,
    passages: Sequence[SupportPassage],
    embed: Embed | None,
) -> list[list[Unit]]:
    """Per sentence, the passages' units by their support of it, best first: the multilingual cosine
    or, in the same language, the unit's share of the sentence's content words, whichever is higher."""
    units = [(p, unit, row) for p in passages for row, unit in enumerate(p.units or (p.text,))]
    cosines = np.zeros((len(sentences), len(units)), dtype=np.float32)
    if embed is not None and units:
        vectors = _vectors(sentences, embed)
        for column, (passage, _unit, row) in enumerate(units):
            if (
                passage.vectors.ndim == 2
                and row < passage.vectors.shape[0]
                and vectors.size
                and passage.vectors.shape[1] == vectors.shape[1]
            ):
                cosines[:, column] = vectors @ passage.vectors[row]
    ranked = []
    for place, sentence in enumerate(sentences):
        asked = question_wording(sentence, language)
        scored = []
        for column, (passage, unit, _row) in enumerate(units):
            lexical = (
                term_support(asked, wording(unit, passage.language))
                if passage.language == language
                else 0.0
            )
            scored.append(Unit(unit, passage.language, max(float(cosines[place, column]), lexical)))
        ranked.append(sorted(scored, key=lambda unit: -unit.score))
    return ranked


def _vectors(sentences: Sequence[str], embed: Embed) -> np.ndarray:
    try:
        vectors = np.asarray(embed(list(sentences)), dtype=np.float32)
    except Exception:
        return np.zeros((0, 0), dtype=np.float32)
    if vectors.ndim != 2:
        return np.zeros((0, 0), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
