"""Reads of a bot's Rag prompt context, as plain data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import Expression, OuterRef
from django.db.models.functions import JSONObject

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


def prompt_context_annotations(*, bot_ref: str = "pk") -> dict[str, Expression]:
    """The same data as subquery annotations on a Bot queryset (`bot_ref` names the bot's id there), so
    a caller reading the bot gets its prompt context in the same query; decode with `prompt_context_from_row`."""
    topics = Topic.objects.filter(bot_id=OuterRef(bot_ref)).order_by("name")
    lexicon = LexiconGroup.objects.filter(bot_id=OuterRef(bot_ref)).order_by("id")
    return {
        "prompt_topics": ArraySubquery(topics.values(json=JSONObject(name="name", kind="kind"))),
        "prompt_lexicon": ArraySubquery(lexicon.values(json=JSONObject(terms="terms", definition="definition"))),
    }


def prompt_context_from_row(row: Any) -> PromptContextData:
    """PromptContextData from an object annotated with `prompt_context_annotations`."""
    topics: list[Mapping[str, Any]] = row.prompt_topics
    covered = tuple(t["name"] for t in topics if t["kind"] == Topic.Kind.COVERED)
    excluded = tuple(t["name"] for t in topics if t["kind"] != Topic.Kind.COVERED)
    lexicon = tuple((tuple(group["terms"]), group["definition"]) for group in row.prompt_lexicon)
    return PromptContextData(covered, excluded, lexicon)


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
