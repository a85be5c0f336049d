"""`manage.py analytics_rebuild [--bot ID]`: recompute the analytics rollups of every day of one bot
(or of every bot), e.g. after importing turns whose completion predates the periodic refresh."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from bots.models import Bot
from insights.services.rollups import turn_rollups_rebuild


class Command(BaseCommand):
    help = "Recompute the analytics rollups of a bot's (or every bot's) turns, day by day."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bot", help="a bot id (default: every bot)")

    def handle(self, *args: Any, **options: Any) -> None:
        bots = Bot.objects.all() if not options["bot"] else Bot.objects.filter(pk=options["bot"])
        for bot_id, name in bots.values_list("pk", "name"):
            days = turn_rollups_rebuild(bot_id=str(bot_id))
            self.stdout.write(f"{name}: {days} days recomputed")
