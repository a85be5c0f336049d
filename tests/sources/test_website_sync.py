"""Website sources end to end: the website kind against a real local HTTP server whose pages the test
changes, removes and breaks between syncs, through the sync engine and rag's ingestion."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from rag.models import Chunk, Document
from rag.retrieval.service import RetrievalScope, chunks_retrieve
from sources.models import SourcePage, SourceSync
from tests.sources.conftest import sync_once
from tests.sources.test_sync import EmbeddingCalls
from tests.sources.website.site import Page, TestSite, html, prose

TOPICS = ("warranty", "returns", "descaling", "filters", "lids", "kettles", "cables", "plates")


def _sitemap(site: TestSite, paths: list[str]) -> Page:
    entries = "".join(f"<url><loc>{site.url(path, host='127.0.0.1')}</loc></url>" for path in paths)
    body = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
    return Page(body=body.encode(), content_type="application/xml")


def _page(topic: str, version: int = 1, **extra: Any) -> Page:
    body = html(f"{topic} | Example", f"<h1>About {topic}</h1>" + prose(f"{topic} v{version}"))
    return Page(body=body, headers={"ETag": f'"{topic}-{version}"'}, **extra)


@pytest.fixture
def site(settings: Any) -> Iterator[TestSite]:
    settings.PARLEY_SOURCES_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    settings.PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = 1.0
    settings.PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS = 0.0
    running = TestSite().start()
    try:
        yield running
    finally:
        running.stop()


def _publish(site: TestSite, topics: tuple[str, ...] = TOPICS[:4]) -> list[str]:
    paths = [f"/{topic}/" for topic in topics]
    for topic, path in zip(topics, paths, strict=True):
        site.pages[path] = _page(topic)
    site.pages["/sitemap.xml"] = _sitemap(site, paths)
    site.pages["/robots.txt"] = Page(body=b"User-agent: *\nAllow: /\n", content_type="text/plain")
    return paths


def _website(make_source, site: TestSite) -> Any:
    return make_source(
        kind="website",
        config={"sitemap_urls": [site.url("/sitemap.xml", host="127.0.0.1")], "max_depth": 1},
    )


@pytest.mark.django_db
def test_a_site_syncs_and_an_unchanged_resync_embeds_nothing(
    make_source, site: TestSite, monkeypatch
) -> None:
    _publish(site)
    source = _website(make_source, site)
    first = sync_once(source)
    assert first.status == SourceSync.Status.DONE, first.errors
    assert first.counts["new"] == 4, first.counts
    document = Document.objects.get(source_url=site.url("/warranty/", host="127.0.0.1"))
    assert document.status == Document.Status.READY and document.title == "About warranty"
    texts = " ".join(Chunk.objects.filter(document=document).values_list("text", flat=True))
    assert "warranty v1 works in step 3" in texts and "Cookies" not in texts  # boilerplate left out

    calls = EmbeddingCalls(monkeypatch)
    site.requests.clear()
    second = sync_once(source)
    assert second.counts["unchanged"] == 4 and calls.texts == 0
    conditional = [seen for seen in site.requests if "If-None-Match" in seen.headers]
    assert len(conditional) == 4  # every page asked with its ETag, answered 304


@pytest.mark.django_db
def test_a_404_twice_retires_and_timeouts_never_do(make_source, site: TestSite, settings) -> None:
    settings.PARLEY_SOURCES_MAX_FAILURE_SHARE = 0.2
    paths = _publish(site, TOPICS)
    source = _website(make_source, site)
    sync_once(source)
    assert Document.objects.filter(workspace=source.workspace).count() == 8
    # A stale sitemap still lists /lids/, which now answers 404.
    del site.pages["/lids/"]
    once = sync_once(source)
    assert once.counts["gone"] == 1 and once.counts["retired"] == 0
    # 30% of the pages time out (3 of 8, past the 1 s timeout): nothing is retired, not even
    # the page gone twice.
    for path in paths[:3]:
        site.pages[path] = _page(path.strip("/"), delay=1.5)
    bad_day = sync_once(source)
    assert bad_day.counts["failed"] == {"timeout": 3}
    assert bad_day.counts.get("retired", 0) == 0
    assert "Nothing retired: 3 of 8 fetches failed" in bad_day.retirement
    assert Document.objects.filter(workspace=source.workspace).count() == 8
    # A good day: the page answered 404 on the bad day too (two syncs in a row), so it goes now.
    for path in paths[:3]:
        site.pages[path] = _page(path.strip("/"))
    good_day = sync_once(source)
    assert good_day.counts["retired"] == 1
    page = SourcePage.objects.get(url=site.url("/lids/", host="127.0.0.1"))
    assert page.state == SourcePage.State.RETIRED and page.document is None
    assert Document.objects.filter(workspace=source.workspace).count() == 7


@pytest.mark.django_db
def test_the_same_page_under_two_urls_is_stored_once(make_source, site: TestSite) -> None:
    _publish(site)
    site.pages["/warranty/print/"] = _page("warranty")
    site.pages["/sitemap.xml"] = _sitemap(
        site, ["/warranty/", "/warranty/print/", "/returns/", "/descaling/", "/filters/"]
    )
    source = _website(make_source, site)
    sync = sync_once(source)
    assert sync.counts["new"] == 4 and sync.counts["skipped"] == {"duplicate_of": 1}
    print_page = SourcePage.objects.get(url=site.url("/warranty/print/", host="127.0.0.1"))
    assert print_page.reason == f"duplicate_of: {site.url('/warranty/', host='127.0.0.1')}"
    assert Document.objects.filter(workspace=source.workspace).count() == 4


@pytest.mark.django_db
def test_removed_pages_retire_after_a_clean_crawl(make_source, site: TestSite) -> None:
    _publish(site)
    source = _website(make_source, site)
    sync_once(source)
    del site.pages["/filters/"]
    site.pages["/sitemap.xml"] = _sitemap(site, ["/warranty/", "/returns/", "/descaling/"])
    sync = sync_once(source)
    assert sync.counts["retired"] == 1 and sync.complete
    assert not Document.objects.filter(source_url=site.url("/filters/", host="127.0.0.1")).exists()


@pytest.mark.django_db(transaction=True)
def test_a_changed_page_keeps_answering_while_it_is_replaced(
    make_source, site: TestSite, bot
) -> None:
    _publish(site)
    long_page = html(
        "Warranty", "<h1>Warranty</h1>" + "".join(prose(f"warranty part {n}") for n in range(30))
    )
    site.pages["/warranty/"] = Page(body=long_page, headers={"ETag": '"w1"'})
    source = _website(make_source, site)
    sync_once(source)
    url = site.url("/warranty/", host="127.0.0.1")
    document = Document.objects.get(source_url=url)
    site.pages["/warranty/"] = Page(
        body=long_page.replace(b"warranty part", b"guarantee section"), headers={"ETag": '"w2"'}
    )
    scope = RetrievalScope(workspace_id=str(source.workspace_id), bot_ids=[str(bot.pk)])
    found: list[bool] = []
    stop = threading.Event()

    def search() -> None:
        from django.db import connection

        try:
            while not stop.is_set():
                hits = chunks_retrieve(scope=scope, question="how does the warranty work", top_k=20)
                found.append(any(hit.document_id == str(document.pk) for hit in hits.hits))
                time.sleep(0.02)
        finally:
            connection.close()

    searcher = threading.Thread(target=search)
    searcher.start()
    try:
        sync = sync_once(source)
    finally:
        stop.set()
        searcher.join()
    assert sync.counts["changed"] == 1
    assert len(found) >= 3 and all(found), found
    texts = " ".join(Chunk.objects.filter(document=document).values_list("text", flat=True))
    assert "guarantee section" in texts and "warranty part" not in texts
