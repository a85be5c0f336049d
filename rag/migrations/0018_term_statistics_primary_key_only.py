# BM25's statistics tables lose their index on workspace_id alone: their primary keys, workspace first, serve
# every look-up by workspace (the statement's per-lexeme probes, a workspace's cascade delete).
# - Ingestion: each statistics upsert of the term triggers (migration 0003) wrote one index fewer.
# - Planning: a workspace the statistics had not seen yet (created after the last ANALYZE) was estimated
#   at one row, and the full-text statement read each lexeme through the workspace index, filtering the
#   workspace's every term: 5 ms instead of 1.3 ms for a 556-chunk workspace (docs/decisions/bm25-pruning.md).
#
# The foreign keys stay as they are; only the indexes go. Dropped and rebuilt CONCURRENTLY, so writes never
# wait: the state says db_index=False, the database drops the index Django had named for it.

from django.db import migrations, models

_INDEXES = {
    "rag_termstat": "rag_termstat_workspace_id_32555297",
    "rag_corpusstat": "rag_corpusstat_workspace_id_e806b3eb",
}


def _field() -> models.ForeignKey:
    return models.ForeignKey(
        db_index=False,
        on_delete=models.deletion.CASCADE,
        related_name="+",
        to="core.workspace",
    )


class Migration(migrations.Migration):
    atomic = False  # CREATE / DROP INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ("core", "0001_initial"),
        ("rag", "0017_chunk_search_vector_inline"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name=model, name="workspace", field=_field())
                for model in ("corpusstat", "termstat")
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX CONCURRENTLY IF EXISTS "{index}"',
                    reverse_sql=f'CREATE INDEX CONCURRENTLY IF NOT EXISTS "{index}" ON {table} (workspace_id)',
                )
                for table, index in _INDEXES.items()
            ],
        )
    ]
