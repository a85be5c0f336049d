"""The feedback admin reads on its own: each row shows the visitor's question, the answer they rated
(truncated in the list, whole on the row's page), the rating and reasons in words, and links to the
turn's audit. A member of another workspace sees none of it."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from playwright.sync_api import Page, expect

from conversations.models import Conversation, Turn
from core.models import Membership
from handoff.feedback import turn_feedback_record
from tests.support.browser import admin_login, artifact_path
from tests.support.factories import PASSWORD, BotFactory, MembershipFactory

QUESTION = "Can I charge the battery below freezing?"
ANSWER = (
    "Do not charge the battery below 0 °C: bring it indoors and let it warm up for an hour first. "
    "Charging a cold battery damages its cells and is not covered by the warranty."
)


def _rated(*, workspace: object) -> Turn:
    bot = BotFactory(workspace=workspace)
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    turn = Turn.objects.create(
        conversation=conversation,
        client_message_id="m1",
        user_text=QUESTION,
        status=Turn.Status.FOUND_IN_CONTEXT,
        answer=ANSWER,
        reply_text=ANSWER,
    )
    turn_feedback_record(
        turn_id=turn.pk, rating="down", reasons=["incomplete", "wrong"], comment="too vague"
    )
    return turn


@pytest.mark.django_db
def test_a_stranger_sees_no_feedback_of_another_workspace() -> None:
    owner = MembershipFactory(role=Membership.Role.OWNER)
    stranger = MembershipFactory()
    turn = _rated(workspace=owner.workspace)
    client = Client()
    client.force_login(stranger.user)

    listed = client.get("/admin/handoff/turnfeedback/")
    row = client.get(f"/admin/handoff/turnfeedback/{turn.pk}/change/")

    assert listed.status_code == 200 and QUESTION not in listed.content.decode()
    assert row.status_code == 302


@pytest.mark.django_db
def test_the_feedback_list_costs_the_same_queries_for_one_row_or_many() -> None:
    owner = MembershipFactory(role=Membership.Role.OWNER)
    _rated(workspace=owner.workspace)
    client = Client()
    client.force_login(owner.user)

    def listed() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/admin/handoff/turnfeedback/").status_code == 200
        return len(queries)

    one = listed()
    for _ in range(5):
        _rated(workspace=owner.workspace)
    assert listed() == one


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_feedback_rows_show_the_question_the_answer_and_the_reasons(
    page: Page, admin_base: str
) -> None:
    member = MembershipFactory(role=Membership.Role.OWNER)
    turn = _rated(workspace=member.workspace)
    admin_login(page, base_url=admin_base, username=member.user.username, password=PASSWORD)

    page.goto(f"{admin_base}/admin/handoff/turnfeedback/")
    row = page.locator("#result_list tbody tr").first
    expect(row.locator("td.field-question_short")).to_have_text(QUESTION)
    shown = row.locator("td.field-answer_short").inner_text()
    assert shown.endswith("…") and ANSWER.startswith(shown[:-1]) and len(shown) < len(ANSWER)
    expect(row.locator("td.field-reason_words")).to_have_text("Incomplete, Wrong")
    expect(row.locator("td.field-rating_words")).to_have_text("Not helpful")
    filters = page.locator("#changelist-filter")
    expect(filters).to_contain_text("Helpful")  # the ratings in words, not emoji
    expect(filters).to_contain_text("Not helpful")
    page.screenshot(path=str(artifact_path("admin-feedback-list.png")), full_page=False)

    row.locator("th a, td a").first.click()  # the row's own page
    page.wait_for_url(re.compile(rf".*/admin/handoff/turnfeedback/{turn.pk}/change/$"))
    expect(page.locator(".field-question .readonly")).to_have_text(QUESTION)
    expect(page.locator(".field-answer .readonly")).to_have_text(ANSWER)
    expect(page.locator(".field-reason_words .readonly")).to_have_text("Incomplete, Wrong")
    expect(page.locator(".field-comment .readonly")).to_have_text("too vague")
    page.screenshot(path=str(artifact_path("admin-feedback-row.png")), full_page=False)

    page.locator("a.feedback-turn").click()
    page.wait_for_url(re.compile(rf".*/admin/conversations/turn/{turn.pk}/change/$"))
    expect(page.locator("#content")).to_contain_text(QUESTION)
