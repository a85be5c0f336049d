"""The bot admin end to end through Django's test client: bad input is refused with clear errors and
nothing is saved, good input saves everything, and every page runs a fixed number of queries."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bots.models import Bot, PromptTemplateVersion
from prompt_context.models import LexiconGroup, Topic
from prompts.services.demo import demo_bot_ensure
from tests.prompts.admin_data import bot_form_data
from tests.support.factories import BotFactory, MembershipFactory


@pytest.fixture
def member(db: None) -> Client:
    membership = MembershipFactory()
    client = Client()
    client.force_login(membership.user)
    client.workspace = membership.workspace  # type: ignore[attr-defined]
    return client


def test_a_complete_bot_is_created_with_small_talk_covered_by_default(member: Client) -> None:
    data = bot_form_data(
        workspace_id=member.workspace.pk,
        topics=[("Battery & charging", "covered"), ("Competitors", "excluded")],
        lexicon=[("e-bike, pedelec, electric bike", "Pedal assisted")],
    )
    response = member.post("/admin/bots/bot/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    bot = Bot.objects.get(name="Lumi")
    assert set(bot.topics.values_list("name", "kind")) == {
        ("Battery & charging", "covered"),
        ("Competitors", "excluded"),
        ("Small talk", "covered"),
    }
    assert bot.lexicon_groups.get().terms == ["e-bike", "pedelec", "electric bike"]
    # The answer locales are stored as one space-separated list (the form accepted "en, fr").
    assert (bot.answer_locales, bot.answer_max_sentences) == ("en fr", 3)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"topics": [("Battery", "covered"), ("battery", "covered")]},
            "The topic “battery” is listed twice.",
        ),
        (
            {"topics": [("Battery", "covered"), ("Battery", "excluded")]},
            "The topic “Battery” cannot be both covered and excluded.",
        ),
        (
            {"lexicon": [("pedelec", "")]},
            "A lexicon group needs at least 2 terms (synonyms); it has 1.",
        ),
        ({"name": "x" * 121}, "Ensure this value has at most 120 characters (it has 121)."),
        (
            {"refusal_text": "y" * 1001},
            "Ensure this value has at most 1000 characters (it has 1001).",
        ),
        ({"rag_strictness": "relaxed"}, "A relaxed bot needs a relaxation statement"),
        ({"retrieval_top_k": "500"}, "Top k must be between 1 and 50."),
        ({"locale": "English!"}, "Use a language code such as en, fr or pt-BR."),
    ],
)
def test_bad_input_gets_a_clear_form_error_and_nothing_is_saved(
    member: Client, changes: dict, message: str
) -> None:
    response = member.post(
        "/admin/bots/bot/add/", bot_form_data(workspace_id=member.workspace.pk, **changes)
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert (
        not Bot.objects.exists()
        and not Topic.objects.exists()
        and not LexiconGroup.objects.exists()
    )


def test_a_topic_clashing_with_a_saved_one_is_refused_on_edit(member: Client) -> None:
    bot = BotFactory(workspace=member.workspace)
    Topic.objects.create(bot=bot, name="Battery")
    data = bot_form_data(
        workspace_id=member.workspace.pk, name=bot.name, topics=[("BATTERY", "excluded")]
    )
    data.update({"topics-INITIAL_FORMS": "0"})
    response = member.post(f"/admin/bots/bot/{bot.pk}/change/", data)
    assert response.status_code == 200
    assert "The topic “Battery” cannot be both covered and excluded." in response.content.decode()
    assert list(bot.topics.values_list("name", flat=True)) == ["Battery"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("ok\n{% for x in %}", "Line 2: syntax error"),
        ("{{ question }}\n{{ secret_key }}", "Line 2: unknown variable “secret_key”"),
        ("{{ ''.__class__ }}", "Line 1: forbidden in the sandbox"),
    ],
)
def test_a_bad_template_override_is_refused_with_its_line(
    member: Client, source: str, message: str
) -> None:
    bot = BotFactory(workspace=member.workspace)
    url = f"/admin/bots/bot/{bot.pk}/templates/answer/"
    response = member.post(url, {"action": "save", "source": source, "note": "try"})
    assert response.status_code == 200 and message in response.content.decode()
    assert not PromptTemplateVersion.objects.exists()


def test_save_override_then_roll_back_through_the_admin(member: Client) -> None:
    bot = BotFactory(workspace=member.workspace)
    url = f"/admin/bots/bot/{bot.pk}/templates/condense/"
    member.post(url, {"action": "save", "source": "v1 {{ question }}", "note": "one"})
    member.post(url, {"action": "save", "source": "v2 {{ question }}", "note": "two"})
    member.post(url, {"action": "activate", "number": "1"})
    assert PromptTemplateVersion.objects.get(is_active=True).number == 1
    page = member.get(url + "?old=1&new=2").content.decode()
    assert "+v2 {{ question }}" in page and "Active: version 1" in page


def test_preview_renders_the_admins_sample_data(member: Client) -> None:
    bot = BotFactory(workspace=member.workspace)
    response = member.post(
        f"/admin/bots/bot/{bot.pk}/preview/",
        {
            "question": "Where is my parcel?",
            "history": json.dumps([{"role": "user", "content": "I ordered a bike"}]),
            "chunks": json.dumps(
                [
                    {
                        "id": "c9",
                        "title": "Delivery",
                        "source": "d.md",
                        "page": 1,
                        "text": "Ships fast.",
                    }
                ]
            ),
            "locale": "fr",
        },
    )
    page = response.content.decode()
    assert (
        "# SECTION 1" in page and "# SECTION 4" in page and "Ships fast." in page and "c9" in page
    )
    bad = member.post(
        f"/admin/bots/bot/{bot.pk}/preview/", {"question": "q", "history": "[{]", "locale": "en"}
    )
    assert "Not valid JSON (line 1" in bad.content.decode()


def test_import_through_the_admin_is_all_or_nothing(member: Client) -> None:
    bot = BotFactory(workspace=member.workspace)
    Topic.objects.create(bot=bot, name="Keep")
    url = f"/admin/bots/bot/{bot.pk}/context/import/"
    bad = {
        "format": "parley.prompt_context",
        "version": 1,
        "covered_topics": ["A"],
        "lexicon_groups": [{"terms": []}],
    }
    response = member.post(url, {"file": SimpleUploadedFile("c.json", json.dumps(bad).encode())})
    assert "Lexicon group 1: A lexicon group needs at least 2 terms" in response.content.decode()
    assert list(bot.topics.values_list("name", flat=True)) == ["Keep"]
    good = {**bad, "lexicon_groups": [{"terms": ["a", "b"]}]}
    response = member.post(url, {"file": SimpleUploadedFile("c.json", json.dumps(good).encode())})
    assert response.status_code == 302
    assert list(bot.topics.values_list("name", flat=True)) == ["A"]


def test_the_export_action_downloads_the_context(member: Client) -> None:
    bot = BotFactory(workspace=member.workspace)
    Topic.objects.create(bot=bot, name="Battery")
    response = member.post(
        "/admin/bots/bot/", {"action": "context_export_action", "_selected_action": [str(bot.pk)]}
    )
    assert response["Content-Disposition"].startswith("attachment")
    assert json.loads(response.content)["covered_topics"] == ["Battery"]


# Measured query counts per page, for a member (not a superuser) and the fully configured demo bot.
# They do not grow with the number of bots, topics or lexicon groups.
# Each includes 5 queries for who the user is: session, user, two permission look-ups, and the user's
# roles (core.auth.workspace_roles, read once per request).
PAGE_QUERIES = {
    "changelist": ("/admin/bots/bot/", 8),
    "change": ("/admin/bots/bot/{pk}/change/", 12),  # 1 for the documents it knows (issue 51)
    "add": ("/admin/bots/bot/add/", 10),
    "preview": ("/admin/bots/bot/{pk}/preview/", 7),
    "templates": ("/admin/bots/bot/{pk}/templates/answer/", 7),
    "export": ("/admin/bots/bot/{pk}/context/export/", 8),
    "import": ("/admin/bots/bot/{pk}/context/import/", 6),
}


@pytest.mark.parametrize("page", sorted(PAGE_QUERIES))
def test_admin_pages_run_a_fixed_number_of_queries(
    member: Client, page: str, django_assert_num_queries: object
) -> None:
    bot = demo_bot_ensure(workspace_slug=member.workspace.slug)
    for index in range(5):  # more rows must not mean more queries
        extra = BotFactory(workspace=member.workspace)
        Topic.objects.create(bot=extra, name=f"Topic {index}")
        LexiconGroup.objects.create(bot=bot, terms=[f"extra {index}", f"more {index}"])
    url, expected = PAGE_QUERIES[page]
    ContentType.objects.clear_cache()  # the count must not depend on which test warmed the cache
    with django_assert_num_queries(expected):  # type: ignore[operator]
        response = member.get(url.format(pk=bot.pk))
    assert response.status_code == 200


def test_the_bot_forms_sections_read_as_plain_headings(member: Client) -> None:
    """Issue 51: "2.1 Identity", "2.2 Scope" read as an internal outline."""
    bot = BotFactory(workspace=member.workspace)
    page = member.get(f"/admin/bots/bot/{bot.pk}/change/").content.decode()
    headings = [
        re.sub(r"<[^>]+>", "", heading).strip()
        for heading in re.findall(r"<h2[^>]*>(.*?)</h2>", page, re.S)
    ]
    assert "Identity" in headings and "Scope" in headings
    assert "Scope — covered and excluded topics" in headings
    assert not [heading for heading in headings if re.match(r"\d+\.\d+\b", heading)]
