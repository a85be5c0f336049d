"""Writes for the widget: the demo bot's widget key, look and agent access (run by ``manage.py demo_widget``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from api.models import WidgetKey
from api.services import widget_key_create
from bots.models import Bot
from core.models import Membership
from handoff.models import HandoffPolicy
from handoff.selectors import AGENTS_GROUP
from widget.models import WidgetAppearance
from widget.selectors import DEMO_KEY_NAME, demo_widget_key_get

DEMO_ORIGINS = ("http://127.0.0.1:8000", "http://localhost:8000")


def demo_widget_ensure(*, bot: Bot, origins: tuple[str, ...] = DEMO_ORIGINS) -> WidgetKey:
    """Idempotent: a widget key for the demo page, the bot's look, and superusers as the demo's agents."""
    with transaction.atomic():
        key = demo_widget_key_get(bot=bot) or widget_key_create(
            bot=bot, name=DEMO_KEY_NAME, allowed_origins=origins
        )
        WidgetAppearance.objects.get_or_create(
            bot=bot,
            defaults={
                "title": "Lumi · Lumen Bikes",
                "greeting": "Hi! I am Lumi. Ask me about our e-bikes, batteries, delivery or warranty.",
                "primary_color": "#0f766e",
                "strings": {"fr": {"placeholder": "Votre question sur nos vélos…"}},
            },
        )
        HandoffPolicy.objects.get_or_create(bot=bot)
        group, _ = Group.objects.get_or_create(name=AGENTS_GROUP)
        for user in get_user_model().objects.filter(is_superuser=True, is_active=True):
            user.groups.add(group)
            Membership.objects.get_or_create(user=user, workspace=bot.workspace)
    return key
