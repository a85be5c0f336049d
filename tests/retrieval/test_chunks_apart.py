"""A workspace with graphs of its own keeps the documents ingested from then on out of the shared HNSW graphs
(Document.chunks_apart, Chunk.shared_indexed; rag.workspace_indexes): their chunks are in its own graphs
only, a search walks both kinds and ranks as an exact scan does, and they return to the shared graphs before
the workspace's own graphs are dropped, or at the next sync when a document was left apart without them.
Migration 0019 puts `shared_indexed` into the shared graphs' predicates, online, forward and back."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from bots.models import Bot
from core.models import Workspace
from rag.models import Chunk, Document
from rag.retrieval import RetrievalScope, chunks_retrieve
from rag.retrieval.sql import hybrid_plan, text_rows
from rag.workspace_indexes import own_graphs_ready, workspace_index_name, workspace_indexes_sync
from tests.support.knowledge import document_ingested, hybrid_params

BIKES = (
    "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half price.\n\n"
    "# Opening hours\n\nThe shop is open from 9 am to 7 pm, Tuesday to Sunday, and closed on Mondays."
)
BOATS = (
    "# Boat rental\n\nA rowing boat costs 15 euros an hour; life jackets are included for every rider.\n\n"
    "# Bike racks\n\nBikes can be left at the boathouse racks while you row, free of charge."
)
QUESTION = "How much does it cost to rent a bike or a boat?"
SHARED = ("chunk_embedding_half_384", "chunk_embedding_multi_half")


def _ranking(workspace: Workspace, bot: Bot) -> list[str]:
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    return [hit.id for hit in chunks_retrieve(scope=scope, question=QUESTION).hits]


def _rankings(settings, workspace: Workspace, bot: Bot) -> tuple[list[str], list[str]]:
    """The ranking by the HNSW walks (no exact scan), and by an exact scan of the same scope."""
    settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = 0
    walked = _ranking(workspace, bot)
    settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = 100_000
    return walked, _ranking(workspace, bot)


def _walk_plan(workspace: Workspace, bot: Bot) -> str:
    params = hybrid_params(workspace=workspace, bot=bot, question=QUESTION, multilingual=True)
    with transaction.atomic():
        return hybrid_plan(params=params, text=text_rows(params=params), ef_search=100, exact_max=0)


def _shared_flags(document: Document) -> set[bool]:
    return set(Chunk.objects.filter(document=document).values_list("shared_indexed", flat=True))


def _index_definitions() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'rag_chunk'")
        return dict(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
def test_a_workspace_with_its_own_graphs_keeps_new_documents_apart_and_finds_both_kinds(
    settings,
) -> None:
    workspace = Workspace.objects.create(name="ws-apart", slug="ws-apart")
    bot = Bot.objects.create(workspace=workspace, name="apart bot")
    shared = document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    assert not own_graphs_ready(workspace_id=workspace.pk, dims=384, multilingual=True)
    chunks = Chunk.objects.filter(workspace=workspace).count()
    own = workspace_index_name(workspace_id=workspace.pk, kind="half", dims=384)
    try:
        assert own in workspace_indexes_sync(min_chunks=chunks).created
        assert own_graphs_ready(workspace_id=workspace.pk, dims=384, multilingual=True)
        apart = document_ingested(workspace=workspace, text=BOATS, filename="boats.md", bots=[bot])
        apart.refresh_from_db()
        shared.refresh_from_db()
        assert apart.chunks_apart and _shared_flags(apart) == {False}
        assert not shared.chunks_apart and _shared_flags(shared) == {
            True
        }  # written before: in both

        walked, exact = _rankings(settings, workspace, bot)
        assert walked == exact  # every chunk found, as an exact scan finds it
        found = set(Chunk.objects.filter(id__in=walked).values_list("document_id", flat=True))
        assert found == {shared.pk, apart.pk}
        plan = _walk_plan(workspace, bot)
        assert own in plan  # the chunks kept apart: the workspace's own graph
        gates = [n for n, line in enumerate(plan.splitlines()) if "One-Time Filter" in line]
        ran = ["never executed" not in plan.splitlines()[n + 1] for n in gates]
        # the model's side walks its own graph alone (it holds both kinds), so do the multilingual side's
        assert ran == [True, False, False, False] * 2

        # Its own graphs dropped (the workspace no longer reaches half the threshold): its documents
        # return to the shared graphs first.
        workspace_indexes_sync(min_chunks=100 * chunks)
        assert not own_graphs_ready(workspace_id=workspace.pk, dims=384, multilingual=True)
        apart.refresh_from_db()
        assert not apart.chunks_apart and _shared_flags(apart) == {True}
        assert _rankings(settings, workspace, bot)[0] == exact
    finally:
        workspace_indexes_sync(min_chunks=10**9)


@pytest.mark.django_db(transaction=True)
def test_a_document_left_apart_without_its_workspaces_graphs_is_found_and_returned_by_the_sync(
    settings,
) -> None:
    workspace = Workspace.objects.create(name="ws-stray", slug="ws-stray")
    bot = Bot.objects.create(workspace=workspace, name="stray bot")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    stray = document_ingested(workspace=workspace, text=BOATS, filename="boats.md", bots=[bot])
    # As if ingested while the workspace's graphs were being dropped: apart, in no graph at all.
    Document.objects.filter(pk=stray.pk).update(chunks_apart=True)
    Chunk.objects.filter(document=stray).update(shared_indexed=False)
    walked, exact = _rankings(settings, workspace, bot)
    assert walked == exact and stray.pk in set(
        Chunk.objects.filter(id__in=walked).values_list("document_id", flat=True)
    )
    workspace_indexes_sync(min_chunks=10**9)
    stray.refresh_from_db()
    assert not stray.chunks_apart and _shared_flags(stray) == {True}


@pytest.mark.django_db(transaction=True)
def test_migration_0019_puts_shared_indexed_into_the_shared_graphs_and_back_keeping_their_names() -> (
    None
):
    definitions = _index_definitions()
    assert all("shared_indexed" in definitions[name] for name in SHARED)
    out = io.StringIO()
    try:
        call_command("migrate", "rag", "0018", stdout=out)
        definitions = _index_definitions()
        assert all(
            name in definitions and "shared_indexed" not in definitions[name] for name in SHARED
        )
        assert not any(name.endswith("_next") for name in definitions)
    finally:
        call_command(
            "migrate", stdout=out
        )  # every app: going back unapplied those that depend on rag
    definitions = _index_definitions()
    assert all("shared_indexed" in definitions[name] for name in SHARED)
    assert not any(name.endswith("_next") for name in definitions)
