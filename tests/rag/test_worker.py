"""Real Celery workers: a folder of every format through the `ingest` command, and workers killed mid-document."""

from __future__ import annotations

import io
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from django.conf import settings
from django.core.management import call_command

from config.celery import app as celery_app
from core.models import Workspace
from rag.models import Chunk, Document
from tests.support.knowledge import batch_embedding_wait
from tests.support.processes import (
    celery_worker_start,
    child_database_url,
    process_group_stop,
    wait_for,
)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_ingests_a_folder_of_every_format_with_locations(
    celery_worker: str, tmp_path: Path
) -> None:
    from bots.models import Bot
    from tests.rag.files import write_every_format

    workspace = Workspace.objects.create(name="Folder test", slug="folder-test")
    Bot.objects.create(workspace=workspace, name="Desk")
    write_every_format(tmp_path)
    (tmp_path / ".hidden.txt").write_text("never read")
    out = io.StringIO()
    call_command(
        "ingest",
        str(tmp_path),
        "--workspace",
        "folder-test",
        "--bot",
        "Desk",
        "--timeout",
        "120",
        stdout=out,
    )
    summary = out.getvalue()
    assert "8 ready, 0 not ready, of 8 documents." in summary, summary

    documents = {
        d.filename: d for d in Document.objects.filter(workspace=workspace).prefetch_related("bots")
    }
    assert set(documents) == {
        "notes.txt",
        "orders.md",
        "returns.html",
        "battery.pdf",
        "warranty.docx",
        "faq.csv",
        "battery-video.vtt",
        "repair.srt",
    }
    assert all([bot.name for bot in d.bots.all()] == ["Desk"] for d in documents.values())
    pdf = Chunk.objects.get(document=documents["battery.pdf"])
    assert pdf.page_number == 1 and [box["page_number"] for box in pdf.bbox] == [1, 2]
    assert pdf.bbox[0]["bbox"][0] == 72.0
    vtt = list(Chunk.objects.filter(document=documents["battery-video.vtt"]).order_by("ordinal"))
    assert (vtt[0].start_time, vtt[-1].end_time) == (1.0, 65.25) and vtt[0].page_number is None
    assert vtt[0].metadata["modality"] == "video"
    srt = Chunk.objects.get(document=documents["repair.srt"])
    assert (srt.start_time, srt.end_time) == (2.0, 8.75)
    assert Chunk.objects.filter(document=documents["faq.csv"]).count() == 2
    assert all(
        Chunk.objects.filter(document=d).count() == d.chunk_count > 0 for d in documents.values()
    )


KILL_QUEUE = "parley-test-kill"


@pytest.fixture(scope="module")
def kill_worker(django_db_setup: None) -> Iterator[subprocess.Popen[bytes]]:
    """A worker of our own, on its own queue, embedding in batches of 4 so progress moves often. The
    tests kill its pool process, never the worker: it forks a new one, so one worker serves them all."""
    hostname = f"kill-worker-{os.getpid()}@localhost"
    env = {
        "DATABASE_URL": child_database_url(),
        "REDIS_URL": settings.CELERY_BROKER_URL,
        "CELERY_TASK_DEFAULT_QUEUE": KILL_QUEUE,
        "PARLEY_EMBEDDING_BATCH_SIZE": "4",
        "PARLEY_INGEST_MAX_ATTEMPTS": "2",
    }
    process = celery_worker_start(hostname=hostname, queue=KILL_QUEUE, env=env)
    try:
        yield process
    finally:
        process_group_stop(process)


@pytest.fixture
def dedicated_worker(
    kill_worker: subprocess.Popen[bytes],
) -> Iterator[subprocess.Popen[bytes]]:
    """The module's worker, with this test's documents queued to it; we may kill its pool process."""
    assert kill_worker.poll() is None, f"the kill worker exited with {kill_worker.returncode}"
    wait_for(
        lambda: len(psutil.Process(kill_worker.pid).children()) == 1,
        timeout=30,
        what="the kill worker's pool process",
    )
    previous_queue = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = KILL_QUEUE
    try:
        yield kill_worker
    finally:
        celery_app.conf.task_default_queue = previous_queue


def _long_text() -> str:
    sentence = "The rear hub motor of model {n} needs a torque check every {n} hundred kilometres of riding. "
    return "\n\n".join(sentence.format(n=n) * 6 for n in range(60))


def _kill_mid_document(worker: subprocess.Popen, document: Document, attempt: int) -> None:
    """SIGKILL the pool process while it is embedding (progress past parsing) on the given attempt."""

    def embedding() -> bool:
        document.refresh_from_db()
        return (
            document.status == "processing"
            and document.attempts == attempt
            and document.progress > 15
        )

    wait_for(embedding, timeout=90, interval=0.05, what=f"attempt {attempt} to start embedding")
    children = psutil.Process(worker.pid).children()
    assert len(children) == 1
    children[0].send_signal(signal.SIGKILL)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_document_is_retried_to_ready_without_duplicates(
    dedicated_worker, make_document
) -> None:
    document = make_document("motor.txt", _long_text())
    _kill_mid_document(dedicated_worker, document, attempt=1)

    def finished() -> bool:
        document.refresh_from_db()
        return document.status in {"ready", "failed"}

    wait_for(finished, timeout=120, what="the redelivered task to finish")
    assert (document.status, document.error) == ("ready", "")
    chunks = Chunk.objects.filter(document=document)
    assert chunks.count() == document.chunk_count > 10
    assert sorted(chunks.values_list("ordinal", flat=True)) == list(range(document.chunk_count))


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_document_that_keeps_killing_its_worker_ends_failed(
    dedicated_worker, make_document
) -> None:
    other = make_document("short.txt", "Check the brake pads every season.")
    document = make_document("motor.txt", _long_text())
    _kill_mid_document(dedicated_worker, document, attempt=1)
    _kill_mid_document(dedicated_worker, document, attempt=2)

    def failed() -> bool:
        document.refresh_from_db()
        return document.status == "failed"

    wait_for(failed, timeout=90, what="the document to fail after its attempts")
    assert document.error_code == "worker_lost"
    assert "killed, or out of memory" in document.error
    assert not Chunk.objects.filter(document=document).exists()
    other.refresh_from_db()
    wait_for(
        lambda: Document.objects.get(pk=other.pk).status == "ready",
        timeout=60,
        what="the other document",
    )


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_batch_leaves_every_document_to_end_ready(
    dedicated_worker, make_document
) -> None:
    from django.db import transaction

    with (
        transaction.atomic()
    ):  # every message leaves at commit, so the first one finds the others waiting
        documents = [
            make_document(f"motor-{n}.txt", _long_text().replace("motor", f"motor {n}"))
            for n in range(4)
        ]
    ids = [document.pk for document in documents]

    batch_embedding_wait(ids)
    children = psutil.Process(dedicated_worker.pid).children()
    assert len(children) == 1
    children[0].send_signal(signal.SIGKILL)

    def finished() -> bool:
        return not Document.objects.filter(
            pk__in=ids, status__in=["pending", "processing"]
        ).exists()

    wait_for(finished, timeout=180, what="every document of the killed batch to finish")
    for document in Document.objects.filter(pk__in=ids):
        assert (document.status, document.error) == ("ready", "")
        ordinals = sorted(Chunk.objects.filter(document=document).values_list("ordinal", flat=True))
        assert ordinals == list(range(document.chunk_count)) and document.chunk_count > 10
