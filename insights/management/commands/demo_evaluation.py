"""`manage.py demo_evaluation`: the demo bot's evaluation set (insights/demo/lumi-evaluation.jsonl)
and its first run, queued once (the task waits for the demo documents' ingestion); idempotent.
With --summary it prints the first run's results once it has finished, and nothing before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.urls import reverse

from insights.models import EvaluationRun, EvaluationSet
from insights.services.cases_io import cases_parse
from insights.services.runs import RunRefused, evaluation_run_create
from insights.services.sets import evaluation_cases_add
from prompts.services.demo import demo_bot_ensure

DEMO_SET = Path(__file__).resolve().parents[2] / "demo" / "lumi-evaluation.jsonl"
DEMO_SET_NAME = "Lumi demo questions"


class Command(BaseCommand):
    help = "Create the demo bot's evaluation set and queue its first run. Safe to run again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--summary", action="store_true", help="print the first run, if done")

    def handle(self, *args: Any, **options: Any) -> str:
        bot = demo_bot_ensure()
        if options["summary"]:
            return self._summary(bot.pk)
        with transaction.atomic():
            evaluation_set, created = EvaluationSet.objects.get_or_create(
                bot=bot,
                name=DEMO_SET_NAME,
                defaults={"description": "Questions written for the demo documents (rag/demo/)."},
            )
            if created:
                cases = cases_parse(raw=DEMO_SET.read_bytes(), file_format="jsonl")
                evaluation_cases_add(set_id=evaluation_set.pk, cases=cases)
            if evaluation_set.runs.exists():
                return ""
            try:
                run = evaluation_run_create(set_id=evaluation_set.pk, label="first run")
            except RunRefused as refused:
                self.stdout.write(f"demo evaluation not run: {refused}")
                return ""
        self.stdout.write(
            f"demo evaluation: {run.total} cases queued, results at "
            + reverse("admin:insights_evaluationrun_change", args=[run.pk])
        )
        return ""

    def _summary(self, bot_id: Any) -> str:
        run = (
            EvaluationRun.objects.filter(bot_id=bot_id, evaluation_set__name=DEMO_SET_NAME)
            .order_by("created_at")
            .first()
        )
        if run is None or run.status not in (
            EvaluationRun.Status.COMPLETED,
            EvaluationRun.Status.FAILED,
        ):
            return ""
        if run.status == EvaluationRun.Status.FAILED:
            return f"demo evaluation failed: {run.error_message}"
        m = run.metrics
        return (
            f"demo evaluation ({run.done} cases): {m['passed']} passed, status accuracy"
            f" {m['status_accuracy']}, source recall@{m['top_k']} {m['source_recall_at_k']},"
            f" no-answer recall {m['no_answer_recall']}, p95 {m['latency_ms_p95']} ms — "
            + reverse("admin:insights_evaluationrun_change", args=[run.pk])
        )
