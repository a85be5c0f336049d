"""The Celery application: Redis (Valkey) broker (through config.broker's transport, which outlives a
broker restart), JSON only, tasks discovered from the apps; a worker's database connections outlive its
tasks."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_init

from config.broker import broker_transport_install

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

broker_transport_install()  # a worker must outlive a broker restart (see config.broker)
app = Celery("parley")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _database_connections_tidy(sender: object = None, **_: object) -> None:
    """Django's own rule at each end of a request, around each task: drop a broken or expired connection, and hand a
    pooled one back to its process's pool.

    Celery's Django fix-up would instead close every connection before and after each task, and,
    in a prefork worker, the whole psycopg pool too: each task, even the one-query message of a
    document a batch already took, opened two PostgreSQL backends (bench/ingest). settings'
    CELERY_DB_REUSE_MAX keeps the fix-up out of it but for a full recycle every so many tasks.
    """
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return  # an eager task runs inside its caller's connection and transaction
    from django.db import close_old_connections

    close_old_connections()


def _warm_up(sender: object = None, **_: object) -> None:
    """Before the worker consumes or answers a ping (the health check that `./parley run` waits for).
    A prefork worker's main process only imports the libraries: its pool forks after this."""
    from django.conf import settings

    if not settings.PARLEY_WARM_UP:
        return
    from conversations.warmup import process_warm_up

    pool = str(getattr(sender, "pool_cls", "") or "")
    process_warm_up(inference="prefork" not in pool.lower())


# Connected by a call rather than as decorators: Celery's signals are untyped, and a decorator of theirs
# would leave the receivers untyped too.
task_prerun.connect(_database_connections_tidy)
task_postrun.connect(_database_connections_tidy)
worker_init.connect(_warm_up)
