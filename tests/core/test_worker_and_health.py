"""A task runs in a real worker process through the broker, keeping its database connections across tasks, and
/healthz reports each part."""

from __future__ import annotations

import os
import time

import pytest
from django.db import connection
from django.test import Client

from config.celery import app as celery_app
from core.models import WorkerProbe
from core.services import worker_probe_start
from tests.support.processes import wait_for


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_task_runs_in_a_real_worker_and_writes_to_the_database(celery_worker: str) -> None:
    probe = worker_probe_start()

    def completed() -> bool:
        probe.refresh_from_db()
        return probe.completed_at is not None

    wait_for(completed, timeout=30, what="the worker to complete the probe")
    assert probe.worker_pid is not None and probe.worker_pid != os.getpid()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_its_database_connection_from_one_task_to_the_next(
    celery_worker: str,
) -> None:
    def probe_completed() -> None:
        probe = worker_probe_start()
        wait_for(
            lambda: WorkerProbe.objects.filter(pk=probe.pk, completed_at__isnull=False).exists(),
            timeout=30,
        )

    def sessions_started() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
            )
            return cursor.fetchone()[0]

    probe_completed()  # the worker's pool process has connected by now
    time.sleep(1.5)  # a backend reports its session within a second; one that ends, as it ends
    before = sessions_started()
    for _ in range(3):
        probe_completed()
    time.sleep(1.5)
    # Celery's fix-up alone closed the process's connections and psycopg pool around every task:
    # each of these tasks started two new PostgreSQL backends.
    assert sessions_started() == before


@pytest.mark.django_db
def test_the_task_is_enqueued_only_after_commit(django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        probe = worker_probe_start()
    assert len(callbacks) == 1  # held until the surrounding transaction commits
    assert WorkerProbe.objects.get(pk=probe.pk).completed_at is None


@pytest.mark.worker
@pytest.mark.django_db
def test_healthz_reports_every_part_ok(celery_worker: str) -> None:
    response = Client().get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["database_ok"] is True
    assert body["broker_ok"] is True
    assert body["workers"] >= 1
    assert body["pgvector_version"].startswith("0.")


@pytest.mark.django_db
def test_healthz_answers_503_when_the_broker_is_down() -> None:
    original = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = Client().get("/healthz")
    finally:
        celery_app.conf.broker_url = original
    body = response.json()
    assert response.status_code == 503
    assert body["broker_ok"] is False
    assert "broker" in body["errors"]
