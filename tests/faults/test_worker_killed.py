"""An ingestion worker SIGKILLed mid-batch, pool process and all (a host or container dying, not one task's
process): /healthz counts one worker less, and the periodic sweep that `celery beat` runs hands the batch's
documents to the worker that is left (the session's); each ends ready with each chunk once, and health
recovers."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction

from config.celery import app as celery_app
from core.models import Workspace
from rag.models import Document
from rag.services import document_create, documents_reclaim_stuck
from tests.conftest import TEST_QUEUE
from tests.faults.conftest import (
    documents_finish,
    health,
    health_recovers,
    invariants_check,
    manual_text,
)
from tests.support.knowledge import batch_embedding_wait
from tests.support.processes import (
    celery_worker_start,
    child_database_url,
    process_group_stop,
    wait_for,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(180)]

QUEUE = "parley-test-faults"


@pytest.fixture
def ingestion_queue() -> Iterator[dict[str, str]]:
    """Documents created by the test go to a queue of their own, which only the worker to kill consumes."""
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = QUEUE
    env = {
        "DATABASE_URL": child_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": QUEUE,
        "PARLEY_EMBEDDING_BATCH_SIZE": "4",  # progress (the heartbeat) moves often
    }
    try:
        yield env
    finally:
        celery_app.conf.task_default_queue = previous


def _workers(base: str) -> int:
    return int(health(base)[1]["workers"])


def test_a_worker_killed_mid_batch_its_documents_end_ready_after_the_sweep(
    live_api: str, celery_worker: str, ingestion_queue: dict[str, str], settings: object
) -> None:
    workspace = Workspace.objects.create(name="Kill", slug="faults-kill")
    first = celery_worker_start(hostname="faults-a@localhost", queue=QUEUE, env=ingestion_queue)
    try:
        workers_before = _workers(live_api)
        with (
            transaction.atomic()
        ):  # every message leaves at commit: the first finds the others waiting
            documents = [
                document_create(
                    workspace=workspace,
                    file=ContentFile(manual_text(n, paragraphs=20).encode(), name=f"m{n}.txt"),
                )
                for n in range(4)
            ]
        ids = [document.pk for document in documents]

        batch_embedding_wait(ids)
        os.killpg(first.pid, signal.SIGKILL)  # the main process and its pool process, at once
        first.wait(timeout=10)

        wait_for(
            lambda: _workers(live_api) == workers_before - 1,
            timeout=15,
            interval=0.5,
            what="/healthz to count the dead worker out",
        )
        left = Document.objects.filter(pk__in=ids, status="processing")
        dead_claims = set(left.values_list("claim_id", flat=True))
        assert dead_claims  # the batch is left behind, claimed by a worker that is gone

        # The sweep re-queues them where the surviving worker listens.
        celery_app.conf.task_default_queue = TEST_QUEUE
        # What celery beat runs every PARLEY_RECLAIM_EVERY_SECONDS, with claims stale after 1 s
        # instead of PARLEY_INGEST_STUCK_AFTER (30 s at the least), so the test need not wait.
        settings.PARLEY_INGEST_STUCK_AFTER = 1  # type: ignore[attr-defined]

        def swept() -> bool:
            documents_reclaim_stuck()
            return not left.filter(claim_id__in=dead_claims).exists()

        wait_for(swept, timeout=10, interval=0.5, what="the sweep to hand the batch back")

        documents_finish(ids, timeout=120, what="every document of the killed batch")
        assert health_recovers(live_api)["workers"] == workers_before - 1
        invariants_check()
    finally:
        process_group_stop(first)
