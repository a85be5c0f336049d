# The btree indexes of migrations 0001 (`chunk_ws_model`) and 0010 (`chunk_ws_multi_model`), built again
# where `rag.workspace_indexes` dropped them: its sync took every index named `chunk_ws_%` for one of its
# per-workspace HNSW indexes. Django's state already holds both, so this is SQL only; where they exist it
# does nothing, and going back leaves them (they belong to the earlier migrations).
# CONCURRENTLY: writes to chunks never wait for the build, hence a non-atomic migration.

from django.db import migrations

_RESTORE = (
    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "chunk_ws_model" ON rag_chunk (workspace_id, embedding_model)',
    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "chunk_ws_multi_model" '
    "ON rag_chunk (workspace_id, embedding_multi_model)",
)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("rag", "0011_chunk_passages"),
    ]

    operations = [
        migrations.RunSQL(sql=statement, reverse_sql=migrations.RunSQL.noop)
        for statement in _RESTORE
    ]
