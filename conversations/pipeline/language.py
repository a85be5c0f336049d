"""The language a turn answers in: the user's message's, when the bot may answer in it, else the bot's locale.

A message too short for the identifier (textmodels.language) still has one when a guard's phrase named it
("Bonjour !", "un humain"); anything else falls back to the bot's default locale.
"""

from __future__ import annotations

from conversations.guards import message_screen
from prompts.engine import BotSettings
from textmodels.language import language_detect


def turn_locale(*, bot: BotSettings, question: str) -> str:
    """One of the bot's answer locales (as the bot spells it), the default locale when none fits."""
    language = message_language(question=question)
    if language:
        for code in bot.answer_locales_allowed():
            if language in (code, code.split("-")[0]):
                return code
    return bot.rules.locale.lower()


def message_language(*, question: str) -> str:
    """The message's ISO 639-1 code, or '' when it is too short or unclear to tell."""
    detected = language_detect(question)
    if detected:
        return detected
    guard = message_screen(text=question)
    return guard.language if guard is not None else ""
