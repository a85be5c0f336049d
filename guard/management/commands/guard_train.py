"""Rebuild the injection detector's classifier (guard/model.npz) from a JSON-lines set and Parley's examples.

Parley's written examples are read by path (--data, the repository's training-data/guard by default): they
teach the model and are not shipped with the app that runs it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from guard.classifier import MODEL_PATH
from guard.task_training import task_train
from guard.training import (
    examples_augmented,
    examples_background,
    examples_jsonl,
    examples_own,
    examples_public,
    guard_train,
)


class Command(BaseCommand):
    help = "Train the injection detector's classifier and write it to guard/model.npz."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "corpus",
            nargs="*",
            type=Path,
            help="JSON-lines files or folders of them ({text, label}), e.g. ../shared/corpora/injection-train",
        )
        parser.add_argument(
            "--public",
            type=Path,
            default=None,
            help="The shared corpora folder (../shared/corpora): adds deepset's train split and the "
            "tuning part of wildguard's benign prompts, and retrains the document task scorer on the "
            "tuning part of indirect-train (their validation parts are never read).",
        )
        parser.add_argument(
            "--data",
            type=Path,
            default=Path(settings.BASE_DIR) / "training-data" / "guard",
            help="Parley's written examples and templates (attacks*.txt, benign*.txt, requests.txt, "
            "procedures.txt, templates/<language>.txt).",
        )
        parser.add_argument("--output", type=Path, default=MODEL_PATH)
        parser.add_argument("--limit", type=int, default=None, help="Rows per file (tiny runs).")
        parser.add_argument(
            "--corpus-only",
            action="store_true",
            help="Leave out Parley's own examples and the installed background text (tiny runs).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        examples = (
            []
            if options["corpus_only"]
            else examples_own(data=options["data"])
            + examples_augmented(data=options["data"])
            + examples_background()
        )
        for path in options["corpus"]:
            files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
            for file in files:
                examples += examples_jsonl(path=file, limit=options["limit"])
        if options["public"] is not None:
            examples += examples_public(root=options["public"])
        model = guard_train(examples=examples, output=options["output"])
        self.stdout.write(
            f"Trained on {model.meta['examples']} examples ({model.meta['injections']} injections): "
            f"{options['output']}"
        )
        if calibration := model.meta.get("calibration"):
            self.stdout.write(f"Calibration (out of fold, on the training data): {calibration}")
        if bands := model.meta.get("bands"):
            self.stdout.write(f"Bands (picked on the tuning parts): {bands}")
        if options["public"] is not None:
            tasks = task_train(root=options["public"], data=options["data"])
            self.stdout.write(f"Document task scorer (tuning contexts): {tasks.meta}")
