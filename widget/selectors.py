"""Reads for the widget: the look and strings a widget key's bot shows, and the demo page's key."""

from __future__ import annotations

from typing import Any

from api.contracts import MAX_QUERY_CHARS
from api.models import WidgetKey
from bots.models import Bot
from widget.models import WidgetAppearance

DEMO_KEY_NAME = "Demo page"


def widget_config_get(*, bot: Bot) -> dict[str, Any]:
    look = WidgetAppearance.objects.filter(bot=bot).first() or WidgetAppearance(bot=bot)
    return {
        "bot_id": str(bot.pk),
        "title": look.title or bot.name,
        "greeting": look.greeting,
        "primary_color": look.primary_color,
        "text_color": look.text_color,
        "avatar_url": look.avatar_url,
        "position": look.position,
        "locale": look.locale,
        "strings": look.strings or {},
        "handoff_enabled": bot.escalation_allowed,
        "explainability": bot.explainability,
        # The turn endpoint's limit: the widget counts towards it and blocks sending past it.
        "message_max_chars": MAX_QUERY_CHARS,
    }


def demo_widget_key_get(*, bot: Bot) -> WidgetKey | None:
    return WidgetKey.objects.filter(bot=bot, name=DEMO_KEY_NAME, revoked_at__isnull=True).first()
