"""The admin index's "Analytics and evaluation" box: each bot the user may see, with its analytics page
and its evaluation runs (issue 26: the analytics were reachable only through a bot's object tools)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django import template
from django.http import HttpRequest
from django.urls import reverse

from bots.models import Bot
from core.admin_scoping import user_holds, workspace_scope
from insights.admin.analytics import ANALYTICS_GRANT

register = template.Library()

# More bots than this: the box links to the bot list instead of growing without end.
MAX_BOTS = 12


@dataclass(frozen=True)
class BotShortcuts:
    name: str
    analytics_url: str
    evaluation_url: str


@register.simple_tag
def bot_shortcuts(request: HttpRequest) -> list[BotShortcuts]:
    """The bots of the workspaces where the user's role opens the analytics (core.permissions)."""
    if not user_holds(user=request.user, grant=ANALYTICS_GRANT):
        return []
    scoped = workspace_scope(
        Bot.objects.all(), user=request.user, lookup="workspace", grant=ANALYTICS_GRANT
    )
    bots = scoped.order_by("name").only("pk", "name")[:MAX_BOTS]
    runs = reverse("admin:insights_evaluationrun_changelist")
    return [
        BotShortcuts(
            name=bot.name,
            analytics_url=reverse("admin:insights_analytics", args=[bot.pk]),
            evaluation_url=f"{runs}?{urlencode({'bot__id__exact': bot.pk})}",
        )
        for bot in bots
    ]
