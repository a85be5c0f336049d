"""Reads of a bot's Rag prompt context, as plain data."""

from __future__ import annotations

import json
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
    for name, kind in (
        Topic.objects.filter(bot_id=bot_id).order_by("name").values_list("name", "kind")
    ):
        (covered if kind == Topic.Kind.COVERED else excluded).append(name)
    lexicon = tuple(
        (tuple(terms), definition)
        for terms, definition in LexiconGroup.objects.filter(bot_id=bot_id).values_list(
            "terms", "definition"
        )
    )
    return PromptContextData(tuple(covered), tuple(excluded), lexicon)


# The same data as two SELECT-list expressions (`prompt_topics`, `prompt_lexicon`: JSON text), for a
# statement whose bot table is aliased `b`, so a caller reading the bot gets it in the same round trip.
PROMPT_CONTEXT_COLUMNS_SQL = """
(SELECT coalesce(json_agg(json_build_object('name', t.name, 'kind', t.kind) ORDER BY t.name), '[]')::text
 FROM prompt_context_topic AS t WHERE t.bot_id = b.id) AS prompt_topics,
(SELECT coalesce(json_agg(json_build_object('terms', g.terms, 'definition', g.definition) ORDER BY g.id), '[]')::text
 FROM prompt_context_lexicongroup AS g WHERE g.bot_id = b.id) AS prompt_lexicon
"""


def prompt_context_from_json(*, topics: str, lexicon: str) -> PromptContextData:
    """PromptContextData from the two columns of `PROMPT_CONTEXT_COLUMNS_SQL`."""
    rows: list[dict[str, Any]] = json.loads(topics)
    covered = tuple(row["name"] for row in rows if row["kind"] == Topic.Kind.COVERED)
    excluded = tuple(row["name"] for row in rows if row["kind"] != Topic.Kind.COVERED)
    groups = tuple((tuple(group["terms"]), group["definition"]) for group in json.loads(lexicon))
    return PromptContextData(covered, excluded, groups)


def prompt_context_export(*, bot_id: Any) -> dict[str, Any]:
    """The JSON document an admin downloads, and can import into any bot."""
    data = prompt_context_get(bot_id=bot_id)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "covered_topics": list(data.covered_topics),
        "excluded_topics": list(data.excluded_topics),
        "lexicon_groups": [
            {"terms": list(terms), "definition": definition} for terms, definition in data.lexicon
        ],
    }
