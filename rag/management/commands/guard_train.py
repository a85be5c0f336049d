"""Rebuild the injection detector's classifier (rag/guard/model.npz) from a JSON-lines set and Parley's examples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from rag.guard.classifier import MODEL_PATH
from rag.guard.task_training import task_train
from rag.guard.training import (
    examples_augmented,
    examples_background,
    examples_jsonl,
    examples_own,
    examples_public,
    guard_train,
)


class Command(BaseCommand):
    help = "Train the injection detector's classifier and write it to rag/guard/model.npz."

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
            else examples_own() + examples_augmented() + examples_background()
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
            tasks = task_train(root=options["public"])
            self.stdout.write(f"Document task scorer (tuning contexts): {tasks.meta}")
