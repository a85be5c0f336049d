"""`chunks_reindex` rebuilds the HNSW index with the build memory set for its transaction only."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings

from bots.models import Bot
from core.models import Workspace
from rag.indexes import chunk_indexes_rebuild
from rag.retrieval import RetrievalScope, chunks_retrieve
from tests.support.knowledge import document_ingested


def _show_memory() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW maintenance_work_mem")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_chunks_reindex_rebuilds_with_the_build_memory_of_its_transaction() -> None:
    workspace = Workspace.objects.create(name="ws-reindex", slug="ws-reindex")
    bot = Bot.objects.create(workspace=workspace, name="bot")
    document_ingested(
        workspace=workspace,
        text="# Hours\n\nThe shop opens at 9 am and closes at 7 pm.",
        bots=[bot],
    )
    before = _show_memory()
    out = io.StringIO()

    call_command("chunks_reindex", "--dims", "384", stdout=out)
    with override_settings(RETRIEVAL_HNSW_BUILD_MEMORY_MB=128):
        (build,) = chunk_indexes_rebuild(dims=[384])

    assert (
        "chunk_embedding_half_384: 1 chunks" in out.getvalue()
        and "maintenance_work_mem 512MB" in out.getvalue()
    )
    assert (build.name, build.chunks, build.memory) == ("chunk_embedding_half_384", 1, "128MB")
    assert _show_memory() == before  # SET LOCAL ended with the build's transaction
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    assert "9 am" in chunks_retrieve(scope=scope, question="When does the shop open?").hits[0].text
    with pytest.raises(CommandError):
        call_command("chunks_reindex", "--dims", "100")
