"""Writes to a bot's Rag prompt context: the default topics, and the all-or-nothing JSON import."""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction

from core.errors import ErrorKind, ParleyError
from prompt_context.limits import IMPORT_MAX_BYTES
from prompt_context.models import SMALL_TALK, LexiconGroup, Topic
from prompt_context.rules import lexicon_count_problems, lexicon_group_problems, topic_problems
from prompt_context.selectors import EXPORT_FORMAT, EXPORT_VERSION


class PromptContextImportError(ParleyError):
    """An import file that was refused; `problems` lists everything wrong with it."""

    code = "prompt_context_invalid"
    kind = ErrorKind.INVALID

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems), extra={"problems": list(problems)})
        self.problems = problems


def prompt_context_defaults_ensure(*, bot_id: Any) -> None:
    """ "Small talk" is a covered topic unless the bot already has a topic of that name."""
    if not Topic.objects.filter(bot_id=bot_id, name__iexact=SMALL_TALK).exists():
        Topic.objects.create(bot_id=bot_id, name=SMALL_TALK, kind=Topic.Kind.COVERED)


def prompt_context_import(*, bot_id: Any, raw: bytes) -> dict[str, int]:
    """Replace a bot's topics and lexicon with the file's, or change nothing and raise with every problem."""
    topics, groups = _parse(raw)
    with transaction.atomic():
        Topic.objects.filter(bot_id=bot_id).delete()
        LexiconGroup.objects.filter(bot_id=bot_id).delete()
        Topic.objects.bulk_create(
            Topic(bot_id=bot_id, name=name, kind=kind) for name, kind in topics
        )
        LexiconGroup.objects.bulk_create(
            LexiconGroup(bot_id=bot_id, terms=terms, definition=definition)
            for terms, definition in groups
        )
    return {"topics": len(topics), "lexicon_groups": len(groups)}


def _parse(raw: bytes) -> tuple[list[tuple[str, str]], list[tuple[list[str], str]]]:
    if len(raw) > IMPORT_MAX_BYTES:
        raise PromptContextImportError([f"The file is larger than {IMPORT_MAX_BYTES // 1024} KB."])
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise PromptContextImportError(["The file is not UTF-8 text."]) from None
    except json.JSONDecodeError as exc:
        raise PromptContextImportError(
            [f"The file is not valid JSON (line {exc.lineno}: {exc.msg})."]
        ) from None
    if not isinstance(document, dict):
        raise PromptContextImportError(["The file must hold a JSON object."])
    problems: list[str] = []
    if document.get("format") != EXPORT_FORMAT or document.get("version") != EXPORT_VERSION:
        problems.append(
            f'"format" must be "{EXPORT_FORMAT}" and "version" must be {EXPORT_VERSION}.'
        )
    topics: list[tuple[str, str]] = []
    for key, kind in (
        ("covered_topics", Topic.Kind.COVERED),
        ("excluded_topics", Topic.Kind.EXCLUDED),
    ):
        names = document.get(key, [])
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            problems.append(f'"{key}" must be a list of strings.')
            continue
        topics.extend((name.strip(), kind) for name in names)
    problems.extend(topic_problems(topics))
    groups: list[tuple[list[str], str]] = []
    raw_groups = document.get("lexicon_groups", [])
    if not isinstance(raw_groups, list):
        problems.append('"lexicon_groups" must be a list.')
        raw_groups = []
    problems.extend(lexicon_count_problems(len(raw_groups)))
    for index, group in enumerate(raw_groups, start=1):
        terms = group.get("terms") if isinstance(group, dict) else None
        definition = group.get("definition") or "" if isinstance(group, dict) else ""
        if (
            not isinstance(terms, list)
            or not all(isinstance(t, str) for t in terms)
            or not isinstance(definition, str)
        ):
            problems.append(
                f'Lexicon group {index}: "terms" must be a list of strings and "definition" a string.'
            )
            continue
        problems.extend(
            f"Lexicon group {index}: {p}" for p in lexicon_group_problems(terms, definition)
        )
        groups.append(([t.strip() for t in terms if t.strip()], definition.strip()))
    if problems:
        raise PromptContextImportError(problems)
    return topics, groups


def topic_cover(*, bot_id: Any, name: str) -> Topic:
    """Add `name` as a covered topic of the bot (a no-op when it already is one); raises
    PromptContextImportError with the problems when the name is invalid, excluded, or one too many."""
    clean = name.strip()
    with transaction.atomic():
        existing = list(Topic.objects.select_for_update().filter(bot_id=bot_id))
        for topic in existing:
            if topic.name.casefold() == clean.casefold() and topic.kind == Topic.Kind.COVERED:
                return topic
        problems = topic_problems(
            [(topic.name, topic.kind) for topic in existing] + [(clean, Topic.Kind.COVERED)]
        )
        if problems:
            raise PromptContextImportError(problems)
        return Topic.objects.create(bot_id=bot_id, name=clean, kind=Topic.Kind.COVERED)
