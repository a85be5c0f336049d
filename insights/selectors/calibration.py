"""Evaluation sets as retrieval pairs, for the fusion calibration of the retrieval app: each case
that names expected sources becomes (question, the ids of the bot's documents it names).

rag sits below insights and cannot import it: the calibration reads these pairs through a source it
registers (or the caller passes them in); a bot without such cases gives no pairs, and the
calibration falls back to its own synthetic ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from insights.models import EvaluationCase
from rag.models import Document


@dataclass(frozen=True)
class RetrievalPair:
    question: str
    document_ids: tuple[str, ...]


def evaluation_retrieval_pairs(*, bot_id: Any) -> list[RetrievalPair]:
    names: dict[str, set[str]] = {}
    for pk, title, filename in Document.objects.filter(
        bots=bot_id, status=Document.Status.READY
    ).values_list("pk", "title", "filename"):
        for name in (title, filename):
            names.setdefault(name.casefold(), set()).add(str(pk))
    pairs = []
    for question, sources in (
        EvaluationCase.objects.filter(evaluation_set__bot_id=bot_id)
        .exclude(expected_sources=[])
        .values_list("question", "expected_sources")
    ):
        ids = sorted({pk for source in sources for pk in names.get(source.casefold(), ())})
        if ids:
            pairs.append(RetrievalPair(question=question, document_ids=tuple(ids)))
    return pairs
