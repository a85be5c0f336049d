"""The offline composer's choice of passages: the supporting chunks' units ranked by the relevance estimate.

`rag.relevance` scores every unit (a sentence, a table row, a list item) of the supporting chunks against
the question: its multilingual cosine (a FAQ answer's is its question's when that is closer), its lexical
support, and its chunk's place and probability, in any language pair. The best `limit` are quoted, in
their order in the chunks. A table row the question names answers alone: the other rows of its table are
other cases (another country's delivery), not support for this one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.passages.tables import table_row_named
from rag.relevance.estimate import ChunkEstimate, UnitScore, units_ranked
from rag.retrieval import RetrievedChunk

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
    """The best `limit` units of `chunks` (given in retrieval order) for the question."""
    if not chunks or limit < 1:
        return Choice({}, [])
    estimates = estimate(question, question_language, chunks)
    ranked = units_ranked(estimates)
    kept: list[UnitScore] = ranked[:limit]
    rows = _table_rows(estimates)
    named = [
        unit
        for unit in ranked[: max(limit, 1) * 3]
        if (unit.chunk_id, unit.index) in rows
        and table_row_named(question=question, subject=rows[(unit.chunk_id, unit.index)])
    ]
    if len(named) == 1:
        kept = named
    order = {chunk.id: place for place, chunk in enumerate(chunks)}
    quotes: dict[str, list[str]] = {}
    for unit in sorted(kept, key=lambda u: (order.get(u.chunk_id, 0), u.index)):
        quotes.setdefault(unit.chunk_id, []).append(unit.text)
    return Choice(quotes, estimates)


def _table_rows(estimates: Sequence[ChunkEstimate]) -> dict[tuple[str, int], str]:
    """(chunk id, unit index) -> the row's subject, for the units that are table rows."""
    return {
        (estimate.chunk_id, unit.index): unit.row
        for estimate in estimates
        for unit in estimate.units
        if unit.row is not None
    }
