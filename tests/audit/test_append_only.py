"""Append-only: the database refuses any UPDATE or DELETE of an entry (ORM or raw SQL, whoever asks),
the admin offers neither, and deleting the user, key or workspace an entry names leaves it as it was."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction
from django.test import Client

from audit.models import AuditEntry
from core.models import Workspace
from tests.api.factories import workspace_make
from tests.audit.helpers import entry_make

pytestmark = pytest.mark.django_db


def test_the_database_refuses_to_change_or_delete_an_entry() -> None:
    entry = entry_make(workspace=workspace_make(), repr_="Lumi")
    attempts = [
        lambda: AuditEntry.objects.filter(pk=entry.pk).update(object_repr="forged"),
        lambda: AuditEntry.objects.filter(pk=entry.pk).delete(),
        lambda: entry.delete(),
    ]
    for attempt in attempts:
        with pytest.raises(DatabaseError, match="Cannot"), transaction.atomic():
            attempt()
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM audit_auditentry")
    entry.refresh_from_db()
    assert entry.object_repr == "Lumi" and AuditEntry.objects.filter(pk=entry.pk).exists()


def test_the_admin_offers_no_way_to_add_change_or_delete() -> None:
    workspace = workspace_make()
    entry = entry_make(workspace=workspace)
    superuser = get_user_model().objects.create_superuser("root", password="pw-123-long")
    client = Client()
    client.force_login(superuser)
    base = "/admin/audit/auditentry/"
    assert client.get(f"{base}{entry.pk}/change/").status_code == 200  # read-only view
    assert client.post(f"{base}{entry.pk}/change/", {"object_repr": "forged"}).status_code == 403
    assert client.post(f"{base}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get(f"{base}add/").status_code == 403
    listing = client.get(base).content.decode()
    assert "delete_selected" not in listing
    entry.refresh_from_db()
    assert entry.object_repr == "a bot"


def test_deleting_a_user_or_a_workspace_leaves_their_entries() -> None:
    workspace = workspace_make()
    user = get_user_model().objects.create_user("leaver", password="pw-123-long", is_staff=True)
    client = Client()
    client.force_login(user)  # a login entry names the user
    login = AuditEntry.objects.get(kind=AuditEntry.Kind.LOGIN, actor_id=user.pk)
    user.delete()
    Workspace.objects.filter(pk=workspace.pk).delete()  # its change entry stays
    assert AuditEntry.objects.filter(pk=login.pk, actor_label="leaver").exists()
    assert (
        AuditEntry.objects.filter(kind=AuditEntry.Kind.WORKSPACE, workspaces=[workspace.pk]).count()
        == 2
    )
