"""`manage.py ingest PATH... --workspace W [--bot B]`: add files and folders, follow ingestion, print a summary."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import IO, Any, cast

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from rag.ingestion import document_ingest
from rag.models import Document
from rag.selectors import bot_get_by_reference, documents_progress, workspace_get_by_reference
from rag.services import documents_create_from_paths

DONE = {Document.Status.READY, Document.Status.FAILED}


class Command(BaseCommand):
    help = (
        "Ingest files and folders (read recursively) into a workspace, optionally attached to bots."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument("--workspace", required=True, help="Workspace slug, name or id.")
        parser.add_argument(
            "--bot", action="append", default=[], help="Bot name or id (repeatable)."
        )
        parser.add_argument(
            "--inline", action="store_true", help="Ingest in this process instead of the workers."
        )
        parser.add_argument(
            "--no-wait", action="store_true", help="Queue the documents and return."
        )
        parser.add_argument(
            "--timeout", type=float, default=3600, help="Seconds to wait for the workers."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = workspace_get_by_reference(reference=options["workspace"])
        if workspace is None:
            raise CommandError(f"No workspace {options['workspace']!r}.")
        bots = []
        for reference in options["bot"]:
            bot = bot_get_by_reference(workspace=workspace, reference=reference)
            if bot is None:
                raise CommandError(f"No bot {reference!r} in workspace {workspace}.")
            bots.append(bot)
        try:
            documents = documents_create_from_paths(
                workspace=workspace, paths=options["paths"], bots=bots
            )
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        # The raw stream under Django's OutputWrapper, which would end every write with a newline.
        console = Console(file=cast(IO[str], self.stdout._out), width=120)
        ids = [document.pk for document in documents]
        if options["inline"]:
            with Progress(*self._columns(), console=console) as progress:
                for document_id in progress.track(ids, description="documents"):
                    document_ingest(document_id=str(document_id), claim_id=f"inline-{uuid.uuid4()}")
        elif not options["no_wait"]:
            self._follow(console, ids, options["timeout"])
        self._summary(console, documents_progress(document_ids=ids))

    def _follow(self, console: Console, ids: list[uuid.UUID], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with Progress(*self._columns(), console=console) as progress:
            task = progress.add_task("documents", total=len(ids) * 100)
            while time.monotonic() < deadline:
                current = documents_progress(document_ids=ids)
                done = sum(100 if d.status in DONE else d.progress for d in current)
                progress.update(task, completed=done)
                if all(d.status in DONE for d in current):
                    return
                time.sleep(0.5)
        console.print(f"Stopped waiting after {timeout:.0f} s; the workers carry on.")

    @staticmethod
    def _columns() -> tuple[ProgressColumn, ...]:
        return (TextColumn("ingesting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())

    def _summary(self, console: Console, documents: list[Document]) -> None:
        table = Table("file", "status", "chunks", "language", "reason")
        for document in documents:
            row = (
                document.filename,
                document.status,
                str(document.chunk_count),
                document.language,
                document.error,
            )
            table.add_row(*row)
        console.print(table)
        ready = sum(document.status == Document.Status.READY for document in documents)
        console.print(
            f"{ready} ready, {len(documents) - ready} not ready, of {len(documents)} documents."
        )
