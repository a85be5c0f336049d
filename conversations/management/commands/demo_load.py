"""`manage.py demo_load`: the demo bot (Lumen Bikes' "Lumi") and its documents, queued for ingestion; idempotent."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from prompts.services.demo import demo_bot_ensure
from rag.demo_content import demo_documents_ensure


class Command(BaseCommand):
    help = (
        "Create the demo workspace, bot and documents (the worker ingests them). Safe to run again."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        bot = demo_bot_ensure()
        documents = demo_documents_ensure(workspace=bot.workspace, bots=[bot])
        ready = sum(1 for document in documents if document.status == "ready")
        self.stdout.write(
            f"demo bot '{bot.name}' in workspace '{bot.workspace.slug}': {len(documents)} documents ({ready} ready)"
        )
