"""Migration 0014 builds Document.upload_key's unique index CONCURRENTLY. A concurrent build that fails
leaves an INVALID index, which enforces nothing: running the migration again drops it and builds it anew
instead of taking it for done (IF NOT EXISTS alone would)."""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace

import pytest
from django.db import IntegrityError, connection

from core.models import Workspace
from rag.models import Document

MIGRATION = import_module("rag.migrations.0014_document_unique_upload_key")


def _valid() -> bool | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indisvalid FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid "
            "WHERE c.relname = %s",
            [MIGRATION.NAME],
        )
        row = cursor.fetchone()
    return None if row is None else bool(row[0])


@pytest.mark.django_db(transaction=True)
def test_an_index_left_invalid_by_a_failed_build_is_built_again() -> None:
    editor = SimpleNamespace(connection=connection)
    workspace = Workspace.objects.create(name="Keys", slug="upload-keys")
    assert _valid() is True
    with connection.cursor() as cursor:
        cursor.execute(f'DROP INDEX "{MIGRATION.NAME}"')
    try:
        twins = [
            Document.objects.create(
                workspace=workspace, title=f"t{n}", filename=f"t{n}.txt", upload_key="k#0"
            )
            for n in range(2)
        ]
        with pytest.raises(IntegrityError):  # the build meets the duplicate: it fails half done
            MIGRATION._build(None, editor)
        assert _valid() is False
        twins[1].delete()
        MIGRATION._build(None, editor)  # the migration run again
        assert _valid() is True
        with pytest.raises(IntegrityError):
            Document.objects.create(
                workspace=workspace, title="t2", filename="t2.txt", upload_key="k#0"
            )
    finally:
        if _valid() is not True:
            Document.objects.filter(workspace=workspace).delete()
            MIGRATION._build(None, editor)
    assert _valid() is True
