"""Agents' display names: set by the agent in the console, or by an admin on the user's page."""

from __future__ import annotations

from typing import Any

from core.errors import ErrorKind, ParleyError
from handoff.models import AgentProfile

DISPLAY_NAME_MAX = AgentProfile._meta.get_field("display_name").max_length or 80


class AgentProfileError(ParleyError):
    kind = ErrorKind.INVALID
    code = "invalid_display_name"


def display_name_clean(value: str) -> str:
    """One line of printable text with single spaces (a name is shown inline, in every chat)."""
    printable = "".join(char if char.isprintable() else " " for char in value)
    return " ".join(printable.split())


def agent_profile_update(*, user: Any, display_name: str) -> AgentProfile:
    """Sets (or, with an empty name, clears) the name visitors see for this agent."""
    name = display_name_clean(display_name)
    if len(name) > DISPLAY_NAME_MAX:
        raise AgentProfileError(
            f"a display name has at most {DISPLAY_NAME_MAX} characters",
            extra={"max_length": DISPLAY_NAME_MAX},
        )
    profile, _ = AgentProfile.objects.update_or_create(user=user, defaults={"display_name": name})
    return profile
