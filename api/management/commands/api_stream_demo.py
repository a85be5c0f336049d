"""Streams a scripted rag_search run into a new SSE stream, to watch the framing with curl."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.models import Workspace
from streams.runners import demo_run
from streams.sse import StreamOwner, stream_open, stream_producing


class Command(BaseCommand):
    help = "Open an SSE stream for a workspace and produce a scripted rag_search run into it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--workspace",
            required=True,
            help="Workspace slug; read it with one of its server keys.",
        )
        parser.add_argument("--interval", type=float, default=0.3, help="Seconds between events.")
        parser.add_argument(
            "--padding",
            type=int,
            default=0,
            help="Extra characters in tool_end, to see _delta_sse.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"No workspace with slug {options['workspace']!r}.")
        stream_id = stream_open(owner=StreamOwner(workspace_id=str(workspace.pk)))
        self.stdout.write(f"stream {stream_id}")
        self.stdout.write(
            f"curl -N -H 'Authorization: Bearer psk_…' http://127.0.0.1:8000/api/v1/streams/{stream_id}/events"
        )
        with stream_producing(stream_id=stream_id) as emit:
            demo_run(
                emit=emit,
                interval=max(0.0, options["interval"]),
                padding=max(0, options["padding"]),
            )
