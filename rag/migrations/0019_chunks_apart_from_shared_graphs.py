# A workspace with graphs of its own keeps its new chunks out of the shared HNSW graphs: the shared graphs'
# predicates gain `shared_indexed`, a chunk column that ingestion sets false (with Document.chunks_apart) for
# a document of such a workspace. Its inserts then pay its own graphs only, not a walk through the graphs of
# the whole table (bench/scale: docs/decisions/tenant-isolation.md).
#
# The columns come with database defaults (every existing chunk shared, no document apart): metadata only.
# The graphs are replaced online, as migration 0015 did: each new graph is built CONCURRENTLY under a
# temporary name beside the old one, the old one dropped CONCURRENTLY, the new one renamed (a brief lock on
# the index alone). Their names stay, so plans, tests and operators' notes keep reading the same names. Since
# every existing chunk is shared, the new graphs hold the same rows as the old ones. The way back builds them
# with the old predicates the same way (a chunk kept apart then sits in no shared graph until it is written
# again; its own workspace's graphs still hold it).

from django.contrib.postgres.indexes import OpClass
from django.db import migrations, models
from django.db.models.functions import Cast
from pgvector.django import HalfVectorField, HnswIndex

DIMENSIONS = (384, 768, 1024, 1536)
MULTI_DIMS = 512
_NEXT = "_next"


def _hnsw(column: str, dims: int, *, name: str, condition: models.Q) -> HnswIndex:
    return HnswIndex(
        OpClass(Cast(column, output_field=HalfVectorField(dimensions=dims)), name="halfvec_cosine_ops"),
        name=name,
        condition=condition,
        m=16,
        ef_construction=64,
    )


def _graphs(*, apart: bool) -> list[HnswIndex]:
    """The shared graphs with the predicates of after (`apart`) or before this migration."""
    shared = models.Q(shared_indexed=True) if apart else models.Q()
    return [
        _hnsw(
            "embedding",
            dims,
            name=f"chunk_embedding_half_{dims}",
            condition=models.Q(embedding_dims=dims) & shared,
        )
        for dims in DIMENSIONS
    ] + [
        _hnsw(
            "embedding_multi",
            MULTI_DIMS,
            name="chunk_embedding_multi_half",
            condition=models.Q(embedding_multi__isnull=False) & shared,
        )
    ]


def _valid(cursor, name: str) -> bool | None:  # type: ignore[no-untyped-def]
    """True: a valid index of that name; False: an invalid one (a failed concurrent build); None: none."""
    cursor.execute(
        "SELECT i.indisvalid FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid "
        "WHERE c.relname = %s",
        [name],
    )
    found = cursor.fetchone()
    return None if found is None else bool(found[0])


def _replace(apps, schema_editor, *, apart: bool) -> None:  # type: ignore[no-untyped-def]
    chunk = apps.get_model("rag", "Chunk")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '512MB'")  # the graph builds in memory (rag.indexes)
        for index in _graphs(apart=apart):
            final, building = index.name, index.name + _NEXT
            if _valid(cursor, building) is False:  # a build that failed on an earlier run
                cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{building}"')
            if _valid(cursor, building) is None:
                index.name = building
                cursor.execute(str(index.create_sql(chunk, schema_editor, concurrently=True)))
            cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{final}"')
            cursor.execute(f'ALTER INDEX "{building}" RENAME TO "{final}"')
        cursor.execute("RESET maintenance_work_mem")


def _forward(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    _replace(apps, schema_editor, apart=True)


def _backward(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    _replace(apps, schema_editor, apart=False)


class Migration(migrations.Migration):
    atomic = False  # CREATE / DROP INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [("rag", "0018_term_statistics_primary_key_only")]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="shared_indexed",
            field=models.BooleanField(db_default=True, default=True),
        ),
        migrations.AddField(
            model_name="document",
            name="chunks_apart",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(_forward, _backward)],
            state_operations=[
                *[migrations.RemoveIndex(model_name="chunk", name=index.name) for index in _graphs(apart=False)],
                *[migrations.AddIndex(model_name="chunk", index=index) for index in _graphs(apart=True)],
            ],
        ),
    ]
