"""Reads of evaluation runs: a bot's run history, a run's confusion matrix, and two runs compared case
by case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from insights.models import EvaluationResult, EvaluationRun
from insights.services.metrics import EXPECTED_NO_ANSWER, EXPECTED_NOTHING, confusion_matrix

# The metrics shown side by side, in order, with whether a higher value is better.
COMPARED_METRICS = (
    ("pass_rate", True),
    ("status_accuracy", True),
    ("source_recall_at_k", True),
    ("citation_precision", True),
    ("no_answer_precision", True),
    ("no_answer_recall", True),
    ("repairs_per_turn", False),
    ("latency_ms_p50", False),
    ("latency_ms_p95", False),
    ("prompt_tokens_mean", False),
    ("completion_tokens_mean", False),
)


@dataclass(frozen=True)
class CaseComparison:
    position: int
    question: str
    expected_status: str
    left: EvaluationResult | None
    right: EvaluationResult | None

    @property
    def differs(self) -> bool:
        if self.left is None or self.right is None:
            return True
        return (
            self.left.status != self.right.status
            or self.left.passed != self.right.passed
            or self.left.cited != self.right.cited
        )


@dataclass(frozen=True)
class MetricComparison:
    name: str
    left: Any
    right: Any
    higher_is_better: bool

    @property
    def change(self) -> str:
        """ "better", "worse" or "" (same, or not measured on one side)."""
        if self.left is None or self.right is None or self.left == self.right:
            return ""
        improved = (self.right > self.left) == self.higher_is_better
        return "better" if improved else "worse"


def runs_compare(
    *, left: EvaluationRun, right: EvaluationRun
) -> tuple[list[MetricComparison], list[CaseComparison]]:
    """The metrics side by side, and the cases (matched by case, else by question), differences first."""
    metrics = [
        MetricComparison(name, left.metrics.get(name), right.metrics.get(name), better)
        for name, better in COMPARED_METRICS
    ]
    lefts = {_key(r): r for r in left.results.all()}
    rights = {_key(r): r for r in right.results.all()}
    rows = []
    for key in dict.fromkeys([*lefts, *rights]):
        a, b = lefts.get(key), rights.get(key)
        known = a or b
        assert known is not None
        rows.append(
            CaseComparison(
                position=known.position,
                question=known.question,
                expected_status=known.expected_status,
                left=a,
                right=b,
            )
        )
    rows.sort(key=lambda row: (not row.differs, row.position))
    return metrics, rows


def _key(result: EvaluationResult) -> str:
    return f"case:{result.case_id}" if result.case_id else f"q:{result.question}"


def runs_for_bot(*, bot_id: Any) -> list[EvaluationRun]:
    return list(
        EvaluationRun.objects.filter(bot_id=bot_id)
        .select_related("evaluation_set")
        .order_by("-created_at")
    )


@dataclass(frozen=True)
class ConfusionTable:
    """The run page's matrix: one row per expected status (and the rows of the cases naming none),
    one column per status the run answered, each row's total; `cases` adds up to the run's results."""

    columns: list[str]
    rows: list[tuple[str, list[int], int]]
    cases: int
    no_answer_row: str = EXPECTED_NO_ANSWER
    nothing_row: str = EXPECTED_NOTHING


def run_confusion(*, run: EvaluationRun) -> ConfusionTable:
    """The matrix of every result of the run, read from the results (runs measured before the matrix
    had its "no answer expected" row show it too)."""
    confusion = confusion_matrix(
        results=run.results.only("expected_status", "expect_no_answer", "status")
    )
    actual = sorted({status for row in confusion.values() for status in row})
    rows = [
        (expected, [row.get(status, 0) for status in actual], sum(row.values()))
        for expected, row in sorted(confusion.items())
    ]
    return ConfusionTable(columns=actual, rows=rows, cases=sum(total for *_, total in rows))
