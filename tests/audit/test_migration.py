"""The audit table and its append-only trigger come in one migration that goes back (table and trigger
dropped) and forward again (the trigger refusing a DELETE once more)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from tests.api.factories import workspace_make
from tests.audit.helpers import entry_make

pytestmark = pytest.mark.django_db(transaction=True)


def _migrate(targets: list[tuple[str, str | None]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _tables() -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


def test_the_migration_goes_back_and_forward() -> None:
    _migrate([("audit", None)])
    try:
        assert "audit_auditentry" not in _tables()
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert "audit_auditentry" in _tables()
    entry = entry_make(workspace=workspace_make())
    with pytest.raises(DatabaseError), transaction.atomic():
        type(entry).objects.filter(pk=entry.pk).delete()
