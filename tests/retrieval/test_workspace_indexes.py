"""Per-workspace HNSW indexes (rag.workspace_indexes), on both vector columns: built for a large
workspace only, picked by the planner for that workspace's searches with the same ranking, dropped
when it shrinks; the way back. The sync never touches the migrations' own `chunk_ws_*` indexes."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from bots.models import Bot
from core.models import Workspace
from rag.models import Chunk
from rag.retrieval import RetrievalScope, chunks_retrieve
from rag.retrieval.sql import hybrid_plan, text_rows
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
    large_chunks = Chunk.objects.filter(workspace=large).count()
    assert large_chunks > Chunk.objects.filter(workspace=small).count()
    own = workspace_index_name(workspace_id=large.pk, dims=384)
    own_multi = workspace_index_name(workspace_id=large.pk, dims=512, multi=True)
    before = _ranking(large, large_bot)
    try:
        result = workspace_indexes_sync(min_chunks=large_chunks)
        assert sorted(result.created) == sorted([own, own_multi])
        assert {own, own_multi} <= _index_names()
        assert workspace_index_name(workspace_id=small.pk, dims=384) not in _index_names()
        # The planner picks the workspace's own graphs by itself; the other keeps the shared ones.
        large_plan = _plan(large, large_bot)
        assert own in large_plan and own_multi in large_plan
        small_plan = _plan(small, small_bot)
        assert own not in small_plan and "chunk_embedding_hnsw_384" in small_plan
        assert own_multi not in small_plan and "chunk_embedding_multi_hnsw" in small_plan
        assert _ranking(large, large_bot) == before
        assert workspace_indexes_sync(min_chunks=large_chunks).created == []  # idempotent
        settings.RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS = large_chunks
        assert workspace_indexes_sync_task.apply().get() == 0  # beat's task: nothing left to do

        # The way back: a threshold it no longer reaches (twice its size) drops it.
        out = io.StringIO()
        call_command("chunks_workspace_indexes", "--min-chunks", str(4 * large_chunks), stdout=out)
        assert f"dropped {own}" in out.getvalue() and own not in _index_names()
        assert f"dropped {own_multi}" in out.getvalue() and own_multi not in _index_names()
        # only its own: the migrations' chunk_ws_* btrees are not
        assert out.getvalue().count("dropped") == 2
        large_plan = _plan(large, large_bot)
        assert (
            "chunk_embedding_hnsw_384" in large_plan and "chunk_embedding_multi_hnsw" in large_plan
        )
        assert _ranking(large, large_bot) == before
    finally:
        workspace_indexes_sync(min_chunks=10**9)
    names = _index_names()
    assert not {name for name in names if re.match(r"chunk_ws_[0-9a-f]{32}_", name)}
    assert {"chunk_ws_model", "chunk_ws_multi_model"} <= names  # the migrations' own, kept


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
        call_command("migrate", "rag", stdout=out)  # the later migrations, for the tests after
    assert "document_unique_upload_key" in _index_names(table="rag_document")
