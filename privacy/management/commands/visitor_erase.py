"""`manage.py visitor_erase --workspace W (--external-user-id X | --visitor-id V |
--conversation-id C)`: erase a
visitor's data now (docs/privacy.md); the erasure is recorded first, so a run cut short is resumed
by the worker's sweep (or by running the command again)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import ParleyError
from privacy.management.arguments import visitor_arguments_add, visitor_arguments_read
from privacy.services.erasure import visitor_erasure_execute, visitor_erasure_request


class Command(BaseCommand):
    help = (
        "Erase a visitor's conversations, turns, messages, feedback, documents and stream buffers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        visitor_arguments_add(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            erasure = visitor_erasure_request(
                **visitor_arguments_read(options), requested_by="command"
            )
        except ParleyError as error:
            raise CommandError(f"{error.code}: {error.message}") from error
        erasure = visitor_erasure_execute(erasure_id=erasure.pk)
        counts = json.dumps(erasure.counts, sort_keys=True)
        self.stdout.write(f"erasure {erasure.pk}: {erasure.status} {counts}")
