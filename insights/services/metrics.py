"""A run's metrics, from its results alone (no LLM judge). Definitions (also in docs/insights.md):

- status accuracy: among cases with an expected status, the share answered with that status;
  the confusion matrix counts (expected, actual) pairs of every case: a case naming no status is in
  the row "no answer expected" (expect_no_answer) or "no status expected".
- source recall@k: among cases expecting sources or a snippet, the mean share of those expected
  items found in the k retrieved chunks (a source matches a chunk's document title or file name).
- citation precision: among answers that cited chunks, the mean share of cited chunks matching an
  expected item (cases with source expectations only).
- no-answer precision and recall: "no answer" is status not_found_in_context or out_of_scope;
  expected when the case says so (expect_no_answer, or one of those statuses).
- repairs per turn: the mean number of contract repairs the answer needed.
- latency: p50, p95 and mean of the pipeline's total milliseconds; tokens: means per case.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

NO_ANSWER_STATUSES = frozenset({"not_found_in_context", "out_of_scope"})
# The confusion matrix's rows for the cases that name no expected status, so every case has its row
# (issue 51: three "expect no answer" cases were left out of the matrix without a note).
EXPECTED_NO_ANSWER = "no answer expected"
EXPECTED_NOTHING = "no status expected"


class StatusFacts(Protocol):
    """What the confusion matrix reads of a result (ResultFacts, or an EvaluationResult row)."""

    @property
    def expected_status(self) -> str: ...
    @property
    def expect_no_answer(self) -> bool: ...
    @property
    def status(self) -> str: ...


def confusion_matrix(*, results: Iterable[StatusFacts]) -> dict[str, dict[str, int]]:
    """{expected: {actual status: cases}} over every result: the expected status, else
    EXPECTED_NO_ANSWER or EXPECTED_NOTHING."""
    confusion: dict[str, dict[str, int]] = {}
    for r in results:
        expected = r.expected_status or (
            EXPECTED_NO_ANSWER if r.expect_no_answer else EXPECTED_NOTHING
        )
        row = confusion.setdefault(expected, {})
        row[r.status] = row.get(r.status, 0) + 1
    return confusion


@dataclass(frozen=True)
class ResultFacts:
    expected_status: str
    expect_no_answer: bool
    status: str
    source_recall: float | None
    citation_precision: float | None
    repairs: int
    latency_ms: int
    prompt_tokens: int | None
    completion_tokens: int | None
    passed: bool


def run_metrics(*, results: Sequence[ResultFacts], top_k: int) -> dict[str, Any]:
    with_status = [r for r in results if r.expected_status]
    expected_no = [r for r in results if _expects_no_answer(r)]
    predicted_no = [r for r in results if r.status in NO_ANSWER_STATUSES]
    both = [r for r in expected_no if r.status in NO_ANSWER_STATUSES]
    latencies = sorted(r.latency_ms for r in results)
    return {
        "cases": len(results),
        "passed": sum(r.passed for r in results),
        "pass_rate": _ratio(sum(r.passed for r in results), len(results)),
        "status_accuracy": _ratio(
            sum(r.status == r.expected_status for r in with_status), len(with_status)
        ),
        "confusion": confusion_matrix(results=results),
        "top_k": top_k,
        "source_recall_at_k": _mean(r.source_recall for r in results),
        "citation_precision": _mean(r.citation_precision for r in results),
        "no_answer_precision": _ratio(len(both), len(predicted_no)),
        "no_answer_recall": _ratio(len(both), len(expected_no)),
        "repairs_per_turn": _mean(float(r.repairs) for r in results),
        "latency_ms_p50": _percentile(latencies, 0.5),
        "latency_ms_p95": _percentile(latencies, 0.95),
        "latency_ms_mean": _mean(float(ms) for ms in latencies),
        "prompt_tokens_mean": _mean(
            float(r.prompt_tokens) for r in results if r.prompt_tokens is not None
        ),
        "completion_tokens_mean": _mean(
            float(r.completion_tokens) for r in results if r.completion_tokens is not None
        ),
    }


def _expects_no_answer(result: ResultFacts) -> bool:
    return result.expect_no_answer or result.expected_status in NO_ANSWER_STATUSES


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _mean(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return round(statistics.fmean(present), 4) if present else None


def _percentile(ordered: Sequence[int], q: float) -> int | None:
    """Nearest-rank percentile: the smallest value with at least q of the values at or below it."""
    if not ordered:
        return None
    rank = max(1, -(-int(q * 100) * len(ordered) // 100))
    return ordered[min(rank, len(ordered)) - 1]


# The metrics a command line may hold a run to (evaluate --min-...), and which way is better.
THRESHOLD_METRICS = {
    "pass_rate": "min",
    "status_accuracy": "min",
    "source_recall_at_k": "min",
    "citation_precision": "min",
    "no_answer_precision": "min",
    "no_answer_recall": "min",
    "repairs_per_turn": "max",
    "latency_ms_p95": "max",
}


def metrics_below(*, metrics: dict[str, Any], thresholds: dict[str, float]) -> list[str]:
    """The thresholds a run misses, readably; a metric the run could not measure counts as missed."""
    missed = []
    for name, bound in thresholds.items():
        value = metrics.get(name)
        direction = THRESHOLD_METRICS[name]
        if value is None:
            missed.append(f"{name}: not measured (no case measures it)")
        elif direction == "min" and value < bound:
            missed.append(f"{name}: {value} < {bound}")
        elif direction == "max" and value > bound:
            missed.append(f"{name}: {value} > {bound}")
    return missed
