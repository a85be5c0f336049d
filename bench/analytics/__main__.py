"""python -m bench.analytics [--turns 100000] [--days 30] [--repeat 5] [--keep]

Seeds a fresh workspace and bot with N turns (COPY; see seed.py for the mix), refreshes the daily
rollups (timed: a rebuild of the bot's days, then the periodic refresh with nothing new), measures the
per-bot analytics page (GET through Django's test client as a superuser, full render) and each
aggregate statement (insights.selectors.analytics, timed one by one), and prints the figures.
Target: the page under 1 s at 100k turns. Uses the worktree's own services; cleans up unless --keep.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from datetime import timedelta


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the seeded workspace")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from bench.analytics.seed import seed
    from bots.models import Bot
    from core.models import Workspace
    from insights.admin.analytics import period_default, scope_for_period
    from insights.selectors.analytics import analytics_get
    from insights.services.rollups import turn_rollups_rebuild, turn_rollups_refresh

    call_command("migrate", verbosity=0)
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    tag = uuid.uuid4().hex[:8]
    workspace = Workspace.objects.create(name=f"bench analytics {tag}", slug=f"bench-an-{tag}")
    bot = Bot.objects.create(workspace=workspace, name="Bench bot")
    user = get_user_model().objects.create_superuser(f"bench-an-{tag}", password=None)
    try:
        started = time.perf_counter()
        counts = seed(bot_id=bot.pk, turns=args.turns, days=args.days)
        print(f"seeded {counts} in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        # The seeded history completed before the watermark: rebuild the bot's days, as after an import.
        days = turn_rollups_rebuild(bot_id=str(bot.pk))
        print(f"rollups rebuilt ({days} days) in {time.perf_counter() - started:.2f} s")
        started = time.perf_counter()
        turn_rollups_refresh()
        print(f"rollups refresh with nothing new: {(time.perf_counter() - started) * 1000:.0f} ms")
        client = Client()
        client.force_login(user)
        url = reverse("admin:insights_analytics", args=[bot.pk])
        # The seeded turns span the last --days days up to now: the period covers them all.
        period = {**period_default(), "start": timezone.localdate() - timedelta(days=args.days)}
        page_ms = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            response = client.get(url, {**period, "channel": ""})
            page_ms.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.status_code
            assert f"<strong>{counts['turns']}</strong>".encode() in response.content
        widget_ms = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            response = client.get(url, {**period, "channel": "widget"})
            widget_ms.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
        print(
            f"analytics page, all channels ({args.turns} turns, {args.repeat} loads): "
            f"first {page_ms[0]:.0f} ms, median {statistics.median(page_ms):.0f} ms, "
            f"max {max(page_ms):.0f} ms"
        )
        print(
            f"analytics page, widget only: first {widget_ms[0]:.0f} ms, "
            f"median {statistics.median(widget_ms):.0f} ms, max {max(widget_ms):.0f} ms"
        )
        per_query: dict[str, list[float]] = {}
        scope = scope_for_period(bot_id=bot.pk, **period)
        for _ in range(args.repeat):
            for name, ms in analytics_get(scope=scope).timings_ms.items():
                per_query.setdefault(name, []).append(ms)
        print("aggregate statements (median of runs, ms):")
        for name, values in per_query.items():
            print(f"  {name:<22} {statistics.median(values):8.1f}")
        print(f"  {'total':<22} {sum(statistics.median(v) for v in per_query.values()):8.1f}")
    finally:
        if not args.keep:
            workspace.delete()
            user.delete()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
