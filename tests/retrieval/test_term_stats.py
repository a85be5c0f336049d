"""BM25's term statistics stay exact: recounted from rag_chunk after uploads, re-runs, failures and deletions,
and under two ingestions of one workspace at once."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.core.files.base import ContentFile
from django.db import connection

from bots.models import Bot
from conversations.models import Conversation
from core.models import Workspace
from rag.ingestion import document_ingest
from rag.models import Document
from rag.services import document_create, document_delete, document_file_replace
from tests.support.knowledge import document_ingested
from tests.support.processes import celery_workers_idle, wait_for

_KEPT = """
SELECT 'term', workspace_id::text, config, term, chunks::bigint FROM rag_termstat WHERE workspace_id = ANY(%(ws)s)
UNION ALL
SELECT 'corpus', workspace_id::text, config, '', chunks::bigint * 1000000 + length FROM rag_corpusstat
WHERE workspace_id = ANY(%(ws)s)
"""
_RECOUNTED = """
SELECT 'term', c.workspace_id::text, c.search_config, t.lexeme, count(*)
FROM rag_chunk AS c, unnest(c.search_vector) AS t WHERE c.workspace_id = ANY(%(ws)s) GROUP BY 2, 3, 4
UNION ALL
SELECT 'corpus', workspace_id::text, search_config, '', count(*) * 1000000 + sum(search_length)
FROM rag_chunk WHERE workspace_id = ANY(%(ws)s) GROUP BY 2, 3
"""

DOCS = {
    "shipping": "# Shipping\n\nParcels ship within two days. Express shipping costs 9 euros per parcel.",
    "returns": "# Returns\n\nReturns are free within thirty days; the parcel must be unopened.",
    "french": "# Livraison\n\nLa livraison à domicile est offerte dès cinquante euros d'achat en France.",
}


def _stats(workspaces: list[Workspace]) -> tuple[set[tuple], set[tuple]]:
    ids = [w.pk for w in workspaces]
    with connection.cursor() as cursor:
        cursor.execute(_KEPT, {"ws": ids})
        kept = set(cursor.fetchall())
        cursor.execute(_RECOUNTED, {"ws": ids})
        return kept, set(cursor.fetchall())


def _workspace(name: str) -> tuple[Workspace, Bot]:
    workspace = Workspace.objects.create(name=name, slug=name)
    return workspace, Bot.objects.create(workspace=workspace, name=f"{name} bot")


def _rerun(document: Document, text: str, filename: str) -> str:
    document_file_replace(document=document, file=ContentFile(text.encode(), name=filename))
    return document_ingest(document_id=str(document.pk), claim_id=f"re-{uuid.uuid4().hex[:8]}")


@pytest.mark.django_db
def test_statistics_match_a_recount_through_uploads_reruns_failures_and_deletions() -> None:
    workspace, bot = _workspace("ws-stats")
    other, other_bot = _workspace("ws-stats-other")
    docs = {
        name: document_ingested(workspace=workspace, text=text, filename=f"{name}.md", bots=[bot])
        for name, text in DOCS.items()
    }
    foreign = document_ingested(workspace=other, text=DOCS["shipping"], bots=[other_bot])
    kept, recounted = _stats([workspace, other])
    assert kept == recounted and len(kept) > 20
    assert ("corpus", str(workspace.pk), "french", "", 1_000_000 + _length(docs["french"])) in kept

    steps = [
        lambda: _rerun(
            docs["shipping"], DOCS["shipping"] + " Tracking numbers come by e-mail.", "s.md"
        ),
        lambda: _rerun(
            docs["returns"], "%PDF-1.4 not really a PDF", "returns.pdf"
        ),  # fails: no chunks
        lambda: document_delete(document_id=docs["french"].pk),
        lambda: _rerun(docs["returns"], DOCS["returns"], "returns.md"),
        lambda: Conversation.objects.create(bot=bot).delete(),  # nothing of its own yet
    ]
    for step in steps:
        step()
        assert _stats([workspace, other])[0] == _stats([workspace, other])[1]
    assert Document.objects.get(pk=docs["returns"].pk).status == Document.Status.READY

    # A session's documents go with their conversation (the ORM's cascade), a workspace's with it.
    conversation = Conversation.objects.create(bot=bot)
    document_ingested(workspace=workspace, text=DOCS["french"], conversation_id=conversation.pk)
    conversation.delete()
    kept, recounted = _stats([workspace, other])
    assert kept == recounted
    workspace.delete()
    kept, recounted = _stats([workspace, other])
    assert kept == recounted and {row[1] for row in kept} == {str(other.pk)}
    document_delete(document_id=foreign.pk)
    assert _stats([other]) == (set(), set())


def _length(document: Document) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(search_length) FROM rag_chunk WHERE document_id = %s", [document.pk]
        )
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_two_documents_of_one_workspace_ingested_at_once_lose_no_update() -> None:
    workspace, bot = _workspace("ws-stats-race")
    texts = [f"{DOCS['shipping']} Batch {n}. {DOCS['returns']}" for n in range(4)]
    documents = [
        document_create(
            workspace=workspace, file=ContentFile(text.encode(), name=f"r{n}.md"), bots=[bot]
        )
        for n, text in enumerate(texts)
    ]
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def ingest(pair: list[Document]) -> None:
        try:
            for document in pair:
                start.wait(timeout=60)  # each swap of one thread meets one of the other
                document_ingest(document_id=str(document.pk), claim_id=f"t-{document.pk}")
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=ingest, args=(documents[i::2],)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert errors == []
    # In the whole suite a test worker may take some of them first (the commit queued them): same outcome.
    wait_for(
        lambda: Document.objects.filter(workspace=workspace, status="ready").count() == 4,
        timeout=120,
        what="the four documents to be ready",
    )
    kept, recounted = _stats([workspace])
    assert kept == recounted and kept
    # What the four documents queued (the last one to settle asks for a calibration) ends here, not
    # in the next test's database flush, which it would deadlock.
    wait_for(celery_workers_idle, timeout=120, interval=0.5, what="the session worker to be idle")
