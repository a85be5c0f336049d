"""`manage.py demo_widget`: the demo bot's widget key (allowed from where PARLEY_HOST/PARLEY_PORT serve the
demo page), look and agents."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from prompts.services.demo import demo_bot_ensure
from widget.services import demo_widget_ensure


class Command(BaseCommand):
    help = "Create the demo page's widget key for the demo bot. Safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        key = demo_widget_ensure(bot=demo_bot_ensure())
        self.stdout.write(f"demo widget key {key.key} for {', '.join(key.allowed_origins)}")
