"""The website kind under the real sync engine, against the local site: the first sync stores the pages
(redirect stubs and the not-found page as no document), an unchanged re-sync embeds nothing, an edit
and a removal give exactly one change and one retirement, and a sync where 30% of the pages time out
retires none of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sources.models import Source, SourcePage
from sources.website import website_kind
from tests.sources.conftest import sync_once
from tests.sources.test_sync import EmbeddingCalls
from tests.sources.website.conftest import resolver
from tests.sources.website.site import Page, TestSite, html, prose

TOPICS = [
    "warranty",
    "returns",
    "descaling",
    "shipping",
    "billing",
    "filters",
    "lids",
    "cables",
    "colours",
    "cleaning",
]


def _build(site: TestSite, topics: list[str]) -> None:
    menu = "".join(f"<a href='/{topic}/'>{topic}</a>" for topic in topics)
    for topic in topics:
        body = f"<h1>{topic.title()}</h1>" + prose(f"the {topic} policy")
        site.pages[f"/{topic}/"] = Page(
            body=html("Acme", body, nav=menu), headers={"ETag": f'"{topic}-1"'}
        )
    entries = "".join(f"<url><loc>{site.url(f'/{topic}/')}</loc></url>" for topic in topics)
    site.pages["/sitemap.xml"] = Page(
        body=f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode(),
        content_type="application/xml",
    )
    site.pages["/"] = Page(
        body=b'<html><head><meta http-equiv="refresh" content="0; url=/warranty/"></head></html>'
    )
    site.pages["/old-warranty/"] = Page(status=301, headers={"Location": "/warranty/"})


def _sync(source: Source, site: TestSite) -> Any:
    kind = website_kind(config=source.config, credentials={}, resolver=resolver())
    return sync_once(source, kind)


@pytest.mark.django_db(transaction=False)
def test_syncs_of_a_changing_site(
    site: TestSite,
    allowed: Any,
    make_source: Callable[..., Source],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    topics = TOPICS[:5]
    _build(site, topics)
    source = make_source(
        config={"start_urls": [site.url("/"), site.url("/old-warranty/")], "max_depth": 2}
    )

    first = _sync(source, site)

    active = SourcePage.objects.filter(source=source, document__isnull=False)
    assert sorted(page.url for page in active) == sorted(site.url(f"/{topic}/") for topic in topics)
    assert first.counts["new"] == 5, first.counts
    calls = EmbeddingCalls(monkeypatch)
    second = _sync(source, site)
    # Every fetch unchanged (the stubs lead to pages already seen; the nav's /about/ is a 404).
    assert (
        second.counts.get("unchanged", 0) >= 5
        and "new" not in second.counts
        and "changed" not in second.counts
    )
    assert calls.texts == 0

    _build(
        site, [topic for topic in topics if topic != "shipping"]
    )  # its file, sitemap entry and links gone
    site.pages["/billing/"] = Page(
        body=html("Acme", "<h1>Billing</h1>" + prose("the new invoices"), nav="")
    )
    del site.pages["/shipping/"]
    third = _sync(source, site)

    assert third.counts.get("changed") == 1 and third.counts.get("retired") == 1, third.counts
    assert not SourcePage.objects.filter(
        source=source, url=site.url("/shipping/"), document__isnull=False
    ).exists()


@pytest.mark.django_db(transaction=False)
def test_a_sync_with_30_percent_timeouts_retires_nothing(
    site: TestSite, allowed: Any, make_source: Callable[..., Source]
) -> None:
    allowed.PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = 0.5
    _build(site, TOPICS)
    source = make_source(config={"sitemap_urls": [site.url("/sitemap.xml")]})
    first = _sync(source, site)
    assert first.counts["new"] == 10

    for topic in TOPICS[:3]:
        site.pages[f"/{topic}/"].delay = 1.0  # past the timeout: a bad network day
    bad = _sync(source, site)

    assert bad.counts.get("failed") == {"timeout": 3}, bad.counts
    assert bad.counts.get("retired", 0) == 0
    assert SourcePage.objects.filter(source=source, document__isnull=False).count() == 10
