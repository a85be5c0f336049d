"""Scoping: a workspace's owner reads and exports only the entries of the workspaces they own; a member
who does not own it reads none; a superuser reads all, failed logins under an unknown name included.
And the address recorded is the caller's: X-Forwarded-For only when the proxy is declared."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory

from audit.context import client_address
from audit.models import AuditEntry
from core.models import Membership
from tests.api.factories import workspace_make
from tests.audit.helpers import entry_make, not_owner_role, staff_client

pytestmark = pytest.mark.django_db
BASE = "/admin/audit/auditentry/"


def test_an_owner_sees_and_exports_only_the_entries_of_their_workspaces() -> None:
    mine, theirs = workspace_make(), workspace_make()
    own = entry_make(workspace=mine, repr_="mine-bot")
    other = entry_make(workspace=theirs, repr_="their-bot")
    owner = staff_client(mine, role=Membership.Role.OWNER, name="owner")
    page = owner.get(BASE)
    assert page.status_code == 200
    assert "mine-bot" in page.content.decode() and "their-bot" not in page.content.decode()
    assert owner.get(f"{BASE}{other.pk}/change/").status_code == 302  # "does not exist"
    exported = owner.post(
        BASE, {"action": "export_json", "_selected_action": [str(own.pk), str(other.pk)]}
    )
    assert [row["object_repr"] for row in json.loads(exported.content)] == ["mine-bot"]
    # The workspace filter offers only the owner's workspaces.
    assert theirs.name not in owner.get(BASE).content.decode()

    member = staff_client(mine, role=not_owner_role(), name="member")
    listing = member.get(BASE).content.decode()
    assert "mine-bot" not in listing and "their-bot" not in listing


def test_a_failed_login_under_an_unknown_name_is_for_superusers_only() -> None:
    workspace = workspace_make()
    Client(REMOTE_ADDR="192.0.2.44").post(
        "/admin/login/", {"username": "nobody-here", "password": "guess"}
    )
    failed = AuditEntry.objects.get(kind=AuditEntry.Kind.LOGIN_FAILED)
    assert failed.object_repr == "nobody-here" and failed.workspaces == []
    assert failed.remote_addr == "192.0.2.44" and "guess" not in json.dumps(failed.changes)
    owner = staff_client(workspace, role=Membership.Role.OWNER, name="owner")
    assert "nobody-here" not in owner.get(BASE).content.decode()
    root = Client()
    root.force_login(get_user_model().objects.create_superuser("root", password="pw-123-long"))
    assert "nobody-here" in root.get(BASE).content.decode()


def test_the_address_is_the_callers_and_a_forwarded_one_only_behind_a_declared_proxy(
    settings,  # type: ignore[no-untyped-def]
) -> None:
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.20"
    )
    settings.PARLEY_AUDIT_FORWARDED_FOR = False
    assert client_address(request) == "10.0.0.2"  # the header is the client's to write
    settings.PARLEY_AUDIT_FORWARDED_FOR = True
    assert client_address(request) == "198.51.100.20"  # the proxy's own addition, not the first
    assert client_address(RequestFactory().get("/", REMOTE_ADDR="not-an-ip")) is None


def test_the_admin_filters_by_who_kind_object_workspace_and_date() -> None:
    first, second = workspace_make(), workspace_make()
    entry_make(workspace=first, repr_="first-bot")
    entry_make(workspace=second, repr_="second-bot")
    root = Client()
    root.force_login(get_user_model().objects.create_superuser("root", password="pw-123-long"))
    Client().post("/admin/login/", {"username": "mallory", "password": "guess"})

    def listed(**query: str) -> set[str]:
        rows = root.get(BASE, query).context["cl"].result_list
        return {entry.object_repr for entry in rows} & {"first-bot", "second-bot", "mallory"}

    assert listed() == {"first-bot", "second-bot", "mallory"}
    assert listed(workspace=str(first.pk)) == {"first-bot"}
    assert listed(kind="login_failed") == {"mallory"}
    assert listed(actor="system") == {"first-bot", "second-bot"}
    assert listed(q="second") == {"second-bot"}
    bot_type = AuditEntry.objects.get(object_repr="first-bot").content_type_id
    assert listed(resource_type=str(bot_type)) == {"first-bot", "second-bot"}
    today = AuditEntry.objects.get(object_repr="first-bot").timestamp
    assert listed(timestamp__year=str(today.year - 1)) == set()
    assert listed(timestamp__year=str(today.year)) == {"first-bot", "second-bot", "mallory"}
