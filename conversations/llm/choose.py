"""The offline composer's choice of passages: the supporting chunks' units ranked by the relevance estimate.

`rag.relevance` scores every unit (a sentence, a table row, a list item) of the supporting chunks against
the question: its multilingual cosine (a FAQ answer's is its question's when that is closer), its lexical
support, and its chunk's place and probability, in any language pair. The best `limit` are quoted, in
their order in the chunks. A table row the question names (in any language) answers alone when it is about
as close to the question as the best unit: the other rows of its table are other cases (another country's
delivery), not support for this one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.passages.tables import table_row_named
from rag.relevance.estimate import ChunkEstimate, UnitScore, units_ranked
from rag.retrieval import RetrievedChunk

# A table row the question names answers alone when its similarity is this close to the best unit's.
NAMED_ROW_MARGIN = 0.1
# estimate(question, question language, chunks) -> one estimate per chunk, in the order given.
Estimate = Callable[[str, str, Sequence[RetrievedChunk]], list[ChunkEstimate]]


@dataclass(frozen=True)
class Choice:
    """The quoted units by chunk id (in chunk order), and the estimates they were chosen from."""

    quotes: dict[str, list[str]]
    estimates: list[ChunkEstimate]


def passages_choose(
    *,
    question: str,
    question_language: str,
    chunks: Sequence[RetrievedChunk],
    estimate: Estimate,
    limit: int,
) -> Choice:
    """The best `limit` units of `chunks` (the most relevant first) for the question."""
    if not chunks or limit < 1:
        return Choice({}, [])
    estimates = estimate(question, question_language, chunks)
    ranked = units_ranked(estimates)
    kept: list[UnitScore] = ranked[:limit]
    best = max((unit.similarity for unit in ranked), default=0.0)
    named = [
        unit
        for unit in ranked
        if unit.row is not None
        and unit.similarity >= best - NAMED_ROW_MARGIN
        and table_row_named(question=question, subject=unit.row)
    ]
    if len(named) == 1:
        kept = named
    order = {chunk.id: place for place, chunk in enumerate(chunks)}
    quotes: dict[str, list[str]] = {}
    for unit in sorted(kept, key=lambda u: (order.get(u.chunk_id, 0), u.index)):
        quotes.setdefault(unit.chunk_id, []).append(unit.text)
    return Choice(quotes, estimates)
