"""`manage.py visitor_export --workspace W (--external-user-id X | --visitor-id V |
--conversation-id C) [--output F]`:
a visitor's data as JSON (docs/privacy.md), on stdout or into a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import ParleyError
from privacy.management.arguments import visitor_arguments_add, visitor_arguments_read
from privacy.services.export import visitor_export
from privacy.subjects import visitor_subject_get


class Command(BaseCommand):
    help = (
        "Export a visitor's conversations, turns, messages, feedback and private documents as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        visitor_arguments_add(parser)
        parser.add_argument("--output", help="write the JSON here instead of stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            subject = visitor_subject_get(**visitor_arguments_read(options))
        except ParleyError as error:
            raise CommandError(f"{error.code}: {error.message}") from error
        text = json.dumps(visitor_export(subject=subject), ensure_ascii=False, indent=2)
        if options["output"]:
            Path(options["output"]).write_text(text + "\n", encoding="utf-8")
        else:
            self.stdout.write(text)
