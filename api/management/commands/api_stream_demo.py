"""Streams a scripted rag_search run into a new SSE stream, to watch the framing with curl."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.sse import StreamOwner, stream_open, stream_producing
from core.models import Workspace

_ANSWER = "Parley streams each answer word by word, then sends the whole result in one final event."


class Command(BaseCommand):
    help = "Open an SSE stream for a workspace and produce a scripted rag_search run into it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="Workspace slug; read it with one of its server keys.")
        parser.add_argument("--interval", type=float, default=0.3, help="Seconds between events.")
        parser.add_argument("--padding", type=int, default=0, help="Extra characters in tool_end, to see _delta_sse.")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"No workspace with slug {options['workspace']!r}.")
        stream_id = stream_open(owner=StreamOwner(workspace_id=str(workspace.pk)))
        self.stdout.write(f"stream {stream_id}")
        self.stdout.write(
            f"curl -N -H 'Authorization: Bearer psk_…' http://127.0.0.1:8000/api/v1/streams/{stream_id}/events"
        )
        pause = max(0.0, options["interval"])
        with stream_producing(stream_id=stream_id) as emit:
            steps = [
                emit.search_preparation_started,
                lambda: emit.retrieval_completed(retrieved_count=12),
                lambda: emit.reranking_completed(initial_count=12, reranked_count=12, kept_count=4),
                emit.compiling_results_started,
            ]
            for step in steps:
                time.sleep(pause)
                step()
            for index, word in enumerate(_ANSWER.split(" ")):
                time.sleep(pause / 3)
                emit.partial(content=word if index == 0 else f" {word}")
            emit.end(
                result={
                    "response": _ANSWER,
                    "contexts": [],
                    "sources_used": [],
                    "model": "scripted-demo",
                    "execution_id": f"demo_{stream_id[:12]}",
                    "padding": "." * options["padding"],
                }
            )
