"""`manage.py chunks_reindex [--dims N]`: rebuild the chunks' HNSW indexes with the measured build memory."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rag.indexes import chunk_indexes_rebuild
from rag.models import INDEXED_DIMENSIONS


class Command(BaseCommand):
    help = (
        "Rebuild the HNSW vector indexes (after a bulk load, or to compact them) with maintenance_work_mem "
        "set to RETRIEVAL_HNSW_BUILD_MEMORY_MB for the build. Writes to chunks wait until it ends."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dims", type=int, action="append", help=f"Only this dimension {INDEXED_DIMENSIONS}."
        )
        parser.add_argument(
            "--memory-mb", type=int, default=None, help="Override RETRIEVAL_HNSW_BUILD_MEMORY_MB."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            builds = chunk_indexes_rebuild(
                dims=options["dims"] or INDEXED_DIMENSIONS, memory_mb=options["memory_mb"]
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        for build in builds:
            self.stdout.write(
                f"{build.name}: {build.chunks} chunks in {build.seconds:.1f} s (maintenance_work_mem {build.memory})"
            )
