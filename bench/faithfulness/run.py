"""The bench's run: each case's passages prepared as ingestion prepares them (units, multilingual
vectors), then the check timed on the correct answer and on each changed one, and on the offline
provider's answer to the same question (the control)."""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from bench.faithfulness.generate import AnswerCase

SIBLINGS = 2  # other paragraphs of the gold paragraph's article given to the model beside it


@dataclass
class Tally:
    caught: dict[tuple[str, str], list[bool]] = field(default_factory=lambda: defaultdict(list))
    cut: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    control: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    latency_ms: list[float] = field(default_factory=list)
    supports: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # The gold sentence's best support among another article's passages (what no support looks like).
    unrelated: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    wrongly_cut: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


def passages_prepare(documents: dict[str, tuple[str, str]], language: str):  # type: ignore[no-untyped-def]
    """Per document id, its SupportPassage as the product has it after ingestion."""
    from conversations.contract.support.check import SupportPassage
    from rag.passages.prepared import chunk_units, units_texts, vectors_normalised
    from textmodels.embeddings import MULTI_MODEL_ID, embed_texts

    prepared = {}
    for doc_id, (title, text) in documents.items():
        units = chunk_units(text=text, starts_clean=True, ends_clean=True)
        texts = units_texts(units, title=title, titled=True)
        vectors = vectors_normalised(embed_texts(texts, model_id=MULTI_MODEL_ID)) if texts else None
        count = len(units.units)
        prepared[doc_id] = SupportPassage(
            chunk_id=doc_id,
            text=text,
            language=units.language or language,
            units=tuple(unit.text for unit in units.units),
            vectors=vectors[:count] if vectors is not None else np.zeros((0, 0), np.float32),
        )
    return prepared


def embedder():  # type: ignore[no-untyped-def]
    from textmodels.embeddings import MULTI_MODEL_ID, embed_texts

    def embed(texts):  # type: ignore[no-untyped-def]
        return np.asarray(embed_texts(list(texts), model_id=MULTI_MODEL_ID), dtype=np.float32)

    return embed


def siblings(doc_id: str, all_ids: Iterable[str]) -> list[str]:
    article = doc_id.rsplit("-", 1)[0]
    others = sorted(i for i in all_ids if i != doc_id and i.rsplit("-", 1)[0] == article)
    return [doc_id, *others[:SIBLINGS]]


def case_run(
    case: AnswerCase, passages, embed, tally: Tally, *, control_answer: str | None
) -> None:  # type: ignore[no-untyped-def]
    from conversations.contract.support.check import answer_check

    def timed(answer: str):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        verdicts = answer_check(
            answer=answer, language=case.language, passages=passages, embed=embed
        )
        tally.latency_ms.append((time.perf_counter() - start) * 1000)
        return verdicts

    verdicts = timed(case.correct)
    failed = [v for v in verdicts if not v.supported]
    tally.cut[case.language].append(bool(failed))
    if failed:
        tally.wrongly_cut.append(
            f"{case.question_id} {failed[0].kind} {failed[0].reason} | {case.correct[:160]}"
        )
    for verdict in verdicts:
        if verdict.support is not None:
            tally.supports[case.language].append(verdict.support)
    for change in case.changes:
        flagged = any(not v.supported for v in timed(change.answer))
        tally.caught[(case.language, change.kind)].append(flagged)
        if not flagged:
            tally.missed.append(
                f"{change.kind} {change.before!r}->{change.after!r} | {change.answer[:160]}"
            )
    if control_answer is not None:
        flagged_control = [
            v
            for v in answer_check(
                answer=control_answer, language=case.language, passages=passages, embed=embed
            )
            if not v.supported
        ]
        tally.control[case.language].append(bool(flagged_control))
        if flagged_control:
            tally.wrongly_cut.append(
                f"CONTROL {case.question_id} {flagged_control[0].reason} | {control_answer[:160]}"
            )


def share(values: list[bool]) -> str:
    return f"{sum(values) / len(values):.3f} ({sum(values)}/{len(values)})" if values else "-"


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def unrelated_support(case: AnswerCase, passages, embed, tally: Tally) -> None:  # type: ignore[no-untyped-def]
    from conversations.contract.support.units import sentences_units_ranked

    ranked = sentences_units_ranked([case.sentence], case.language, passages, embed)
    if ranked and ranked[0]:
        tally.unrelated[case.language].append(ranked[0][0].score)
