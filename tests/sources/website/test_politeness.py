"""A good citizen: robots.txt (everything forbidden, Crawl-delay, unreadable), a User-Agent naming Parley,
at most two requests in flight per host whatever the engine's threads, and credentials sent to the
source's own host only and never logged."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from sources.kinds.base import Location, Outcome, Validators
from sources.website import WebsiteKind
from tests.sources.website.site import Page, TestSite, html, prose

Make = Callable[..., WebsiteKind]


def _pages(site: TestSite, count: int, **page: Any) -> list[str]:
    for n in range(count):
        site.pages[f"/p/{n}/"] = Page(
            body=html(f"P{n}", f"<h1>Page {n}</h1>" + prose(f"topic {n}")), **page
        )
    return [site.url(f"/p/{n}/") for n in range(count)]


def test_robots_forbidding_everything_skips_every_page(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/robots.txt"] = Page(
        body=b"User-agent: *\nDisallow: /\n", content_type="text/plain"
    )
    urls = _pages(site, 3)
    kind = make_kind({"start_urls": [site.url("/")]})

    results = [kind.fetch(Location(url=url), Validators()) for url in urls]

    assert [(r.outcome, r.reason) for r in results] == [(Outcome.SKIPPED, "robots")] * 3
    assert all(not path.startswith("/p/") for path in site.paths())  # never requested
    assert kind.discover().locations  # discovery still answers


def test_robots_rules_for_parley_apply(site: TestSite, allowed: Any, make_kind: Make) -> None:
    site.pages["/robots.txt"] = Page(
        body=b"User-agent: Parley\nDisallow: /p/1/\n\nUser-agent: *\nDisallow: /\n",
        content_type="text/plain",
    )
    urls = _pages(site, 2)
    kind = make_kind({"start_urls": [site.url("/")]})
    assert kind.fetch(Location(url=urls[0]), Validators()).outcome is Outcome.FETCHED
    assert kind.fetch(Location(url=urls[1]), Validators()).reason == "robots"


def test_an_unreadable_robots_txt_fails_pages_rather_than_skipping_them(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/robots.txt"] = Page(status=503, body=b"down")
    urls = _pages(site, 1)
    kind = make_kind({"start_urls": [site.url("/")]})
    fetched = kind.fetch(Location(url=urls[0]), Validators())
    assert (fetched.outcome, fetched.reason) == (Outcome.FAILED, "robots_unavailable")
    site.pages["/robots.txt"] = Page(status=404)
    assert kind.fetch(Location(url=urls[0]), Validators()).outcome is Outcome.FETCHED  # read again


def test_crawl_delay_spaces_the_requests(site: TestSite, allowed: Any, make_kind: Make) -> None:
    site.pages["/robots.txt"] = Page(
        body=b"User-agent: *\nCrawl-delay: 0.3\n", content_type="text/plain"
    )
    urls = _pages(site, 4)
    kind = make_kind({"start_urls": [site.url("/")]})
    kind.fetch(Location(url=urls[0]), Validators())

    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda url: kind.fetch(Location(url=url), Validators()), urls[1:]))

    assert time.monotonic() - started >= 0.85  # three requests, each 0.3 s after the one before


def test_at_most_two_requests_in_flight_per_host(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    urls = _pages(site, 8, delay=0.15)
    kind = make_kind({"start_urls": [site.url("/")]})
    kind.fetch(
        Location(url=site.url("/")), Validators()
    )  # robots.txt and the not-found probe first
    site.max_in_flight = 0

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda url: kind.fetch(Location(url=url), Validators()), urls))

    assert all(result.outcome is Outcome.FETCHED for result in results)
    assert site.max_in_flight == 2


@pytest.mark.parametrize(
    ("credentials", "header", "value"),
    [
        (
            {"header_name": "X-Api-Key", "header_value": "s3cr3t-header"},
            "X-Api-Key",
            "s3cr3t-header",
        ),
        (
            {"username": "reader", "password": "s3cr3t-pass"},
            "Authorization",
            "Basic cmVhZGVyOnMzY3IzdC1wYXNz",
        ),
    ],
)
def test_credentials_go_to_the_own_host_only_and_are_never_logged(
    site: TestSite,
    allowed: Any,
    make_kind: Make,
    caplog: pytest.LogCaptureFixture,
    credentials: dict[str, str],
    header: str,
    value: str,
) -> None:
    site.pages["/private/"] = Page(
        status=302, headers={"Location": site.url("/landing/", host="www.docs.example.test")}
    )
    site.pages["/landing/"] = Page(body=html("L", "<h1>Landing</h1>" + prose("landing")))
    kind = make_kind({"start_urls": [site.url("/")], "credentials": credentials})

    with caplog.at_level(logging.DEBUG):
        fetched = kind.fetch(Location(url=site.url("/private/")), Validators())

    assert fetched.outcome is Outcome.FETCHED
    sent = {
        seen.headers.get("Host"): seen.headers
        for seen in site.requests
        if seen.path in ("/private/", "/landing/")
    }
    assert sent[f"docs.example.test:{site.port}"][header] == value
    assert (
        header not in sent[f"www.docs.example.test:{site.port}"]
    )  # the same site, but not the host given
    secret = value.split()[-1]
    assert secret not in caplog.text and "s3cr3t" not in caplog.text
    assert "s3cr3t" not in repr(kind.config)
