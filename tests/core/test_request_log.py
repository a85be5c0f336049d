"""Issue 51: a refused admin page (403) is logged in one line (user, path, missing permission), not
with the sixty-line traceback Django's ``django.request`` logger attaches to a PermissionDenied."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from core.models import Membership
from tests.support.factories import PASSWORD, BotFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_refused_admin_page_is_logged_in_one_line_naming_user_path_and_permission(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = UserFactory(username="agent-refused", is_staff=True)
    bot = BotFactory()
    MembershipFactory(user=agent, workspace=bot.workspace, role=Membership.Role.AGENT)
    client = Client()
    assert client.login(username="agent-refused", password=PASSWORD)

    with caplog.at_level(logging.WARNING, logger="django.request"):
        try_it = f"/admin/conversations/turn/try/{bot.pk}/"
        assert client.get(try_it).status_code == 403  # a custom view (role_view)
        assert client.get("/admin/bots/bot/").status_code == 403  # Django's own changelist

    refusals = [r for r in caplog.records if r.name == "django.request"]
    assert [r.getMessage() for r in refusals] == [
        f"Forbidden: user=agent-refused path={try_it} missing=bots.view_bot",
        "Forbidden: user=agent-refused path=/admin/bots/bot/ missing=bots.view_bot",
    ]
    assert all(r.exc_info is None for r in refusals)
    assert "Traceback" not in caplog.text
    assert len(caplog.text.strip().splitlines()) == 2
