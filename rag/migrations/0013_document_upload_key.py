# Document.upload_key: a retried upload (the same Idempotency-Key) returns the documents the first one
# created. The column has a database default, so adding it rewrites no row; its unique partial index is
# built CONCURRENTLY (uploads never wait for it), hence a non-atomic migration, and Django's state gets
# the matching UniqueConstraint (a condition makes it a partial unique index of the same name).

from django.db import migrations, models

_CONSTRAINT = models.UniqueConstraint(
    condition=~models.Q(upload_key=""),
    fields=("workspace", "external_user_id", "upload_key"),
    name="document_unique_upload_key",
)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("rag", "0012_restore_workspace_model_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="document",
            name="upload_key",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="The upload's Idempotency-Key and the file's place in it: a retried upload "
                "returns this document instead of creating another.",
                max_length=255,
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    sql='CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "document_unique_upload_key" '
                    "ON rag_document (workspace_id, external_user_id, upload_key) "
                    "WHERE NOT (upload_key = '')",
                    reverse_sql='DROP INDEX CONCURRENTLY IF EXISTS "document_unique_upload_key"',
                )
            ],
            state_operations=[migrations.AddConstraint(model_name="document", constraint=_CONSTRAINT)],
        ),
    ]
