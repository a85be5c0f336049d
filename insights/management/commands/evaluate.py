"""`manage.py evaluate`: run an evaluation set from the shell (for CI), print its metrics, and exit
non-zero when the run falls below the thresholds given as flags (2), or cannot run at all (3)."""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.models import Workspace
from insights.models import EvaluationRun, EvaluationSet
from insights.services.cases_io import CasesImportError, cases_parse
from insights.services.metrics import THRESHOLD_METRICS, metrics_below
from insights.services.runs import (
    DocumentsPending,
    RunRefused,
    evaluation_run_create,
    evaluation_run_execute,
)
from insights.services.sets import evaluation_cases_add
from rag.selectors import bot_get_by_reference, workspace_get_by_reference


class Command(BaseCommand):
    help = "Run an evaluation set against a bot and check its metrics against thresholds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="workspace slug or id")
        parser.add_argument("--bot", required=True, help="bot name or id")
        parser.add_argument("--set", required=True, dest="set_name", help="evaluation set name")
        parser.add_argument(
            "--file", help="load the set's cases from this JSONL or CSV file first (replacing them)"
        )
        parser.add_argument("--template-version", type=int)
        parser.add_argument("--strictness", choices=["strict", "relaxed"])
        parser.add_argument("--top-k", type=int)
        parser.add_argument("--fusion", choices=["hybrid", "vector"])
        parser.add_argument("--model")
        parser.add_argument("--label", default="")
        parser.add_argument(
            "--wait", type=int, default=300, help="seconds to wait for documents being ingested"
        )
        parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
        for name, direction in THRESHOLD_METRICS.items():
            parser.add_argument(
                f"--{direction}-{name.replace('_', '-')}",
                type=float,
                dest=f"threshold_{name}",
                help=f"fail when {name} is {'below' if direction == 'min' else 'above'} this",
            )

    def handle(self, *args: Any, **options: Any) -> None:
        evaluation_set = self._set(options)
        overrides = {
            "template_version": options["template_version"],
            "rag_strictness": options["strictness"],
            "top_k": options["top_k"],
            "hybrid": None if options["fusion"] is None else options["fusion"] == "hybrid",
            "model": options["model"],
        }
        try:
            run = evaluation_run_create(
                set_id=evaluation_set.pk,
                overrides={key: value for key, value in overrides.items() if value is not None},
                label=options["label"],
                enqueue=False,
            )
        except RunRefused as refused:
            raise CommandError(str(refused), returncode=3) from refused
        deadline = time.monotonic() + options["wait"]
        while True:
            try:
                evaluation_run_execute(run_id=run.pk)
                break
            except DocumentsPending as pending:
                if time.monotonic() > deadline:
                    raise CommandError(str(pending), returncode=3) from pending
                time.sleep(2)
        run.refresh_from_db()
        if run.status == EvaluationRun.Status.FAILED:
            raise CommandError(f"{run.error_code}: {run.error_message}", returncode=3)
        self._print(run, as_json=options["json"])
        thresholds = {
            name: options[f"threshold_{name}"]
            for name in THRESHOLD_METRICS
            if options[f"threshold_{name}"] is not None
        }
        missed = metrics_below(metrics=run.metrics, thresholds=thresholds)
        if missed:
            raise CommandError("below the thresholds: " + "; ".join(missed), returncode=2)

    def _set(self, options: dict[str, Any]) -> EvaluationSet:
        workspace: Workspace | None = workspace_get_by_reference(reference=options["workspace"])
        if workspace is None:
            raise CommandError(f"no workspace {options['workspace']!r}", returncode=3)
        bot = bot_get_by_reference(workspace=workspace, reference=options["bot"])
        if bot is None:
            raise CommandError(f"no bot {options['bot']!r} in {workspace.slug}", returncode=3)
        evaluation_set, _ = EvaluationSet.objects.get_or_create(bot=bot, name=options["set_name"])
        if options["file"]:
            path = options["file"]
            file_format = "csv" if path.lower().endswith(".csv") else "jsonl"
            try:
                with open(path, "rb") as handle:
                    cases = cases_parse(raw=handle.read(), file_format=file_format)
                evaluation_cases_add(set_id=evaluation_set.pk, cases=cases, replace=True)
            except (OSError, CasesImportError) as error:
                raise CommandError(f"{path}: {error}", returncode=3) from error
        return evaluation_set

    def _print(self, run: EvaluationRun, *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps({"run": str(run.pk), **run.metrics}, indent=2))
            return
        self.stdout.write(f"run {run.pk} ({run.label}): {run.done} cases")
        for name, value in run.metrics.items():
            if name != "confusion":
                self.stdout.write(f"  {name:<24} {value}")
        self.stdout.write("  confusion (expected → actual):")
        for expected, row in sorted(run.metrics.get("confusion", {}).items()):
            cells = ", ".join(f"{actual} {n}" for actual, n in sorted(row.items()))
            self.stdout.write(f"    {expected:<22} {cells}")
