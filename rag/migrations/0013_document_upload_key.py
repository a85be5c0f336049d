# Document.upload_key: a retried upload (the same Idempotency-Key) returns the documents the first one
# created. The column has a database default, so adding it rewrites no row. Its unique index is built
# by 0014, concurrently.

from django.db import migrations, models


class Migration(migrations.Migration):
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
    ]
