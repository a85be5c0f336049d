"""Migration 0017 keeps a chunk's full-text vector in its row (storage MAIN), so BM25 reads it without a
TOAST look-up; the chunk's text goes to the TOAST table first. Forward and back, metadata only: rows
written under either storage stay readable, and `VACUUM FULL` moves existing rows."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from core.models import Workspace
from tests.support.knowledge import document_ingested

INLINE = importlib.import_module(
    "rag.migrations.0017_chunk_search_vector_inline"
).Migration.operations[0]

# One chunk's worth of varied English: with its two vectors out of line the row still exceeds the
# toaster's ~2 kB target, so one of its text and its tsvector must leave the row.
WORDS = [
    "harbour",
    "lantern",
    "orchard",
    "quarry",
    "meadow",
    "bramble",
    "cobalt",
    "drizzle",
    "ember",
    "falcon",
    "glacier",
    "hazel",
    "inlet",
    "juniper",
    "kestrel",
    "lagoon",
    "marble",
    "nettle",
    "oyster",
    "pebble",
    "quartz",
    "rowan",
    "saffron",
    "thistle",
    "umber",
    "velvet",
    "willow",
    "yarrow",
    "zephyr",
    "amber",
    "basalt",
    "cinder",
    "dune",
    "estuary",
    "fjord",
    "granite",
    "heather",
    "ivory",
    "jasmine",
    "kelp",
    "lichen",
    "moss",
]
TEXT = (
    "# Field notes\n\n"
    + " ".join(f"{WORDS[i % len(WORDS)]}{i // len(WORDS)}" for i in range(260))
    + "."
)


def _storage() -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstorage FROM pg_attribute "
            "WHERE attrelid = 'rag_chunk'::regclass AND attname = 'search_vector'"
        )
        return str(cursor.fetchone()[0])


def _out_of_line(document_id: object) -> tuple[int, int, int]:
    """Chunks of the document; of them, those whose tsvector, and those whose text, is in the TOAST table."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT count(*),
                      count(*) FILTER (WHERE pg_column_toast_chunk_id(search_vector) IS NOT NULL),
                      count(*) FILTER (WHERE pg_column_toast_chunk_id(text) IS NOT NULL)
            FROM rag_chunk WHERE document_id = %s""",
            [document_id],
        )
        chunks, vectors, texts = cursor.fetchone()
    return int(chunks), int(vectors), int(texts)


@pytest.mark.django_db(transaction=True)
def test_the_tsvector_stays_in_the_row_forward_and_back() -> None:
    workspace = Workspace.objects.create(name="Storage", slug="storage")
    assert _storage() == "m"
    inline = document_ingested(workspace=workspace, text=TEXT)
    chunks, vectors, texts = _out_of_line(inline.pk)
    assert chunks >= 2 and vectors == 0 and texts >= 1  # the long chunks' text left instead
    # The migration's own statements back and forth (not `migrate rag 0016`: ingestion writes columns of
    # later migrations, which going back that far would drop).
    with connection.cursor() as cursor:
        cursor.execute(INLINE.reverse_sql)
    try:
        assert _storage() == "x"
        toasted = document_ingested(workspace=workspace, text=TEXT, filename="again.md")
        moved = _out_of_line(toasted.pk)[1]
        assert moved >= 1  # the default moved the long chunks' tsvector out
    finally:
        with connection.cursor() as cursor:
            cursor.execute(INLINE.sql)
    assert _storage() == "m"
    assert _out_of_line(toasted.pk)[1] == moved  # metadata only: written rows stay as they are
    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL rag_chunk")
    assert _out_of_line(toasted.pk)[1] == 0
    assert _out_of_line(inline.pk)[1] == 0
