"""How a bot's chat widget looks: set by the admin on the bot, served by ``GET /api/v1/widget/config``."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from bots.models import Bot

COLOR = r"^#[0-9a-fA-F]{6}$"


class WidgetAppearance(models.Model):
    class Position(models.TextChoices):
        RIGHT = "right", "Bottom right"
        LEFT = "left", "Bottom left"

    class Locale(models.TextChoices):
        PAGE = "page", "Follow the page's lang"
        EN = "en", "English"
        FR = "fr", "Français"
        DE = "de", "Deutsch"
        ES = "es", "Español"
        IT = "it", "Italiano"
        PT = "pt", "Português"

    bot = models.OneToOneField(
        Bot, on_delete=models.CASCADE, primary_key=True, related_name="widget_appearance"
    )
    title = models.CharField(max_length=80, blank=True, help_text="Defaults to the bot's name.")
    greeting = models.CharField(max_length=500, blank=True)
    primary_color = models.CharField(max_length=7, default="#2457d6")
    text_color = models.CharField(max_length=7, default="#ffffff")
    avatar_url = models.URLField(blank=True)
    position = models.CharField(max_length=5, choices=Position.choices, default=Position.RIGHT)
    locale = models.CharField(max_length=4, choices=Locale.choices, default=Locale.PAGE)
    strings = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            "Overrides of UI strings per locale, the greeting too, e.g. "
            '{"fr": {"send": "Envoyer", "greeting": "Bonjour !"}}.'
        ),
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(primary_color__regex=COLOR) & Q(text_color__regex=COLOR),
                name="widget_colors_hex",
            )
        ]

    def __str__(self) -> str:
        return f"widget of {self.bot}"
