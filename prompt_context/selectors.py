"""Reads of a bot's Rag prompt context, as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prompt_context.models import LexiconGroup, Topic

EXPORT_FORMAT = "parley.prompt_context"
EXPORT_VERSION = 1


@dataclass(frozen=True)
class PromptContextData:
    covered_topics: tuple[str, ...]
    excluded_topics: tuple[str, ...]
    lexicon: tuple[tuple[tuple[str, ...], str], ...]  # (terms, definition)


def prompt_context_get(*, bot_id: Any) -> PromptContextData:
    """Topics (covered first, then excluded, by name) and lexicon groups of one bot: two queries."""
    covered: list[str] = []
    excluded: list[str] = []
    for name, kind in Topic.objects.filter(bot_id=bot_id).order_by("name").values_list("name", "kind"):
        (covered if kind == Topic.Kind.COVERED else excluded).append(name)
    lexicon = tuple(
        (tuple(terms), definition)
        for terms, definition in LexiconGroup.objects.filter(bot_id=bot_id).values_list("terms", "definition")
    )
    return PromptContextData(tuple(covered), tuple(excluded), lexicon)


def prompt_context_export(*, bot_id: Any) -> dict[str, Any]:
    """The JSON document an admin downloads, and can import into any bot."""
    data = prompt_context_get(bot_id=bot_id)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "covered_topics": list(data.covered_topics),
        "excluded_topics": list(data.excluded_topics),
        "lexicon_groups": [{"terms": list(terms), "definition": definition} for terms, definition in data.lexicon],
    }
