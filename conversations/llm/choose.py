"""The offline composer's choice of passages: the supporting chunks' units scored against the question.

A chunk's units and their unit-length vectors are made at ingestion (rag.passages) and read in one
query per answer: the question is embedded once and every unit scored by a dot product. A chunk
without them (ingested before, or not yet backfilled for the workspace's model) is split and
embedded now, as every chunk was before, so no answer fails and both paths choose alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from conversations.contract.quotes import text_normalize
from rag.passages.prepared import ChunkUnits, chunk_units, units_texts, vectors_normalised
from rag.passages.selectors import StoredPassages
from rag.passages.tables import table_row_named
from rag.retrieval import RetrievedChunk

Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]
# passages(chunk ids, multilingual) -> the chunks' stored passages (rag.passages.selectors).
PassagesLookup = Callable[[Sequence[str], bool], Mapping[str, StoredPassages]]


@dataclass(frozen=True)
class ChoiceTuning:
    # A passage must be this similar to the question to be quoted (the best one always is), and
    # within the margin of the best: weaker ones would pad the answer with neighbouring facts.
    sentence_similarity: float
    sentence_margin: float


def passages_choose(
    *,
    question: str,
    chunks: Sequence[RetrievedChunk],
    embed: Embed,
    tuning: ChoiceTuning,
    limit: int,
    scale: Callable[[float], float],
    across: bool = False,
    lookup: PassagesLookup | None = None,
) -> dict[str, list[str]]:
    """Per chunk, the passages chosen for the answer, in their order in the chunk.

    The best `limit` passages (by similarity, above the floor and within the margin of the best) are
    kept. A passage that follows a question in its chunk (a FAQ's answer) is as similar as that
    question when the question is closer, so a FAQ's answer wins for its own question (the passages
    of the other entries keep their own similarity). A passage two overlapping chunks share counts
    once, in the first chunk. Across languages the units are scored with the multilingual model,
    each after its document's title (as its chunk was embedded).
    """
    stored = lookup([chunk.id for chunk in chunks], across) if lookup and chunks else {}
    # Units made now for chunks without stored ones, and their texts to embed with the question.
    fresh: dict[str, ChunkUnits] = {}
    texts: list[str] = [question]
    for chunk in chunks:
        if chunk.id not in stored and chunk.id not in fresh:
            units = chunk_units(
                text=chunk.text, starts_clean=chunk.starts_clean, ends_clean=chunk.ends_clean
            )
            fresh[chunk.id] = units
            texts.extend(units_texts(units, title=chunk.title, titled=across))
    embedded = vectors_normalised(embed(texts))
    question_vector = embedded[0]
    offset = 1
    matrices: dict[str, tuple[ChunkUnits, np.ndarray]] = {}
    for chunk_id, units in fresh.items():
        rows = len(units.units) + len(units.asked)
        matrices[chunk_id] = (units, embedded[offset : offset + rows])
        offset += rows
    for chunk_id, hit in stored.items():
        matrices[chunk_id] = (hit.units, hit.vectors)

    candidates: list[tuple[str, str, str, str | None]] = []  # chunk id, text, asked, row subject
    similarity: list[float] = []
    asked_similarity: dict[str, float] = {}
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.id not in matrices:
            continue
        units, matrix = matrices[chunk.id]
        if not units.units:
            continue
        scores = matrix @ question_vector if matrix.size else np.zeros(0)
        if len(scores) != len(units.units) + len(units.asked):
            continue  # vectors of another shape than the units: not comparable
        for index, question_asked in enumerate(units.asked):
            asked_similarity[question_asked] = scale(float(scores[len(units.units) + index]))
        for index, unit in enumerate(units.units):
            key = text_normalize(unit.text)
            if key in seen:
                continue
            seen.add(key)
            candidates.append((chunk.id, unit.text, unit.asked, unit.row))
            similarity.append(scale(float(scores[index])))
    if not candidates:
        return {}
    inherited = [
        max(similarity[index], asked_similarity.get(asked, 0.0))
        for index, (_, _, asked, _) in enumerate(candidates)
    ]
    # One FAQ entry answers: the passages of another entry keep only their own similarity.
    top_asked = candidates[max(range(len(candidates)), key=lambda i: (inherited[i], -i))][2]
    scored = sorted(
        (
            (inherited[index] if asked == top_asked else similarity[index], index)
            for index, (_, _, asked, _) in enumerate(candidates)
        ),
        key=lambda pair: (-pair[0], pair[1]),
    )
    best = scored[0][0]
    floor = max(tuning.sentence_similarity, best - tuning.sentence_margin)
    kept = [scored[0][1]] + [index for score, index in scored[1:limit] if score >= floor]
    named = [
        index
        for score, index in scored
        if candidates[index][3] is not None
        and score >= floor
        and table_row_named(question=question, subject=candidates[index][3] or "")
    ]
    if len(named) == 1:
        # The one row the question names answers it alone: the other rows are other cases of the
        # same table (another country's delivery), not support for this one (issue 26).
        kept = named
    chosen: dict[str, list[str]] = {}
    for index in sorted(kept):  # candidates are in chunk order, then in document order
        chunk_id, text, _, _ = candidates[index]
        chosen.setdefault(chunk_id, []).append(text)
    return chosen
