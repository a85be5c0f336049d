"""How an agent is named to visitors: the display name the agent (or an admin) chose, else a neutral
label in the conversation's language. The login never reaches a visitor."""

from __future__ import annotations

from typing import Any

# The neutral label of an agent who chose no name, per language (the bot's locale's language).
AGENT_LABELS: dict[str, str] = {"en": "Agent", "fr": "Conseiller"}
DEFAULT_LANGUAGE = "en"


def agent_label(*, locale: str) -> str:
    """The neutral label in the locale's language ("fr-CA" reads "fr"), English when it has none."""
    language = locale.lower().replace("_", "-").split("-")[0]
    return AGENT_LABELS.get(language, AGENT_LABELS[DEFAULT_LANGUAGE])


def agent_chosen_name(user: Any) -> str:
    """The display name the agent chose, or '' (no profile yet, or an empty name)."""
    profile = getattr(user, "agent_profile", None)  # RelatedObjectDoesNotExist is an AttributeError
    return profile.display_name if profile is not None else ""


def agent_display_name(user: Any, *, locale: str = DEFAULT_LANGUAGE) -> str:
    """What visitors (and other agents) read for this agent; '' only when there is no agent at all."""
    if user is None:
        return ""
    return agent_chosen_name(user) or agent_label(locale=locale)


def agent_console_name(user: Any) -> str:
    """What agents read for a colleague (never visitors): the display name with the login, so two
    agents who chose no name, or the same one, still tell each other apart."""
    if user is None:
        return ""
    chosen, login = agent_chosen_name(user), user.get_username()
    return f"{chosen} ({login})" if chosen and chosen != login else login
