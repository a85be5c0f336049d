"""Admin registrations of the prompts app (the bot admin and its extra pages)."""

from prompts.admin import bot  # noqa: F401  (registers BotAdmin)
