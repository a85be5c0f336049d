"""A real Celery worker SIGKILLed mid-crawl (its pool process with it): the sweep beat runs hands the
sync to another worker, which resumes from the stored frontier; every page is stored once."""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction

from config.celery import app as celery_app
from rag.models import Document
from sources.models import SourcePage, SourceSync
from sources.services import source_sync_request, sources_due_dispatch
from tests.sources.website.site import Page, TestSite, html, prose
from tests.support.processes import (
    celery_worker_start,
    child_database_url,
    process_group_stop,
    wait_for,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.timeout(240)]

QUEUE = "parley-test-sources"
PAGES = 12


@pytest.fixture
def sources_queue(settings: Any) -> Iterator[dict[str, str]]:
    """The test's syncs (and their pages' ingestion) go to a queue only its workers consume."""
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = QUEUE
    settings.PARLEY_SOURCES_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    settings.PARLEY_SOURCES_STUCK_AFTER_SECONDS = 2
    env = {
        "DATABASE_URL": child_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": QUEUE,
        "PARLEY_SOURCES_ALLOWED_NETWORKS": "127.0.0.1/32",
        "PARLEY_SOURCES_STUCK_AFTER_SECONDS": "2",
        "PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS": "0",
    }
    try:
        yield env
    finally:
        celery_app.conf.task_default_queue = previous


def test_a_worker_killed_mid_crawl_resumes_without_duplicates(
    sources_queue: dict[str, str], make_source
) -> None:
    site = TestSite().start()
    first = second = None
    try:
        paths = [f"/page-{n}/" for n in range(PAGES)]
        for n, path in enumerate(paths):
            body = html(f"Page {n}", f"<h1>Page {n}</h1>" + prose(f"topic {n}"))
            site.pages[path] = Page(body=body, delay=0.3)  # a crawl slow enough to be cut
        entries = "".join(f"<url><loc>{site.url(p, host='127.0.0.1')}</loc></url>" for p in paths)
        site.pages["/sitemap.xml"] = Page(
            body=f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode(),
            content_type="application/xml",
        )
        source = make_source(
            kind="website", config={"sitemap_urls": [site.url("/sitemap.xml", host="127.0.0.1")]}
        )
        first = celery_worker_start(hostname="sources-a@localhost", queue=QUEUE, env=sources_queue)
        with transaction.atomic():
            sync, _ = source_sync_request(source=source)

        def crawled(count: int) -> bool:
            return int(SourceSync.objects.get(pk=sync.pk).frontier.get("fetched", 0)) >= count

        wait_for(lambda: crawled(4), timeout=90, interval=0.05, what="the crawl to be under way")
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        killed = SourceSync.objects.get(pk=sync.pk)
        assert killed.status == SourceSync.Status.RUNNING
        assert int(killed.frontier["fetched"]) < PAGES

        second = celery_worker_start(hostname="sources-b@localhost", queue=QUEUE, env=sources_queue)

        def finished() -> bool:
            sources_due_dispatch()  # what beat runs every PARLEY_SOURCES_DISPATCH_EVERY_SECONDS
            return SourceSync.objects.get(pk=sync.pk).status == SourceSync.Status.DONE

        wait_for(finished, timeout=120, interval=1.0, what="the sync to resume and finish")
        done = SourceSync.objects.get(pk=sync.pk)
        assert done.counts["new"] == PAGES, done.counts
        # (the pages' navigation links to / and /about/, which answer 404: recorded, no document)
        assert SourcePage.objects.filter(source=source, state="active").count() == PAGES
        assert Document.objects.filter(workspace=source.workspace).count() == PAGES
        fetched = Counter(path for path in site.paths() if path.startswith("/page-"))
        # Each page fetched once, but the one the worker died on (fetched, never recorded).
        assert set(fetched) == set(paths) and sum(fetched.values()) <= PAGES + 1, fetched
    finally:
        for worker in (first, second):
            if worker is not None:
                process_group_stop(worker)
        site.stop()
