"""An entry's diff names what a person changed (issue 51, finding 5): a form that sends the stored
text back with "\r\n" line ends, or with a trailing blank, changes nothing that is recorded."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from audit.changes import changes_cleaned
from audit.models import AuditEntry
from bots.models import Bot
from core.models import Membership
from tests.api.factories import workspace_make
from tests.audit.admin_forms import admin_change_data
from tests.prompts.admin_data import bot_form_data

pytestmark = pytest.mark.django_db

TRIGGERS = "talk to a human\nspeak to an agent\nI want a person"


def test_saving_the_bot_with_only_its_formality_changed_records_one_change() -> None:
    workspace = workspace_make()
    owner = get_user_model().objects.create_user("ada", password="pw-123-long", is_staff=True)
    Membership.objects.create(workspace=workspace, user=owner, role=Membership.Role.OWNER)
    admin = Client()
    admin.force_login(owner)
    data = bot_form_data(workspace_id=workspace.pk, escalation_triggers=TRIGGERS)
    assert admin.post("/admin/bots/bot/add/", data).status_code == 302
    bot = Bot.objects.get(workspace=workspace)
    assert bot.escalation_triggers == TRIGGERS and bot.formality == "friendly"
    last = AuditEntry.objects.order_by("-pk").values_list("pk", flat=True).first()

    change_url = f"/admin/bots/bot/{bot.pk}/change/"
    sent = admin_change_data(admin.get(change_url))
    # What a browser sends back: every text area's line ends as "\r\n".
    sent = {
        name: value.replace("\n", "\r\n") if isinstance(value, str) else value
        for name, value in sent.items()
    }
    assert sent["escalation_triggers"] == TRIGGERS.replace("\n", "\r\n")
    sent["formality"] = "formal"
    assert admin.post(change_url, sent).status_code == 302

    entries = list(AuditEntry.objects.filter(pk__gt=last, kind=AuditEntry.Kind.BOT))
    assert [(entry.action, entry.changes) for entry in entries] == [
        (AuditEntry.Action.UPDATE, {"formality": ["friendly", "formal"]})
    ]


def test_only_a_difference_a_reader_sees_is_kept() -> None:
    changes = {
        "escalation_triggers": ["a\nb", "a\r\nb"],
        "refusal_text": ["Not here.", "Not here.  \n"],
        "answer_locales": [["en", "fr "], ["en", "fr"]],
        "name": ["Lumi", "Lumi 2"],
        "role": ["", "a helper"],
        "formality": [None, "neutral"],
        "bots": {"type": "m2m", "operation": "add", "objects": ["Lumi"]},
    }
    assert changes_cleaned(changes) == {
        "name": ["Lumi", "Lumi 2"],
        "role": ["", "a helper"],
        "formality": [None, "neutral"],
        "bots": {"type": "m2m", "operation": "add", "objects": ["Lumi"]},
    }
    assert changes_cleaned({"body": ["x\r\n", "x"]}) is None
    assert changes_cleaned({"password": ["h1", "h2"]}, redact=["password"]) == {
        "password": ["", "changed"]
    }
