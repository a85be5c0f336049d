"""Per-bot overrides are versioned: each save is a new active version, rollback works, a bad one never activates."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from bots.models import PromptTemplateVersion
from prompts.selectors import bot_settings_get, template_versions_diff
from prompts.services.templates import (
    TemplateRejected,
    template_default_restore,
    template_version_activate,
    template_version_save,
)
from tests.support.factories import BotFactory, UserFactory

ANSWER = PromptTemplateVersion.Kind.ANSWER


@pytest.mark.django_db
def test_saves_create_versions_and_rollback_reactivates_an_old_one() -> None:
    bot, author = BotFactory(), UserFactory()
    v1 = template_version_save(
        bot_id=bot.pk, kind=ANSWER, source="One {{ question }}", note="first", author_id=author.pk
    )
    v2 = template_version_save(
        bot_id=bot.pk, kind=ANSWER, source="Two {{ question }}", note="second"
    )
    assert (v1.number, v2.number) == (1, 2)
    assert list(
        PromptTemplateVersion.objects.filter(is_active=True).values_list("number", flat=True)
    ) == [2]
    assert bot_settings_get(bot_id=bot.pk).answer_template.source == "Two {{ question }}"

    template_version_activate(bot_id=bot.pk, kind=ANSWER, number=1)
    settings = bot_settings_get(bot_id=bot.pk)
    assert (
        settings.answer_template.version == 1
        and settings.answer_template.source == "One {{ question }}"
    )
    assert PromptTemplateVersion.objects.get(number=1).author == author

    template_default_restore(bot_id=bot.pk, kind=ANSWER)
    assert bot_settings_get(bot_id=bot.pk).answer_template.source is None


@pytest.mark.django_db
def test_a_bad_template_is_refused_and_the_active_version_stays() -> None:
    bot = BotFactory()
    template_version_save(bot_id=bot.pk, kind=ANSWER, source="Good {{ question }}")
    with pytest.raises(TemplateRejected) as caught:
        template_version_save(bot_id=bot.pk, kind=ANSWER, source="Bad\n{{ ''.__class__ }}")
    assert caught.value.code == "template_forbidden" and "Line 2" in str(caught.value)
    assert PromptTemplateVersion.objects.count() == 1
    assert PromptTemplateVersion.objects.get().is_active


@pytest.mark.django_db
def test_a_stored_version_that_no_longer_validates_cannot_be_activated() -> None:
    bot = BotFactory()
    PromptTemplateVersion.objects.create(
        bot=bot, kind=ANSWER, number=1, source="{{ retired_variable }}"
    )
    with pytest.raises(TemplateRejected):
        template_version_activate(bot_id=bot.pk, kind=ANSWER, number=1)
    assert not PromptTemplateVersion.objects.filter(is_active=True).exists()


@pytest.mark.django_db
def test_the_database_allows_one_active_version_per_kind() -> None:
    bot = BotFactory()
    PromptTemplateVersion.objects.create(bot=bot, kind=ANSWER, number=1, source="a", is_active=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        PromptTemplateVersion.objects.create(
            bot=bot, kind=ANSWER, number=2, source="b", is_active=True
        )


@pytest.mark.django_db
def test_two_versions_can_be_compared() -> None:
    bot = BotFactory()
    template_version_save(bot_id=bot.pk, kind=ANSWER, source="same\nold line")
    template_version_save(bot_id=bot.pk, kind=ANSWER, source="same\nnew line")
    diff = template_versions_diff(bot_id=bot.pk, kind=ANSWER, old=1, new=2)
    assert "-old line" in diff and "+new line" in diff and " same" in diff
