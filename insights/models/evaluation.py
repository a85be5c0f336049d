"""Evaluation sets (cases with expectations) and runs (a set answered by a bot, with metrics).

A run answers through `conversations.pipeline.run.answer_run`, which records nothing: no turn, no
conversation, no handoff, so a run never reaches visitors or the real analytics. Its results are one
row per case (unique per run), which is what makes the Celery task safe to deliver twice.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from bots.models import Bot
from conversations.models import Turn, TurnStatus

CASES_PER_SET_MAX = 1000
QUESTION_MAX = 4000
# What a case states, its question and expectations: the columns of an import file, the fields an
# admin edits, and `insights.services.cases_io.CaseData`'s.
CASE_FIELDS = (
    "question",
    "history",
    "expected_status",
    "expected_sources",
    "expected_snippet",
    "expect_no_answer",
)


class EvaluationSet(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="evaluation_sets")
    name = models.CharField(max_length=120)
    description = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["bot", "name"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "name"], name="evaluation_set_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="evaluation_set_name_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.bot} · {self.name}"


class EvaluationCase(models.Model):
    """A question, its optional history, and what a good answer must do.

    Expectations (each optional, at least one): the status; documents (by title or file name) that
    must be among the retrieved chunks; a snippet that must appear in a retrieved chunk; no answer
    (the bot must say it does not know: not_found_in_context or out_of_scope).
    """

    evaluation_set = models.ForeignKey(
        EvaluationSet, on_delete=models.CASCADE, related_name="cases"
    )
    position = models.PositiveIntegerField(default=0)
    question = models.CharField(max_length=QUESTION_MAX)
    # [{"role": "user"|"assistant", "content": "..."}], oldest first.
    history = models.JSONField(default=list, blank=True)
    expected_status = models.CharField(max_length=30, choices=TurnStatus.choices, blank=True)
    expected_sources = models.JSONField(default=list, blank=True)
    expected_snippet = models.CharField(max_length=1000, blank=True)
    expect_no_answer = models.BooleanField(default=False)
    # The real turn this case was made from, when it came from the turn admin's action.
    source_turn = models.ForeignKey(
        Turn, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["evaluation_set", "position", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(question=""), name="evaluation_case_question"),
            models.CheckConstraint(
                condition=Q(expected_status="") | Q(expected_status__in=TurnStatus.values),
                name="evaluation_case_status_valid",
            ),
            models.CheckConstraint(
                condition=~Q(expected_status="")
                | ~Q(expected_sources=[])
                | ~Q(expected_snippet="")
                | Q(expect_no_answer=True),
                name="evaluation_case_expects_something",
            ),
        ]

    def __str__(self) -> str:
        return self.question[:80]


class JobStatus(models.TextChoices):
    """The life of a background job kept on its row (an evaluation run, a gap clustering)."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"


class EvaluationRun(models.Model):
    """One execution of a set against a bot, as it is or with overrides (template, strictness, top k,
    fusion, model). Status and progress live on the row; the task only moves them forward."""

    Status = JobStatus

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    evaluation_set = models.ForeignKey(EvaluationSet, on_delete=models.CASCADE, related_name="runs")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="evaluation_runs")
    label = models.CharField(max_length=200, blank=True)
    # {"template_version": 3, "rag_strictness": "relaxed", "top_k": 4, "hybrid": false, "model": "..."}
    overrides = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    metrics = models.JSONField(default=dict, blank=True)
    error_code = models.CharField(max_length=60, blank=True)
    error_message = models.CharField(max_length=1000, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["bot", "-created_at"], name="evaluation_run_bot_created")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "completed", "failed"]),
                name="evaluation_run_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(done__lte=models.F("total")), name="evaluation_run_progress"
            ),
            models.CheckConstraint(
                condition=~Q(status="failed") | ~Q(error_code=""),
                name="evaluation_run_failed_has_error",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label or self.evaluation_set.name} · {self.created_at:%Y-%m-%d %H:%M}"


class EvaluationResult(models.Model):
    """One case answered in one run: what happened, and which expectations held."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="results")
    case = models.ForeignKey(
        EvaluationCase, on_delete=models.SET_NULL, null=True, related_name="results"
    )
    position = models.PositiveIntegerField()
    question = models.CharField(max_length=QUESTION_MAX)
    expected_status = models.CharField(max_length=30, blank=True)
    expect_no_answer = models.BooleanField(default=False)
    status = models.CharField(max_length=30)
    answer = models.TextField(blank=True)
    # [{document_id, title, rank, score}] in rank order, and the ranks the answer used.
    retrieved = models.JSONField(default=list)
    cited = models.JSONField(default=list)
    source_recall = models.FloatField(null=True, blank=True)
    citation_precision = models.FloatField(null=True, blank=True)
    repairs = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    model = models.CharField(max_length=200, blank=True)
    passed = models.BooleanField()
    # Readable reasons a case failed, e.g. ["status: expected found_in_context, got not_found_in_context"].
    failures = models.JSONField(default=list)

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "case"], name="evaluation_result_once_per_case")
        ]

    def __str__(self) -> str:
        return f"{self.question[:60]} · {self.status}"
