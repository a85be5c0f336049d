"""An evaluation case's result: its answer checked against what the case expects (status, sources, snippet)
and stored once per (run, case)."""

from __future__ import annotations

import re
from typing import Any

from bots.models import Bot
from conversations.pipeline.run import PipelineRun
from insights.models import EvaluationCase, EvaluationResult, EvaluationRun
from insights.services.metrics import NO_ANSWER_STATUSES
from rag.models import Document


def document_names(bot: Bot) -> dict[str, set[str]]:
    """Each document's id → the names a case may call it by (title, file name), casefolded."""
    return {
        str(pk): {title.casefold(), filename.casefold()}
        for pk, title, filename in Document.objects.filter(bots=bot).values_list(
            "pk", "title", "filename"
        )
    }


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def result_store(
    run: EvaluationRun, case: EvaluationCase, pipeline: PipelineRun, names: dict[str, set[str]]
) -> None:
    """A case's answer scored (its status, the expected sources retrieved, the cited chunks that are
    expected) and stored once; the run's progress counts it."""
    answer = pipeline.generated.outcome.enforced.answer
    chunks = pipeline.chunks
    used = {usage.chunk for usage in answer.context_usage if usage.used_in_response}
    cited = [chunk for chunk in chunks if chunk.id in used]
    expected = [source.casefold() for source in case.expected_sources]
    snippet = _normal(case.expected_snippet)

    def matches(chunk: Any, item: str) -> bool:
        if item == "\0snippet":
            return snippet in _normal(chunk.text)
        return item in names.get(chunk.document_id, set()) or item == chunk.title.casefold()

    items = expected + (["\0snippet"] if snippet else [])
    recall = (
        sum(any(matches(c, item) for c in chunks) for item in items) / len(items) if items else None
    )
    precision = (
        sum(any(matches(c, item) for item in items) for c in cited) / len(cited)
        if items and cited
        else None
    )
    status = answer.status.value
    failures = []
    if case.expected_status and status != case.expected_status:
        failures.append(f"status: expected {case.expected_status}, got {status}")
    if case.expect_no_answer and status not in NO_ANSWER_STATUSES:
        failures.append(f"expected no answer, got {status}")
    if recall is not None and recall < 1:
        failures.append(f"sources: {round(recall * len(items))} of {len(items)} expected retrieved")
    generated = pipeline.generated
    _, created = EvaluationResult.objects.get_or_create(
        run=run,
        case=case,
        defaults={
            "position": case.position,
            "question": case.question,
            "expected_status": case.expected_status,
            "expect_no_answer": case.expect_no_answer,
            "status": status,
            "answer": pipeline.route.text,
            "retrieved": [
                {"document_id": c.document_id, "title": c.title, "rank": c.rank, "score": c.score}
                for c in chunks
            ],
            "cited": [c.rank for c in cited],
            "source_recall": recall,
            "citation_precision": precision,
            "repairs": len(generated.outcome.enforced.repairs),
            "latency_ms": pipeline.latencies.get("total", 0),
            "prompt_tokens": generated.prompt_tokens,
            "completion_tokens": generated.completion_tokens,
            "model": generated.model[:200],
            "passed": not failures,
            "failures": failures,
        },
    )
    if created:
        EvaluationRun.objects.filter(pk=run.pk).update(done=run.results.count())
