"""Append-only: the database refuses any UPDATE, DELETE or TRUNCATE of entries (ORM or raw SQL, on
the application's own connection and role), the admin offers none of them, and deleting the user,
key or workspace an entry names leaves it as it was."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management.color import no_style
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


@pytest.mark.django_db(transaction=True)
def test_the_applications_own_connection_cannot_truncate_update_or_delete_the_trail() -> None:
    """Finding 1 of issue 51: TRUNCATE went through where UPDATE and DELETE were refused. Committed
    rows, as the application writes them (in one test transaction, their deferred foreign-key checks
    would refuse the TRUNCATE first). The test's own flush at its end is the harness's, let by."""
    first = entry_make(workspace=workspace_make(), repr_="Lumi")
    second = entry_make(workspace=None, repr_="Nova")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == connection.settings_dict["USER"]  # the application's role
    statements = {
        "TRUNCATE audit_auditentry": "Cannot truncate",
        "TRUNCATE TABLE audit_auditentry RESTART IDENTITY CASCADE": "Cannot truncate",
        "UPDATE audit_auditentry SET object_repr = 'forged'": "Cannot update",
        "DELETE FROM audit_auditentry": "Cannot update or delete",
    }
    # Django's own flush statement too, as `manage.py flush` would run it.
    statements[connection.ops.sql_flush(no_style(), ["audit_auditentry"])[0]] = "Cannot truncate"
    for statement, refusal in statements.items():
        with (
            pytest.raises(DatabaseError, match=refusal),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    assert set(AuditEntry.objects.values_list("object_repr", flat=True)) >= {"Lumi", "Nova"}
    assert AuditEntry.objects.filter(pk__in=[first.pk, second.pk]).count() == 2


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
