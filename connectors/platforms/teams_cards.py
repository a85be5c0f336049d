"""What an outgoing text becomes in Teams: messages in Teams markdown cut between sentences, an answer's last
piece with its sources as an Adaptive Card."""

from __future__ import annotations

from typing import Any

from botbuilder.core import CardFactory, MessageFactory  # type: ignore[import-untyped]  # the Bot Framework SDK ships no type information
from botbuilder.schema import Activity  # type: ignore[import-untyped]  # the Bot Framework SDK ships no type information

from connectors.notices import notice
from connectors.platforms.base import Outgoing
from connectors.text import text_split

TEXT_LIMIT = 4000  # far below a Teams message's ~28 KB, so a card around it fits too


def teams_activities(outgoing: Outgoing) -> list[Activity]:
    """The messages an outgoing text becomes (Teams markdown), cut between sentences; an answer's
    last piece, with its sources, as an Adaptive Card."""
    text = outgoing.text
    if outgoing.kind == "agent" and outgoing.author:
        text = f"**{outgoing.author}**: {text}"
    elif outgoing.kind == "notice":
        text = f"_{text}_"
    pieces = text_split(text, limit=TEXT_LIMIT, language=outgoing.locale)
    activities = [MessageFactory.text(piece) for piece in pieces]
    if outgoing.sources:
        card = CardFactory.adaptive_card(answer_card(pieces[-1], outgoing=outgoing))
        activities[-1] = MessageFactory.attachment(card)
    for activity in activities:
        activity.text_format = "markdown"
    return activities


def answer_card(text: str, *, outgoing: Outgoing) -> dict[str, Any]:
    """An Adaptive Card: the answer, then its numbered sources in small subtle lines."""
    page = notice("page", locale=outgoing.locale)
    sources = [
        {
            "type": "TextBlock",
            "text": f"[{s.n}] {s.title}" + (f", {page} {s.page}" if s.page else ""),
            "wrap": True,
            "size": "Small",
            "isSubtle": True,
            "spacing": "None",
        }
        for s in outgoing.sources
    ]
    return {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": [
            {"type": "TextBlock", "text": text, "wrap": True},
            {
                "type": "TextBlock",
                "text": notice("sources", locale=outgoing.locale),
                "weight": "Bolder",
                "size": "Small",
                "separator": True,
                "spacing": "Medium",
            },
            *sources,
        ],
    }
