"""Accounts are audited (issue 51, finding 4): a user created in the admin, the staff and superuser
flags ticked, a password changed and the account deactivated each write one entry of kind `user`,
naming the fields changed; a password is recorded as set or changed, never as a value or hash."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from audit.models import AuditEntry
from core.models import Membership
from tests.api.factories import workspace_make
from tests.audit.admin_forms import admin_change_data

pytestmark = pytest.mark.django_db

PASSWORD = "Correct-horse-battery-51"
NEW_PASSWORD = "Another-staple-phrase-51"


def _user_entries() -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(kind=AuditEntry.Kind.USER).order_by("pk"))


def _admin() -> Client:
    root = get_user_model().objects.create_superuser("root", password="pw-123-long")
    client = Client()
    client.force_login(root)
    return client


def _change_data(admin: Client, url: str) -> dict[str, object]:
    """The user's change form as rendered; its date joined is two inputs (date, time)."""
    response = admin.get(url)
    data = admin_change_data(response)
    joined = response.context["adminform"].form.initial["date_joined"]
    data.pop("date_joined", None)
    data.update(date_joined_0=joined.date().isoformat(), date_joined_1=joined.time().isoformat())
    return data


def test_creating_a_staff_user_and_changing_flags_password_and_activity_is_audited() -> None:
    admin = _admin()
    before = {entry.pk for entry in _user_entries()}

    page = admin.get("/admin/auth/user/add/")
    data = {
        **admin_change_data(page),
        "username": "sam",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "usable_password": "true",
    }
    response = admin.post("/admin/auth/user/add/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    sam = get_user_model().objects.get(username="sam")
    workspace = workspace_make()
    Membership.objects.create(workspace=workspace, user=sam, role=Membership.Role.EDITOR)

    change_url = f"/admin/auth/user/{sam.pk}/change/"
    for change in ({"is_staff": "on"}, {"is_superuser": "on"}):
        data = {**_change_data(admin, change_url), **change}
        assert admin.post(change_url, data).status_code == 302
    response = admin.post(
        f"/admin/auth/user/{sam.pk}/password/",
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    data = _change_data(admin, change_url)
    data.pop("is_active")  # unticked
    assert admin.post(change_url, data).status_code == 302

    entries = [entry for entry in _user_entries() if entry.pk not in before]
    assert [(entry.action, entry.changes) for entry in entries] == [
        (
            AuditEntry.Action.CREATE,
            {
                "username": [None, "sam"],
                "password": [None, "set"],
                "is_staff": [None, False],
                "is_superuser": [None, False],
                "is_active": [None, True],
            },
        ),
        (AuditEntry.Action.UPDATE, {"is_staff": [False, True]}),
        (AuditEntry.Action.UPDATE, {"is_superuser": [False, True]}),
        (AuditEntry.Action.UPDATE, {"password": ["", "changed"]}),
        (AuditEntry.Action.UPDATE, {"is_active": [True, False]}),
    ]
    assert all(entry.object_pk == str(sam.pk) and entry.actor_label == "root" for entry in entries)
    assert entries[0].workspaces == []  # no membership yet: superusers see it
    assert all(entry.workspaces == [workspace.pk] for entry in entries[1:])

    sam.refresh_from_db()
    algorithm = sam.password.split("$")[0]
    stored = json.dumps(
        [[e.changes, e.changes_text, e.serialized_data, e.additional_data] for e in entries]
    )
    for secret in (PASSWORD, NEW_PASSWORD, sam.password, f"{algorithm}$"):
        assert secret not in stored


def test_a_login_or_a_save_of_nothing_that_matters_writes_no_user_entry() -> None:
    user = get_user_model().objects.create_user("quiet", password=PASSWORD, is_staff=True)
    count = len(_user_entries())
    Client().login(username="quiet", password=PASSWORD)  # last_login moves
    user.refresh_from_db()
    user.first_name = "Quinn"
    user.save()
    assert len(_user_entries()) == count
