"""The Rag prompt context's invariants hold in the database, and its JSON import is validated and all or nothing."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, transaction

from prompt_context.models import LexiconGroup, Topic
from prompt_context.selectors import prompt_context_export
from prompt_context.services import (
    PromptContextImportError,
    prompt_context_defaults_ensure,
    prompt_context_import,
)
from tests.support.factories import BotFactory, LexiconGroupFactory, TopicFactory


@pytest.mark.django_db
@pytest.mark.parametrize("kind", [Topic.Kind.COVERED, Topic.Kind.EXCLUDED])
def test_a_topic_name_is_unique_per_bot_whatever_its_case_or_kind(kind: str) -> None:
    bot = BotFactory()
    TopicFactory(bot=bot, name="Battery")
    with pytest.raises(IntegrityError), transaction.atomic():
        Topic.objects.create(bot=bot, name="battery", kind=kind)
    TopicFactory(bot=BotFactory(), name="Battery")  # another bot may use the name


@pytest.mark.django_db
def test_a_lexicon_group_needs_two_terms_in_the_database() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        LexiconGroup.objects.create(bot=BotFactory(), terms=["lonely"])


@pytest.mark.django_db
def test_small_talk_is_covered_by_default_once() -> None:
    bot = BotFactory()
    prompt_context_defaults_ensure(bot_id=bot.pk)
    prompt_context_defaults_ensure(bot_id=bot.pk)
    assert list(Topic.objects.filter(bot=bot).values_list("name", "kind")) == [
        ("Small talk", "covered")
    ]


@pytest.mark.django_db
def test_export_then_import_into_another_bot_round_trips() -> None:
    source = BotFactory()
    (
        TopicFactory(bot=source, name="Battery"),
        TopicFactory(bot=source, name="Cars", kind=Topic.Kind.EXCLUDED),
    )
    LexiconGroupFactory(bot=source, terms=["e-bike", "pedelec"], definition="Pedal assisted.")
    exported = prompt_context_export(bot_id=source.pk)
    target = BotFactory()
    TopicFactory(bot=target, name="Old topic")
    counts = prompt_context_import(bot_id=target.pk, raw=json.dumps(exported).encode())
    assert counts == {"topics": 2, "lexicon_groups": 1}
    assert prompt_context_export(bot_id=target.pk) == exported


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"{not json", "not valid JSON (line 1"),
        (b"[1, 2]", "must hold a JSON object"),
        (b"\xff\xfe", "not UTF-8"),
        (json.dumps({"format": "other"}).encode(), '"format" must be'),
        (
            json.dumps(
                {
                    "format": "parley.prompt_context",
                    "version": 1,
                    "covered_topics": ["A"],
                    "excluded_topics": ["a"],
                }
            ).encode(),
            "cannot be both covered and excluded",
        ),
        (
            json.dumps(
                {"format": "parley.prompt_context", "version": 1, "covered_topics": ["A", "A"]}
            ).encode(),
            "listed twice",
        ),
        (
            json.dumps(
                {
                    "format": "parley.prompt_context",
                    "version": 1,
                    "lexicon_groups": [{"terms": ["only one"]}],
                }
            ).encode(),
            "Lexicon group 1: A lexicon group needs at least 2 terms",
        ),
        (
            json.dumps(
                {"format": "parley.prompt_context", "version": 1, "covered_topics": ["x" * 81]}
            ).encode(),
            "longer than 80 characters",
        ),
        (b" " * (600 * 1024), "larger than 512 KB"),
    ],
)
def test_an_invalid_file_changes_nothing_and_says_what_is_wrong(raw: bytes, expected: str) -> None:
    bot = BotFactory()
    TopicFactory(bot=bot, name="Keep me")
    LexiconGroupFactory(bot=bot)
    with pytest.raises(PromptContextImportError) as caught:
        prompt_context_import(bot_id=bot.pk, raw=raw)
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems
    assert list(Topic.objects.filter(bot=bot).values_list("name", flat=True)) == ["Keep me"]
    assert LexiconGroup.objects.filter(bot=bot).count() == 1
