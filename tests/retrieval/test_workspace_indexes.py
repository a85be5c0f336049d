"""Per-workspace indexes (rag.workspace_indexes): half-precision HNSW graphs of both vector columns and a
GIN of the full text, built for a large workspace only, picked by the planner for that workspace's
searches with the same ranking, dropped when it shrinks; the way back; an earlier release's full-precision
graph replaced. The sync never touches the migrations' own `chunk_ws_*` indexes."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from bots.models import Bot
from core.models import Workspace
from rag.models import Chunk, Document
from rag.retrieval import RetrievalScope, chunks_retrieve
from rag.retrieval.sql import hybrid_plan, text_plan, text_rows
from rag.tasks import workspace_indexes_sync_task
from rag.workspace_indexes import workspace_index_name, workspace_indexes_sync
from tests.support.knowledge import document_ingested, hybrid_params

BIKES = (
    "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half price.\n\n"
    "# Opening hours\n\nThe shop is open from 9 am to 7 pm, Tuesday to Sunday, and closed on Mondays."
)
QUESTION = "How much is a day rental of a bike?"


def _plan(workspace: Workspace, bot: Bot) -> str:
    params = hybrid_params(workspace=workspace, bot=bot, question=QUESTION, multilingual=True)
    with transaction.atomic():  # exact_max 0: the HNSW walk, as for any scope above the exact limit
        return hybrid_plan(params=params, text=text_rows(params=params), ef_search=100, exact_max=0)


def _text_plan(workspace: Workspace, bot: Bot) -> str:
    return text_plan(params=hybrid_params(workspace=workspace, bot=bot, question=QUESTION))


def _filler_add(workspace: Workspace, *, chunks: int) -> None:
    """`chunks` chunks of another document (no bot's) that say nothing of bikes, with random vectors, as a
    large workspace's other documents: the planner then finds the question's few chunks through a GIN
    index rather than read all of the workspace's."""
    document = Document.objects.create(workspace=workspace, title="Filler", filename="filler.md")
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO rag_chunk (id, document_id, workspace_id, ordinal, text, heading_path, bbox,
                metadata, token_count, embedding, embedding_dims, embedding_model, embedding_multi,
                embedding_multi_model, search_config, search_vector, search_length)
            SELECT gen_random_uuid(), %(document)s, c.workspace_id, n, 'ledger entry ' || n, '[]', '[]',
                   '{}', 3, ARRAY(SELECT random() - 0.5 + 0 * n FROM generate_series(1, c.embedding_dims))::vector,
                   c.embedding_dims, c.embedding_model,
                   ARRAY(SELECT random() - 0.5 + 0 * n FROM generate_series(1, 512))::vector(512),
                   c.embedding_multi_model, c.search_config,
                   to_tsvector('simple', 'ledger entry ' || n), 3
            FROM (SELECT * FROM rag_chunk WHERE workspace_id = %(workspace)s LIMIT 1) AS c,
                 generate_series(1, %(chunks)s) AS n""",
            {"document": document.pk, "workspace": workspace.pk, "chunks": chunks},
        )
        cursor.execute("ANALYZE rag_chunk")


def _ranking(workspace: Workspace, bot: Bot) -> list[str]:
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    return [hit.id for hit in chunks_retrieve(scope=scope, question=QUESTION).hits]


def _index_names(table: str = "rag_chunk") -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_a_large_workspace_gets_its_own_index_and_the_small_one_keeps_the_shared_one(
    settings,
) -> None:
    settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = 0
    large = Workspace.objects.create(name="ws-large", slug="ws-large")
    large_bot = Bot.objects.create(workspace=large, name="large bot")
    small = Workspace.objects.create(name="ws-small", slug="ws-small")
    small_bot = Bot.objects.create(workspace=small, name="small bot")
    for index in range(3):
        document_ingested(
            workspace=large, text=BIKES, filename=f"bikes-{index}.md", bots=[large_bot]
        )
    document_ingested(workspace=small, text=BIKES, bots=[small_bot])
    # the shared indexes hold both workspaces, each workspace's own only its chunks
    _filler_add(large, chunks=3000)
    _filler_add(small, chunks=2000)
    large_chunks = Chunk.objects.filter(workspace=large).count()
    assert large_chunks > Chunk.objects.filter(workspace=small).count()
    own = workspace_index_name(workspace_id=large.pk, kind="half", dims=384)
    own_multi = workspace_index_name(workspace_id=large.pk, kind="mhalf", dims=512)
    own_text = workspace_index_name(workspace_id=large.pk, kind="text")
    before = _ranking(large, large_bot)
    try:
        result = workspace_indexes_sync(min_chunks=large_chunks)
        assert sorted(result.created) == sorted([own, own_multi, own_text])
        assert {own, own_multi, own_text} <= _index_names()
        assert not {name for name in _index_names() if name.startswith(f"chunk_ws_{small.pk.hex}")}
        # The planner picks the workspace's own graphs and postings by itself; the other keeps the
        # shared ones.
        large_plan = _plan(large, large_bot)
        assert own in large_plan and own_multi in large_plan
        assert own_text in _text_plan(large, large_bot)
        small_plan = _plan(small, small_bot)
        assert own not in small_plan and "chunk_embedding_half_384" in small_plan
        assert own_multi not in small_plan and "chunk_embedding_multi_half" in small_plan
        assert own_text not in _text_plan(small, small_bot)
        assert _ranking(large, large_bot) == before
        assert workspace_indexes_sync(min_chunks=large_chunks).created == []  # idempotent
        settings.RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS = large_chunks
        assert workspace_indexes_sync_task.apply().get() == 0  # beat's task: nothing left to do

        # The way back: a threshold it no longer reaches (twice its size) drops them.
        out = io.StringIO()
        call_command("chunks_workspace_indexes", "--min-chunks", str(4 * large_chunks), stdout=out)
        for name in (own, own_multi, own_text):
            assert f"dropped {name}" in out.getvalue() and name not in _index_names()
        # only its own: the migrations' chunk_ws_* btrees are not
        assert out.getvalue().count("dropped") == 3
        large_plan = _plan(large, large_bot)
        assert (
            "chunk_embedding_half_384" in large_plan and "chunk_embedding_multi_half" in large_plan
        )
        assert own_text not in _text_plan(large, large_bot)
        assert _ranking(large, large_bot) == before
    finally:
        workspace_indexes_sync(min_chunks=10**9)
    names = _index_names()
    assert not {name for name in names if re.match(r"chunk_ws_[0-9a-f]{32}_", name)}
    assert {"chunk_ws_model", "chunk_ws_multi_model"} <= names  # the migrations' own, kept


@pytest.mark.django_db(transaction=True)
def test_an_earlier_release_full_precision_graph_is_replaced_once_its_successor_is_built() -> None:
    workspace = Workspace.objects.create(name="ws-old", slug="ws-old")
    bot = Bot.objects.create(workspace=workspace, name="old bot")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    chunks = Chunk.objects.filter(workspace=workspace).count()
    old = f"chunk_ws_{workspace.pk.hex}_hnsw_384"  # what the sync built before halfvec graphs
    with connection.cursor() as cursor:
        cursor.execute(
            f'CREATE INDEX "{old}" ON rag_chunk USING hnsw ((embedding::vector(384)) vector_cosine_ops) '
            f"WHERE workspace_id = '{workspace.pk}'::uuid AND embedding_dims = 384"
        )
    try:
        result = workspace_indexes_sync(min_chunks=chunks)
        new = workspace_index_name(workspace_id=workspace.pk, kind="half", dims=384)
        assert new in result.created and old in result.dropped
        assert old not in _index_names() and new in _index_names()
        assert new in _plan(workspace, bot)
    finally:
        workspace_indexes_sync(min_chunks=10**9)


@pytest.mark.django_db(transaction=True)
def test_migration_0012_builds_again_the_btree_indexes_an_earlier_sync_dropped() -> None:
    with connection.cursor() as cursor:
        cursor.execute('DROP INDEX IF EXISTS "chunk_ws_model"')
    assert "chunk_ws_model" not in _index_names()
    out = io.StringIO()
    try:
        call_command("migrate", "rag", "0011", stdout=out)  # back: leaves the indexes as they are
        assert "chunk_ws_multi_model" in _index_names() and "chunk_ws_model" not in _index_names()
        call_command("migrate", "rag", "0012", stdout=out)  # forward: builds the missing one
        assert {"chunk_ws_model", "chunk_ws_multi_model"} <= _index_names()
    finally:
        call_command(
            "migrate", stdout=out
        )  # every later migration (other apps' too), for the tests after
    assert "document_unique_upload_key" in _index_names(table="rag_document")
