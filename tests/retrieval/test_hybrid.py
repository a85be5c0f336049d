"""Hybrid retrieval on the real Chunk table: ranking, scores, scope isolation, lexicon expansion, query count."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from bots.models import Bot
from conversations.models import Conversation
from core.models import Workspace
from rag.models import Chunk
from rag.retrieval import RetrievalScope, chunks_retrieve, query_expand
from rag.retrieval.sql import hybrid_plan, plan, plan_settings, text_rows, walk_depth
from tests.support.knowledge import document_ingested, hybrid_params
from textmodels.embeddings import query_cache_clear

pytestmark = pytest.mark.django_db

BIKES = (
    "# Bike rental\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half price.\n\n"
    "# Opening hours\n\nThe shop is open from 9 am to 7 pm, Tuesday to Sunday, and closed on Mondays."
)
SECRET = "# Private note\n\nThe customer's bike rental discount code is PEDAL-SECRET-42 for a day rental."


def _workspace(name: str) -> tuple[Workspace, Bot]:
    workspace = Workspace.objects.create(name=name, slug=name)
    return workspace, Bot.objects.create(workspace=workspace, name=f"{name} bot")


def _ids(result) -> set[str]:
    return {hit.document_id for hit in result.hits}


def test_hybrid_ranks_the_answering_chunk_first_with_every_score() -> None:
    workspace, bot = _workspace("ws-rank")
    document = document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    result = chunks_retrieve(scope=scope, question="How much is a day rental of a bike?", top_k=3)
    top = result.hits[0]
    assert top.document_id == str(document.pk) and "25 euros" in top.text
    assert top.rank == 1 and 0.3 < top.vector_score <= 1 and top.vector_rank == 1
    assert top.text_rank is not None and top.text_score > 0 and top.fused_score > 0
    assert result.model_id == "local/all-MiniLM-L6-v2" and set(result.latencies) == {
        "embed",
        "search",
        "rerank",
    }


def test_score_threshold_and_top_k_apply() -> None:
    workspace, bot = _workspace("ws-threshold")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    assert len(chunks_retrieve(scope=scope, question="When is the shop open?", top_k=1).hits) == 1
    # The threshold is on the relevance estimate: the shop's hours reach it, a river in Mongolia not.
    relevant = chunks_retrieve(scope=scope, question="When is the shop open?", score_threshold=0.5)
    assert relevant.hits and all(hit.score >= 0.5 for hit in relevant.hits)
    unrelated = "Which river flows through the capital of Mongolia?"
    assert chunks_retrieve(scope=scope, question=unrelated, score_threshold=0.5).hits == []


@pytest.mark.parametrize("exact_max", [2000, 0], ids=["exact-scan", "hnsw-walk"])
def test_scope_isolates_workspaces_bots_sessions_external_users_and_document_ids(
    settings, exact_max: int
) -> None:
    settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = (
        exact_max  # 0: even this small scope walks the HNSW index
    )
    workspace, bot = _workspace("ws-scope")
    other_workspace, other_bot = _workspace("ws-foreign")
    shared = document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    foreign = document_ingested(workspace=other_workspace, text=SECRET, bots=[other_bot])
    conversation = Conversation.objects.create(bot=bot, external_user_id="alice")
    session = document_ingested(workspace=workspace, text=SECRET, conversation_id=conversation.pk)
    alice = document_ingested(
        workspace=workspace, text=SECRET, filename="alice.md", bots=[bot], external_user_id="alice"
    )
    question = "What is the bike rental discount code for a day rental?"

    def found(**scope: object) -> set[str]:
        base = {"workspace_id": str(workspace.pk), "bot_ids": [str(bot.pk)]}
        return _ids(
            chunks_retrieve(scope=RetrievalScope(**{**base, **scope}), question=question, top_k=10)
        )

    assert found(external_user_id="") == {str(shared.pk)}
    assert found(external_user_id="bob") == {str(shared.pk)}
    assert found(external_user_id="alice") == {str(shared.pk), str(alice.pk)}
    assert found(external_user_id="alice", conversation_id=str(conversation.pk)) == {
        str(shared.pk),
        str(alice.pk),
        str(session.pk),
    }
    assert found(external_user_id="alice", document_ids=[str(alice.pk), str(foreign.pk)]) == {
        str(alice.pk)
    }
    assert str(foreign.pk) not in found(
        bot_ids=None
    )  # the whole workspace, still not another tenant
    other_bot_of_workspace = Bot.objects.create(workspace=workspace, name="second")
    assert found(bot_ids=[str(other_bot_of_workspace.pk)], external_user_id="alice") == set()


def test_lexicon_synonyms_expand_the_full_text_query() -> None:
    expanded = query_expand(
        question="Where is my parcel?", keywords=["delivery"], lexicon=[("parcel", "package")]
    )
    assert expanded == "Where is my parcel? delivery package"
    assert query_expand(question="Hello", lexicon=[("parcel", "package")]) == "Hello"
    workspace, bot = _workspace("ws-lexicon")
    document = document_ingested(
        workspace=workspace, text="# Shipping\n\nEvery package ships within two days.", bots=[bot]
    )
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    result = chunks_retrieve(
        scope=scope, question="Où est mon colis ?", lexicon=[("colis", "package")]
    )
    assert result.hits and result.hits[0].document_id == str(document.pk)
    assert result.hits[0].text_rank == 1  # found by full text through the synonym


def test_retrieval_uses_a_bounded_number_of_queries(django_assert_max_num_queries) -> None:
    workspace, bot = _workspace("ws-queries")
    for n in range(3):
        document_ingested(
            workspace=workspace, text=BIKES + f"\n\nEdition {n}.", bots=[bot], filename=f"b{n}.md"
        )
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    chunks_retrieve(scope=scope, question="warm-up")
    # the workspace's model, the full-text statement (inline inside the test's transaction), then the
    # planner settings and the hybrid statement in one round trip, then the relevance estimate's stored
    # passages of the candidates and their idf look-up
    with django_assert_max_num_queries(5):
        result = chunks_retrieve(scope=scope, question="How much is a day rental?", top_k=6)
    assert len(result.hits) >= 3


def test_one_retriever_alone_through_the_same_statement() -> None:
    workspace, bot = _workspace("ws-modes")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    question = "How much is a day rental of a bike?"
    vector = chunks_retrieve(scope=scope, question=question, top_k=3, mode="vector")
    text = chunks_retrieve(scope=scope, question=question, top_k=3, mode="text")
    assert vector.hits and all(
        hit.text_rank is None and hit.vector_rank == hit.rank for hit in vector.hits
    )
    assert text.hits and all(
        hit.vector_rank is None and hit.text_rank == hit.rank for hit in text.hits
    )
    assert "25 euros" in vector.hits[0].text and "25 euros" in text.hits[0].text


def test_the_walk_deepens_with_the_scope_as_walk_depth_says(monkeypatch) -> None:
    workspace, bot = _workspace("ws-depth")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    document_ingested(workspace=workspace, text=SECRET, filename="note.md", bots=[bot])
    params = hybrid_params(workspace=workspace, bot=bot, question="How much is a bike?")
    chosen = plan_settings(params=params, ef_search=1, exact_max=0)
    chunks = chosen["scope_chunks"]
    assert chunks == Chunk.objects.filter(workspace=workspace).count() and chunks >= 2
    assert chosen["enable_indexscan"] == "on" and chosen["hnsw.iterative_scan"] == "relaxed_order"
    # At the product's share a scope this small keeps the floor; a share of one walks a row per chunk,
    # and the ceiling holds whatever the share.
    assert chosen["hnsw.ef_search"] == walk_depth(scope_chunks=chunks, ef_search=1) == 1
    monkeypatch.setattr(plan, "WALK_SHARE", 1.0)
    assert plan_settings(params=params, ef_search=1, exact_max=0)["hnsw.ef_search"] == chunks
    assert walk_depth(scope_chunks=chunks, ef_search=1) == chunks
    monkeypatch.setattr(plan, "WALK_MAX", chunks - 1)
    assert plan_settings(params=params, ef_search=1, exact_max=0)["hnsw.ef_search"] == chunks - 1
    assert plan_settings(params=params, ef_search=50, exact_max=0)["hnsw.ef_search"] == 50
    with connection.cursor() as cursor:  # nothing outlives the look
        cursor.execute("SHOW hnsw.ef_search")
        assert cursor.fetchone()[0] == "40"


def test_a_scope_above_the_exact_scan_limit_walks_the_hnsw_index_with_the_same_ranking(
    settings,
) -> None:
    workspace, bot = _workspace("ws-plan")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    document_ingested(workspace=workspace, text=SECRET, filename="note.md", bots=[bot])
    question = "How much is a day rental of a bike?"
    params = hybrid_params(workspace=workspace, bot=bot, question=question)
    plans, rankings = {}, {}
    for exact_max in (2000, 0):
        settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = exact_max
        with transaction.atomic():
            plans[exact_max] = hybrid_plan(
                params=params, text=text_rows(params=params), ef_search=100, exact_max=exact_max
            )
        scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
        rankings[exact_max] = [
            hit.id for hit in chunks_retrieve(scope=scope, question=question).hits
        ]
    assert "chunk_embedding_half_384" not in plans[2000] and "chunk_embedding_half_384" in plans[0]
    # Each plan runs one branch of the vector side: the exact scan sorts at full precision, the walk of
    # the shared graph by its halfvec expression; the walks of the workspace's own graph (it has none) and
    # of chunks kept apart (none here), and the other branch, are planned and never executed. (The
    # multilingual side's four come next; without its vectors here, none runs.)
    for exact_max, runs in ((2000, [False, False, False, True]), (0, [False, True, False, False])):
        lines = plans[exact_max].splitlines()
        gates = [n for n, line in enumerate(lines) if "One-Time Filter" in line]
        assert len(gates) == 8
        ran = ["never executed" not in lines[n + 1] for n in gates[:4]]
        assert ran == runs, [lines[n : n + 2] for n in gates[:4]]
    assert rankings[0] == rankings[2000] and len(rankings[0]) >= 2
    with (
        transaction.atomic(),
        connection.cursor() as cursor,
    ):  # the planner settings end with the search
        chunks_retrieve(scope=scope, question=question)
        cursor.execute("SELECT current_setting('enable_sort'), current_setting('enable_indexscan')")
        assert cursor.fetchone() == ("on", "on")


@pytest.mark.django_db(transaction=True)
def test_the_full_text_statement_runs_on_its_own_connection_while_the_question_is_embedded(
    settings,
) -> None:
    workspace, bot = _workspace("ws-overlap")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    document_ingested(workspace=workspace, text=SECRET, filename="note.md", bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    question = "How much is a day rental of a bike?"

    def retrieved(threads: int) -> tuple[list[tuple], list[str]]:
        settings.RETRIEVAL_TEXT_THREADS = threads
        statements: list[str] = []
        with connection.execute_wrapper(
            lambda execute, sql, *args: statements.append(sql) or execute(sql, *args)
        ):
            result = chunks_retrieve(scope=scope, question=question, top_k=4)
        return [(hit.id, hit.text_rank, hit.vector_rank) for hit in result.hits], statements

    inline, inline_statements = retrieved(0)
    # A cached question vector takes no time, and a statement still queued by then runs inline: the
    # overlap needs a real embedding to overlap with.
    query_cache_clear()
    overlapped, overlapped_statements = retrieved(2)
    assert overlapped == inline and any(text_rank for _, text_rank, _ in inline)
    # The full-text statement (BM25 reads each chunk's search_length; the relevance estimate's idf look-up
    # reads rag_termstat too, but on this connection, after the search).
    assert any("search_length" in sql for sql in inline_statements)
    assert not any(
        "search_length" in sql for sql in overlapped_statements
    )  # it ran on a pool thread's connection


def test_a_workspace_without_multilingual_vectors_yet_skips_that_side_and_keeps_the_others(
    settings,
) -> None:
    settings.RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = 0  # the HNSW walk, where the empty side would cost
    workspace, bot = _workspace("ws-multi-pending")
    document_ingested(workspace=workspace, text=BIKES, bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    question = "How much is a day rental of a bike?"
    before = chunks_retrieve(scope=scope, question=question)
    assert any(hit.multi_rank for hit in before.hits)
    # The backfill has not reached it: no chunk holds a vector of the multilingual model.
    Chunk.objects.filter(workspace=workspace).update(embedding_multi=None, embedding_multi_model="")
    after = chunks_retrieve(scope=scope, question=question)
    assert after.hits and "25 euros" in after.hits[0].text
    assert all(hit.multi_rank is None for hit in after.hits)
    assert any(hit.vector_rank for hit in after.hits) and any(hit.text_rank for hit in after.hits)
    params = hybrid_params(workspace=workspace, bot=bot, question=question, multilingual=True)
    with transaction.atomic():
        plan = hybrid_plan(params=params, text=text_rows(params=params), ef_search=100, exact_max=0)
    walk = next(line for line in plan.splitlines() if "chunk_embedding_multi_half" in line)
    assert "never executed" in walk  # the shared graph is not walked for rows that are not there
