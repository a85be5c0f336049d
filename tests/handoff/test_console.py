"""The agent console's views: agents only, their workspace only, CSRF on POSTs, a CSP on every response."""

from __future__ import annotations

import pytest
from django.test import Client

from conversations.models import Conversation
from core.models import Membership
from handoff.models import HandoffReason
from handoff.services import handoff_open
from tests.api.factories import bot_make, workspace_make
from tests.support.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _agent(workspace, name: str) -> object:  # type: ignore[no-untyped-def]
    user = UserFactory(username=name, is_staff=True)
    MembershipFactory(user=user, workspace=workspace, role=Membership.Role.AGENT)
    return user


def _csrf_client(user: object) -> tuple[Client, str]:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get("/agent/")
    assert page.status_code == 200
    assert "script-src 'self'" in page["Content-Security-Policy"]
    return client, page.cookies["csrftoken"].value


def test_console_claim_reply_and_scoping() -> None:
    workspace = workspace_make()
    bot = bot_make(workspace)
    conversation = Conversation.objects.create(bot=bot, channel="widget", visitor_id="v")
    handoff_open(conversation_id=conversation.pk, reason=HandoffReason.VISITOR_REQUEST)
    alice, bob = _agent(workspace, "alice"), _agent(workspace, "bob")
    outsider = _agent(workspace_make(), "eve")

    client, token = _csrf_client(alice)
    base = f"/agent/api/conversations/{conversation.pk}"
    assert client.post(f"{base}/claim").status_code == 403  # no CSRF token
    claimed = client.post(f"{base}/claim", headers={"X-CSRFToken": token})
    assert claimed.status_code == 200 and claimed.json()["won"] is True
    reply = client.post(
        f"{base}/messages",
        data={"text": "<b>hi</b>"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert reply.status_code == 201 and reply.json()["text"] == "<b>hi</b>"

    bob_client, bob_token = _csrf_client(bob)
    lost = bob_client.post(f"{base}/claim", headers={"X-CSRFToken": bob_token})
    assert lost.status_code == 409 and lost.json()["claimed_by"] == "alice"  # agents read logins
    assert (
        bob_client.post(
            f"{base}/messages",
            data={"text": "x"},
            content_type="application/json",
            headers={"X-CSRFToken": bob_token},
        ).status_code
        == 409
    )

    eve_client, _ = _csrf_client(outsider)
    assert eve_client.get(base).status_code == 404
    assert eve_client.get("/agent/api/queue").json() == {"conversations": []}
    pack = client.get(base).json()
    assert pack["owner"] == "agent" and pack["claimed_by"] == "alice"
    assert client.post(f"{base}/resolve", headers={"X-CSRFToken": token}).json() == {
        "owner": "resolved"
    }


def test_non_agents_are_refused() -> None:
    staff = UserFactory(username="staff", is_staff=True)
    client = Client()
    assert client.get("/agent/").status_code == 302  # to the login page
    client.force_login(staff)
    assert client.get("/agent/").status_code == 403
    assert client.get("/agent/api/queue").status_code == 403
