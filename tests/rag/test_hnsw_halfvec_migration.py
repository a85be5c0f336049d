"""Migration 0015 replaces the shared full-precision HNSW graphs with half-precision ones, online: forward
and back, each graph built CONCURRENTLY before its predecessor is dropped; a graph left INVALID by a
failed build is built anew; the ranking is the same either way (the walk's rows are re-scored at full
precision)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection

from bots.models import Bot
from core.models import Workspace
from rag.retrieval import RetrievalScope, chunks_retrieve
from tests.support.knowledge import document_ingested

HALF = ["chunk_embedding_half_384", "chunk_embedding_half_1536", "chunk_embedding_multi_half"]
FULL = ["chunk_embedding_hnsw_384", "chunk_embedding_hnsw_1536", "chunk_embedding_multi_hnsw"]
TEXT = (
    "# Returns\n\nUnworn shoes can be returned within 30 days with the receipt.\n\n"
    "# Delivery\n\nParcels leave the warehouse within two working days and arrive in three to five."
)


def _indexes() -> dict[str, tuple[bool, str]]:
    """Every index of rag_chunk: whether it is valid, and its definition."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, i.indisvalid, pg_get_indexdef(i.indexrelid) FROM pg_index AS i
            JOIN pg_class AS c ON c.oid = i.indexrelid WHERE i.indrelid = 'rag_chunk'::regclass"""
        )
        return {name: (bool(valid), definition) for name, valid, definition in cursor.fetchall()}


def _ranking(workspace: Workspace, bot: Bot) -> list[str]:
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    return [
        hit.id for hit in chunks_retrieve(scope=scope, question="When will my parcel arrive?").hits
    ]


@pytest.mark.django_db(transaction=True)
def test_the_shared_graphs_go_to_halfvec_and_back_online_with_the_same_ranking() -> None:
    workspace = Workspace.objects.create(name="Halfvec", slug="halfvec")
    bot = Bot.objects.create(workspace=workspace, name="Halfvec bot")
    document_ingested(workspace=workspace, text=TEXT, bots=[bot])
    indexes = _indexes()
    assert all(indexes[name][0] and "halfvec_cosine_ops" in indexes[name][1] for name in HALF)
    assert not set(FULL) & set(indexes)
    before = _ranking(workspace, bot)
    out = io.StringIO()
    try:
        call_command("migrate", "rag", "0014", stdout=out)
        indexes = _indexes()
        assert all(indexes[name][0] and "vector_cosine_ops" in indexes[name][1] for name in FULL)
        assert not set(HALF) & set(indexes)
        # (No search at this state: today's statements read columns of later migrations, 0019's.)

        # A failed concurrent build of the forward way left one graph INVALID: it is built anew.
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE INDEX chunk_embedding_half_384 ON rag_chunk "
                "USING hnsw ((embedding::halfvec(384)) halfvec_cosine_ops) WHERE embedding_dims = 384"
            )
            cursor.execute(
                "UPDATE pg_index SET indisvalid = false "
                "WHERE indexrelid = 'chunk_embedding_half_384'::regclass"
            )
        assert _indexes()["chunk_embedding_half_384"][0] is False
    finally:
        # Every app: going back unapplied the later apps' migrations that depend on rag's (sources').
        call_command("migrate", stdout=out)
    indexes = _indexes()
    assert all(indexes[name][0] and "halfvec_cosine_ops" in indexes[name][1] for name in HALF)
    assert not set(FULL) & set(indexes)
    assert _ranking(workspace, bot) == before
