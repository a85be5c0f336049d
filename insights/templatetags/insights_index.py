"""The admin index's "Analytics and evaluation" box: each bot the user may see, with its analytics page
and its evaluation runs (issue 26: the analytics were reachable only through a bot's object tools)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django import template
from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse

from bots.models import Bot

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
    """The bots of the user's workspaces, through the bot admin's own scoped queryset (one access rule)."""
    bot_admin = admin.site._registry.get(Bot)
    if bot_admin is None or not bot_admin.has_view_permission(request):
        return []
    bots = bot_admin.get_queryset(request).order_by("name").only("pk", "name")[:MAX_BOTS]
    runs = reverse("admin:insights_evaluationrun_changelist")
    return [
        BotShortcuts(
            name=bot.name,
            analytics_url=reverse("admin:insights_analytics", args=[bot.pk]),
            evaluation_url=f"{runs}?{urlencode({'bot__id__exact': bot.pk})}",
        )
        for bot in bots
    ]
