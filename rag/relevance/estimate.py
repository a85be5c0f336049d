"""The relevance estimate on plain data: a question against retrieved chunks and their units.

`chunks_estimate` gives each chunk the probability that it is about what the question asks (the passage
model) and scores each of its units (the unit model); `units_ranked` orders every candidate unit, best
first, for whoever quotes or checks sentences. Inputs are texts, languages and unit-length multilingual
vectors: no database and no model call here (`rag.relevance.service` gathers them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rag.passages.prepared import ChunkUnits
from rag.relevance.lexical import (
    anchor_support,
    asks_quantity,
    question_wording,
    states_quantity,
    term_support,
    wording,
)
from rag.relevance.model import weights_load

Scale = Callable[[float], float]


@dataclass(frozen=True)
class ChunkInput:
    chunk_id: str
    text: str
    title: str
    units: ChunkUnits
    # Unit-length multilingual rows: the units, then the questions they answer (`units.asked`).
    vectors: np.ndarray
    # The idf-weighted share of the question's lexemes the chunk holds (rag.relevance.service); None:
    # unknown (a chunk with no row), read as the unweighted share of its content words.
    rare_terms: float | None = None
    sides_agree: bool = False  # two of retrieval's sides rank it among their first


@dataclass(frozen=True)
class UnitScore:
    chunk_id: str
    index: int  # the unit's place in its chunk
    text: str
    similarity: (
        float  # the question's multilingual cosine (a FAQ answer's: its question's, if closer)
    )
    score: float  # the unit model's logit: higher answers better
    row: str | None = None  # a table row's subject (its first cell)


@dataclass(frozen=True)
class ChunkEstimate:
    chunk_id: str
    probability: float  # that the chunk is about what the question asks
    language: str
    units: tuple[UnitScore, ...]


def _unit_similarities(
    chunk: ChunkInput, question_vector: np.ndarray, scale: Scale | None
) -> np.ndarray:
    """Each unit's cosine to the question; a FAQ answer's is its question's when that is closer."""
    count = len(chunk.units.units)
    rows = count + len(chunk.units.asked)
    if not count or chunk.vectors.ndim != 2 or chunk.vectors.shape[0] != rows:
        return np.zeros(0, dtype=np.float32)
    if chunk.vectors.shape[1] != question_vector.shape[0]:
        return np.zeros(0, dtype=np.float32)
    scores = chunk.vectors @ question_vector
    if scale is not None:
        scores = np.asarray([scale(float(value)) for value in scores], dtype=np.float32)
    asked = {text: float(scores[count + i]) for i, text in enumerate(chunk.units.asked)}
    own: np.ndarray = scores[:count].astype(np.float32)
    for index, unit in enumerate(chunk.units.units):
        if unit.asked in asked:
            own[index] = max(own[index], asked[unit.asked])
    return own


@dataclass(frozen=True)
class ChunkFeatures:
    """What the models read of one chunk: the passage model's features, and each unit's (its chunk's
    probability left out: `UNIT_PROBABILITY_AT` is where it goes)."""

    chunk_id: str
    language: str
    passage: tuple[float, ...]
    units: tuple[
        tuple[int, str, float, tuple[float, ...]], ...
    ]  # index, text, similarity, features


UNIT_PROBABILITY_AT = 4  # UNIT_FEATURES' "chunk_probability"
POOL_MIN = 5  # chunks a pool needs for its typical similarity to mean anything


def chunks_features(
    *,
    question: str,
    question_language: str,
    question_vector: np.ndarray,
    chunks: Sequence[ChunkInput],
    scale: Scale | None = None,
    units: bool = True,
) -> list[ChunkFeatures]:
    """`scale`: maps the vectors' cosines onto the multilingual model's (vectors of another model).
    `units` False: the passage features alone (retrieval reads only the chunks' probabilities)."""
    asked = question_wording(question, question_language)
    quantity = asks_quantity(question)
    similarities = [_unit_similarities(chunk, question_vector, scale) for chunk in chunks]
    bests = [float(s.max()) for s in similarities if s.size]
    best_overall = max(bests, default=0.0)
    # The pool's typical best: what an unrelated chunk of this workspace reaches for this question.
    typical = float(np.median(bests)) if len(bests) >= POOL_MIN else None
    found: list[ChunkFeatures] = []
    for place, (chunk, sims) in enumerate(zip(chunks, similarities, strict=True), start=1):
        language = chunk.units.language or question_language
        same = question_language == language
        passage = wording(f"{chunk.title} {chunk.text}", language)
        best = float(sims.max()) if sims.size else 0.0
        terms = term_support(asked, passage) if same else 0.0
        passage_features = (
            best,
            best - float(np.median(sims)) if sims.size else 0.0,
            terms,
            chunk.rare_terms if chunk.rare_terms is not None else terms,
            float(same),
            float(same) * best,
            best - typical if typical is not None else 0.0,
            float(chunk.sides_agree),
        )
        found_units = []
        scored = zip(chunk.units.units, sims, strict=False) if units else ()
        for index, (unit, similarity) in enumerate(scored):
            unit_words = wording(unit.text, language)
            features = (
                float(similarity),
                float(similarity) - best_overall,
                term_support(asked, unit_words) if same else 0.0,
                anchor_support(asked, unit_words) if asked.anchors else 0.0,
                1.0 / place,
                float(same),
                float(quantity and states_quantity(unit.text)),
            )
            found_units.append((index, unit.text, float(similarity), features))
        found.append(ChunkFeatures(chunk.chunk_id, language, passage_features, tuple(found_units)))
    return found


def chunks_probability(
    *,
    question: str,
    question_language: str,
    question_vector: np.ndarray,
    chunks: Sequence[ChunkInput],
    scale: Scale | None = None,
) -> dict[str, float]:
    """Each chunk's probability by its id, without scoring its units (what retrieval reads)."""
    passage = weights_load().passage
    return {
        found.chunk_id: passage.probability(found.passage)
        for found in chunks_features(
            question=question,
            question_language=question_language,
            question_vector=question_vector,
            chunks=chunks,
            scale=scale,
            units=False,
        )
    }


def unit_features_with(features: tuple[float, ...], probability: float) -> tuple[float, ...]:
    return (*features[:UNIT_PROBABILITY_AT], probability, *features[UNIT_PROBABILITY_AT:])


def chunks_estimate(
    *,
    question: str,
    question_language: str,
    question_vector: np.ndarray,
    chunks: Sequence[ChunkInput],
    scale: Scale | None = None,
    probabilities: Mapping[str, float] | None = None,
) -> list[ChunkEstimate]:
    """Each chunk's probability and its units' scores, in the order given. `probabilities`: the chunks'
    probabilities as retrieval estimated them over its whole pool (the pool-relative feature is lost
    on a few chunks alone); without them, estimated on `chunks`."""
    weights = weights_load()
    estimates = []
    features_found = chunks_features(
        question=question,
        question_language=question_language,
        question_vector=question_vector,
        chunks=chunks,
        scale=scale,
    )
    for chunk, found in zip(chunks, features_found, strict=True):
        probability = (
            probabilities[found.chunk_id]
            if probabilities is not None and found.chunk_id in probabilities
            else weights.passage.probability(found.passage)
        )
        units = tuple(
            UnitScore(
                chunk_id=found.chunk_id,
                index=index,
                text=text,
                similarity=similarity,
                score=weights.unit.logit(unit_features_with(features, probability)),
                row=chunk.units.units[index].row,
            )
            for index, text, similarity, features in found.units
        )
        estimates.append(ChunkEstimate(found.chunk_id, probability, found.language, units))
    return estimates


def units_ranked(estimates: Sequence[ChunkEstimate]) -> list[UnitScore]:
    """Every candidate unit, best first; a text two chunks share counts once (its first chunk's)."""
    seen: set[str] = set()
    ranked: list[UnitScore] = []
    for estimate in estimates:
        for unit in estimate.units:
            key = " ".join(unit.text.split()).casefold()
            if key not in seen:
                seen.add(key)
                ranked.append(unit)
    return sorted(ranked, key=lambda unit: -unit.score)
