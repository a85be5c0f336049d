"""Validation rules of a Rag prompt context as plain functions, shared by admin formsets and the JSON import.

Each function returns human-readable problems instead of raising, so callers can report them all at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from prompt_context.limits import (
    DEFINITION_MAX,
    LEXICON_GROUPS_MAX,
    TERM_MAX,
    TERMS_PER_GROUP_MAX,
    TERMS_PER_GROUP_MIN,
    TOPIC_NAME_MAX,
    TOPICS_MAX,
)


def topic_problems(topics: Iterable[tuple[str, str]]) -> list[str]:
    """Problems with a whole list of (name, kind) pairs: blanks, lengths, duplicates and contradictions."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    items = list(topics)
    if len(items) > TOPICS_MAX:
        problems.append(f"A bot can have at most {TOPICS_MAX} topics; this has {len(items)}.")
    for name, kind in items:
        clean = name.strip()
        if not clean:
            problems.append("A topic name cannot be empty.")
            continue
        if len(clean) > TOPIC_NAME_MAX:
            problems.append(
                f"The topic “{clean[:40]}…” is longer than {TOPIC_NAME_MAX} characters."
            )
        key = clean.casefold()
        if key in seen:
            if seen[key] == kind:
                problems.append(f"The topic “{clean}” is listed twice.")
            else:
                problems.append(f"The topic “{clean}” cannot be both covered and excluded.")
        seen[key] = kind
    return problems


def lexicon_group_problems(terms: list[str], definition: str = "") -> list[str]:
    """Problems with one lexicon group."""
    problems: list[str] = []
    clean = [term.strip() for term in terms if term.strip()]
    if len(clean) < TERMS_PER_GROUP_MIN:
        problems.append(
            f"A lexicon group needs at least {TERMS_PER_GROUP_MIN} terms (synonyms); it has {len(clean)}."
        )
    if len(clean) > TERMS_PER_GROUP_MAX:
        problems.append(
            f"A lexicon group holds at most {TERMS_PER_GROUP_MAX} terms; it has {len(clean)}."
        )
    for term in clean:
        if len(term) > TERM_MAX:
            problems.append(f"The term “{term[:40]}…” is longer than {TERM_MAX} characters.")
    lowered = [term.casefold() for term in clean]
    if len(set(lowered)) != len(lowered):
        problems.append("A lexicon group lists the same term twice.")
    if len(definition) > DEFINITION_MAX:
        problems.append(
            f"A definition is at most {DEFINITION_MAX} characters; it has {len(definition)}."
        )
    return problems


def lexicon_count_problems(count: int) -> list[str]:
    if count > LEXICON_GROUPS_MAX:
        return [f"A bot can have at most {LEXICON_GROUPS_MAX} lexicon groups; this has {count}."]
    return []
