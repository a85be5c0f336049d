# The chunks' shared HNSW graphs hold half-precision vectors (`embedding::halfvec(N)` and
# `embedding_multi::halfvec(512)`): half the index size, the same recall at the product's ef_search
# (docs/decisions/tenant-isolation.md). The columns keep full precision; searches order the walk by the
# halfvec expression and re-score its rows exactly (rag.retrieval.sql).
#
# No lock beyond the builds' brief catalog locks: each new graph is built CONCURRENTLY beside the old one,
# then the old one is dropped CONCURRENTLY (searches walk the old graph until the new one is valid, and
# an exact scan in between), hence a migration that is not atomic. A concurrent build that failed leaves
# an INVALID index, which IF NOT EXISTS would accept: such an index is dropped and built anew. The way back
# builds the full-precision graphs the same way.

from django.contrib.postgres.indexes import OpClass
from django.db import migrations, models
from django.db.models.functions import Cast
from pgvector.django import HalfVectorField, HnswIndex, VectorField

DIMENSIONS = (384, 768, 1024, 1536)
MULTI_DIMS = 512


def _hnsw(column: str, dims: int, *, half: bool, name: str, condition: models.Q) -> HnswIndex:
    field = HalfVectorField(dimensions=dims) if half else VectorField(dimensions=dims)
    opclass = "halfvec_cosine_ops" if half else "vector_cosine_ops"
    return HnswIndex(
        OpClass(Cast(column, output_field=field), name=opclass),
        name=name,
        condition=condition,
        m=16,
        ef_construction=64,
    )


def _graphs(*, half: bool) -> list[HnswIndex]:
    suffix = "half" if half else "hnsw"
    return [
        _hnsw(
            "embedding",
            dims,
            half=half,
            name=f"chunk_embedding_{suffix}_{dims}",
            condition=models.Q(embedding_dims=dims),
        )
        for dims in DIMENSIONS
    ] + [
        _hnsw(
            "embedding_multi",
            MULTI_DIMS,
            half=half,
            name=f"chunk_embedding_multi_{suffix}",
            condition=models.Q(embedding_multi__isnull=False),
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


def _replace(apps, schema_editor, *, half: bool) -> None:  # type: ignore[no-untyped-def]
    chunk = apps.get_model("rag", "Chunk")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SET maintenance_work_mem = '512MB'"
        )  # the graph builds in memory (rag.indexes)
        for index in _graphs(half=half):
            state = _valid(cursor, index.name)
            if state is False:
                cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{index.name}"')
            if state is not True:
                cursor.execute(str(index.create_sql(chunk, schema_editor, concurrently=True)))
        for index in _graphs(half=not half):
            cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{index.name}"')
        cursor.execute("RESET maintenance_work_mem")


def _forward(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    _replace(apps, schema_editor, half=True)


def _backward(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    _replace(apps, schema_editor, half=False)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("rag", "0014_document_unique_upload_key"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(_forward, _backward)],
            state_operations=[
                *[
                    migrations.RemoveIndex(model_name="chunk", name=index.name)
                    for index in _graphs(half=False)
                ],
                *[
                    migrations.AddIndex(model_name="chunk", index=index)
                    for index in _graphs(half=True)
                ],
            ],
        ),
    ]
