# The unique partial index behind Document.upload_key, built CONCURRENTLY (uploads never wait for it),
# hence a migration of its own that is not atomic; Django's state gets the matching UniqueConstraint (a
# condition makes it a partial unique index of the same name and definition).
# A concurrent build that fails leaves an INVALID index, which enforces nothing and which IF NOT EXISTS
# would accept: one found invalid is dropped first, so running the migration again builds it anew.

from django.db import migrations, models

NAME = "document_unique_upload_key"
_CONSTRAINT = models.UniqueConstraint(
    condition=~models.Q(upload_key=""),
    fields=("workspace", "external_user_id", "upload_key"),
    name=NAME,
)


def _build(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indisvalid FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid "
            "WHERE c.relname = %s",
            [NAME],
        )
        found = cursor.fetchone()
        if found is not None and not found[0]:
            cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{NAME}"')
        cursor.execute(
            f'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "{NAME}" '
            "ON rag_document (workspace_id, external_user_id, upload_key) "
            "WHERE NOT (upload_key = '')"
        )


def _drop(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{NAME}"')


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("rag", "0013_document_upload_key"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(_build, _drop)],
            state_operations=[
                migrations.AddConstraint(model_name="document", constraint=_CONSTRAINT)
            ],
        ),
    ]
