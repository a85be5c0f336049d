"""A widget visitor as a subject: the widget's id for the browser ties its conversations together,
so an export or an erasure by visitor id (command, privacy API) covers all of them, and leaves none
of their words in a pg_dump, Valkey's keys or Valkey's files. The id is never a credential: sending
another browser's id reads and erases nothing of theirs; "Forget me" erases by session tokens."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from conversations.models import Conversation
from privacy.models import VisitorErasure
from tests.api.factories import bearer, bot_make, server_key_make, widget_key_make, workspace_make
from tests.insights.helpers import member_client
from tests.privacy.on_disk import (
    ORIGIN,
    pg_dump_holding,
    valkey_files_holding,
    valkey_files_wait_holding,
    valkey_keys_holding,
    valkey_uncompressed,
    widget_session,
    widget_visitor_talks,
)
from tests.privacy.planted import plant

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def uncompressed() -> Iterator[None]:
    yield from valkey_uncompressed()


def _bot_and_key() -> tuple[Bot, str]:
    bot = bot_make(workspace_make())
    bot.escalation_allowed = True
    bot.save()
    return bot, widget_key_make(bot, origins=(ORIGIN,)).key


def test_a_visitor_with_three_conversations_is_exported_and_erased_by_visitor_id(
    uncompressed: None,
) -> None:
    bot, key = _bot_and_key()
    workspace = bot.workspace
    visitor_id, planted, kept = f"wv_{plant()}", plant(), plant()
    mine = [
        widget_visitor_talks(Client(), key, planted=planted, widget_visitor_id=visitor_id)
        for _ in range(3)
    ]
    other = widget_visitor_talks(Client(), key, planted=kept, widget_visitor_id=f"wv_{plant()}")
    assert set(
        Conversation.objects.filter(widget_visitor_id=visitor_id).values_list("pk", flat=True)
    ) == {uuid.UUID(pk) for pk in mine}
    assert valkey_files_wait_holding([planted])

    server, _ = server_key_make(workspace, scopes=("privacy",))
    exported = Client().post(
        "/api/v1/privacy/exports",
        {"visitor_id": visitor_id},
        content_type="application/json",
        **bearer(server),
    )
    assert exported.status_code == 200, exported.content
    conversations = exported.json()["conversations"]
    assert sorted(c["id"] for c in conversations) == sorted(mine)
    assert all(c["widget_visitor_id"] == visitor_id for c in conversations)
    assert kept not in json.dumps(exported.json())
    out = io.StringIO()
    call_command(
        "visitor_export", "--workspace", workspace.slug, "--visitor-id", visitor_id, stdout=out
    )
    assert len(json.loads(out.getvalue())["conversations"]) == 3

    out = io.StringIO()
    call_command(
        "visitor_erase", "--workspace", workspace.slug, "--visitor-id", visitor_id, stdout=out
    )
    assert ": done " in out.getvalue()
    erasure = VisitorErasure.objects.get(workspace=workspace)
    assert erasure.subject_kind == "visitor" and erasure.notes == []

    assert pg_dump_holding([planted, visitor_id]) == []
    assert valkey_keys_holding([planted, visitor_id]) == []
    assert valkey_files_holding([planted]) == []
    assert pg_dump_holding([kept]) == [kept] and valkey_keys_holding([kept])
    assert Conversation.objects.filter(pk=other).exclude(widget_visitor_id="").exists()
    # Asked again: that erasure, not a 404.
    again = Client().post(
        "/api/v1/privacy/erasures",
        {"visitor_id": visitor_id},
        content_type="application/json",
        **bearer(server),
    )
    assert again.status_code == 200 and again.json()["id"] == str(erasure.pk)


def test_a_visitor_id_is_no_credential_and_forget_me_goes_by_session_tokens() -> None:
    _, key = _bot_and_key()
    victim_id, planted = f"wv_{plant()}", plant()
    client = Client()
    victim = widget_session(client, key, widget_visitor_id=victim_id)
    url = f"/api/v1/conversations/{victim['conversation_id']}"
    client.post(
        f"{url}/turns",
        {"message": f"my secret {planted}", "client_message_id": "m1"},
        content_type="application/json",
        headers=victim["headers"],
    )
    # Someone who learnt the victim's visitor id and sends it gets a conversation of their own.
    thief = widget_session(Client(), key, widget_visitor_id=victim_id)
    assert thief["conversation_id"] != victim["conversation_id"]
    assert client.get(f"{url}/messages", headers=thief["headers"]).status_code == 404
    forget = client.post(
        "/api/v1/privacy/forget",
        {"widget_visitor_id": victim_id},
        content_type="application/json",
        headers=thief["headers"],
    )
    # It erased the thief's own conversation, the one their token proves, and nothing of the victim.
    assert forget.status_code == 200, forget.content
    assert Conversation.objects.get(pk=thief["conversation_id"]).widget_visitor_id == ""
    assert Conversation.objects.get(pk=victim["conversation_id"]).widget_visitor_id == victim_id
    assert pg_dump_holding([planted]) == [planted]
    # A token of another widget key's visitor, or a forged one, proves nothing either.
    _, stranger_key = _bot_and_key()
    stranger = widget_session(Client(), stranger_key)
    refused = client.post(
        "/api/v1/privacy/forget",
        {"session_tokens": [victim["session_token"], "forged"]},
        content_type="application/json",
        headers={k: v for k, v in stranger["headers"].items() if k != "X-Parley-Session"},
    )
    assert refused.status_code == 404
    assert pg_dump_holding([planted]) == [planted]

    # The victim's own widget: its current session and an older conversation's token.
    older = widget_session(client, key, widget_visitor_id=victim_id)
    client.post(
        f"/api/v1/conversations/{older['conversation_id']}/turns",
        {"message": f"again {planted}", "client_message_id": "m1"},
        content_type="application/json",
        headers=older["headers"],
    )
    forget = client.post(
        "/api/v1/privacy/forget",
        {"session_tokens": [older["session_token"]], "widget_visitor_id": victim_id},
        content_type="application/json",
        headers=victim["headers"],
    )
    assert forget.status_code == 200 and forget.json()["status"] == "done", forget.content
    assert pg_dump_holding([planted]) == []
    erased = VisitorErasure.objects.get(pk=forget.json()["id"])
    assert erased.counts["turns"] == 2 and erased.requested_by.startswith("visitor:")


def test_the_admin_action_erases_the_visitor_of_a_conversation_in_the_users_workspaces() -> None:
    bot, key = _bot_and_key()
    visitor_id, planted = f"wv_{plant()}", plant()
    mine = [
        widget_visitor_talks(Client(), key, planted=planted, widget_visitor_id=visitor_id)
        for _ in range(2)
    ]
    url = reverse("admin:conversations_conversation_changelist")
    action = {"action": "visitors_erase", "_selected_action": [mine[0]]}
    stranger = member_client(bot_make(workspace_make()))  # an owner of another workspace
    stranger.post(url, action)
    assert pg_dump_holding([planted]) == [planted]
    response = member_client(bot).post(url, action, follow=True)
    assert "1 visitor(s) erased" in response.content.decode()
    assert pg_dump_holding([planted]) == []  # both conversations, though one was selected
    erasure = VisitorErasure.objects.get(workspace=bot.workspace)
    assert erasure.subject_kind == "visitor" and erasure.requested_by.startswith("staff:")
