"""A workspace member manages their workspace's documents, keys and widget, and browses its turns, in the admin;
another workspace's rows stay invisible, and a staff user without a membership gets nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.test import Client

from api.models import ServerApiKey
from api.services import bot_signing_secret_create, server_api_key_create, widget_key_create
from conversations.models import Conversation, Turn
from core.auth import WORKSPACE_ADMINS_GROUP
from core.models import Workspace
from rag.services import document_create
from tests.support.factories import BotFactory, MembershipFactory, UserFactory


def _tenant(label: str) -> dict[str, object]:
    membership = MembershipFactory(workspace__name=f"Workspace {label}")
    bot = BotFactory(workspace=membership.workspace, name=f"Bot {label}")
    document = document_create(
        workspace=membership.workspace,
        file=ContentFile(b"text", name=f"doc-{label}.txt"),
        title=f"Manual {label}",
        bots=[bot],
    )
    server_key, _ = server_api_key_create(
        workspace=membership.workspace, name=f"server-key-{label}"
    )
    widget_key = widget_key_create(
        bot=bot, name=f"widget-key-{label}", allowed_origins=[f"https://{label}.example"]
    )
    secret = bot_signing_secret_create(bot=bot)
    conversation = Conversation.objects.create(
        bot=bot, channel="api", visitor_id=f"visitor-{label}"
    )
    turn = Turn.objects.create(
        conversation=conversation, client_message_id="m1", user_text=f"question of {label}"
    )
    return {
        "user": membership.user,
        "workspace": membership.workspace,
        "objects": {
            "rag/document": (document.pk, f"Manual {label}"),
            "api/serverapikey": (server_key.pk, f"server-key-{label}"),
            "api/widgetkey": (widget_key.pk, f"widget-key-{label}"),
            "api/botsigningsecret": (secret.pk, f"Bot {label}"),
            "conversations/turn": (turn.pk, f"question of {label}"),
        },
    }


@pytest.fixture
def tenants(db: None) -> tuple[dict, dict]:
    return _tenant("alpha"), _tenant("beta")


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "page",
    [
        "rag/document",
        "api/serverapikey",
        "api/widgetkey",
        "api/botsigningsecret",
        "conversations/turn",
    ],
)
def test_a_member_lists_and_opens_their_workspace_rows_only(
    tenants: tuple[dict, dict], page: str
) -> None:
    ours, theirs = tenants
    client = _client(ours["user"])
    listing = client.get(f"/admin/{page}/")
    assert listing.status_code == 200
    our_pk, our_marker = ours["objects"][page]
    their_pk, their_marker = theirs["objects"][page]
    assert our_marker in listing.content.decode() and their_marker not in listing.content.decode()
    assert client.get(f"/admin/{page}/{our_pk}/change/").status_code == 200
    assert (
        client.get(f"/admin/{page}/{their_pk}/change/").status_code == 302
    )  # "does not exist", like a missing row


def test_a_member_cannot_create_a_key_in_another_workspace(tenants: tuple[dict, dict]) -> None:
    ours, theirs = tenants
    client = _client(ours["user"])
    form = client.get("/admin/api/serverapikey/add/").content.decode()
    assert str(ours["workspace"].pk) in form and str(theirs["workspace"].pk) not in form
    refused = client.post(
        "/admin/api/serverapikey/add/", {"workspace": theirs["workspace"].pk, "name": "sneaky"}
    )
    assert refused.status_code == 200 and "Select a valid choice" in refused.content.decode()
    assert not ServerApiKey.objects.filter(name="sneaky").exists()
    created = client.post(
        "/admin/api/serverapikey/add/", {"workspace": ours["workspace"].pk, "name": "ours"}
    )
    assert created.status_code == 302
    assert ServerApiKey.objects.get(name="ours").workspace == ours["workspace"]


def test_a_member_cannot_revoke_another_workspaces_key_through_the_action(
    tenants: tuple[dict, dict],
) -> None:
    ours, theirs = tenants
    their_key_pk = theirs["objects"]["api/serverapikey"][0]
    _client(ours["user"]).post(
        "/admin/api/serverapikey/", {"action": "revoke", "_selected_action": [their_key_pk]}
    )
    assert ServerApiKey.objects.get(pk=their_key_pk).revoked_at is None


def test_a_staff_user_without_a_membership_is_refused(tenants: tuple[dict, dict]) -> None:
    client = _client(UserFactory())
    for page in ["rag/document", "api/serverapikey", "conversations/turn"]:
        assert client.get(f"/admin/{page}/").status_code == 403


def test_the_grants_come_back_after_a_flush(transactional_db: None) -> None:
    """A database flush (transactional tests do one) emits post_migrate, which restores the group's grants."""
    MembershipFactory()
    call_command("flush", interactive=False, verbosity=0)
    group = Group.objects.get(name=WORKSPACE_ADMINS_GROUP)
    codenames = set(group.permissions.values_list("codename", flat=True))
    assert {
        "view_document",
        "add_serverapikey",
        "view_turn",
        "change_widgetkey",
        "view_bot",
    } <= codenames
    assert not Workspace.objects.exists()
