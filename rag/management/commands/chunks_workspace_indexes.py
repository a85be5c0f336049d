"""`manage.py chunks_workspace_indexes [--min-chunks N]`: build or drop the per-workspace HNSW indexes."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from rag.workspace_indexes import workspace_indexes_sync


class Command(BaseCommand):
    help = (
        "Give each workspace of at least RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS chunks its own HNSW index "
        "(built CONCURRENTLY: writes never wait), and drop those of workspaces below half of it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--min-chunks", type=int, default=None, help="Override the setting.")

    def handle(self, *args: Any, **options: Any) -> None:
        result = workspace_indexes_sync(min_chunks=options["min_chunks"])
        for name in result.created:
            self.stdout.write(f"built {name}")
        for name in result.dropped:
            self.stdout.write(f"dropped {name}")
        if not result.created and not result.dropped:
            self.stdout.write("nothing to change")
