"""Create the demo workspace and its fully configured "Lumi" bot (idempotent)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from prompts.services.demo import demo_bot_ensure


class Command(BaseCommand):
    help = "Create the Lumen Bikes demo workspace and bot when missing."

    def handle(self, *args: Any, **options: Any) -> None:
        bot = demo_bot_ensure()
        self.stdout.write(
            f"demo bot ready: {bot.name} ({bot.pk}) in workspace {bot.workspace.name}"
        )
