"""Bots and their business rules (spec section 2), user-facing texts and per-bot prompt overrides."""

from bots.models.bot import Bot, BotLocaleText
from bots.models.templates import PromptTemplateVersion

__all__ = ["Bot", "BotLocaleText", "PromptTemplateVersion"]
