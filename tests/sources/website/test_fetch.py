"""The website kind fetching one page from a real local site: outcomes by status, redirects and meta
refresh followed by hand, rel=canonical, conditional GET, links found, limits and encodings."""

from __future__ import annotations

import gzip
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sources.kinds.base import Location, Outcome, Validators, Via
from sources.website import WebsiteKind
from tests.sources.website.site import Page, TestSite, html, prose

Make = Callable[..., WebsiteKind]


def _kind(make_kind: Make, site: TestSite, **config: object) -> WebsiteKind:
    return make_kind({"start_urls": [site.url("/")], **config})


def _fetch(kind: WebsiteKind, url: str, validators: Validators | None = None):  # type: ignore[no-untyped-def]
    return kind.fetch(Location(url=url), validators or Validators())


def test_a_page_is_fetched_with_its_main_text_title_links_and_validators(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/guide/"] = Page(
        body=html(
            "Example Docs",
            "<h1>Installing the agent</h1>"
            + prose("installation")
            + "<a href='/guide/next/?utm_source=x#part'>Next</a> <a href='https://elsewhere.test/'>Out</a>"
            + "<a href='/manual.pdf'>PDF</a> <a href='/logo.png'>logo</a> <a href='mailto:a@b.c'>mail</a>",
        ),
        headers={"ETag": '"v1"', "Last-Modified": "Mon, 07 Dec 2026 10:00:00 GMT"},
    )
    kind = _kind(make_kind, site)

    fetched = _fetch(kind, site.url("/guide/"))

    assert fetched.outcome is Outcome.FETCHED, fetched.reason
    assert fetched.url == site.url("/guide/")
    assert fetched.title == "Installing the agent"  # the first heading, not the site-wide <title>
    assert "how installation works in step 3" in fetched.text
    assert (
        "Copyright Example" not in fetched.text and "Cookies" not in fetched.text
    )  # footer left out
    assert fetched.filename.endswith(".html") and fetched.content_type.startswith("text/html")
    assert fetched.validators.etag == '"v1"'
    assert fetched.validators.last_modified == "Mon, 07 Dec 2026 10:00:00 GMT"
    links = {link.url: link for link in fetched.links}
    assert set(links) == {
        site.url("/"),
        site.url("/about/"),
        site.url("/guide/next/"),
        site.url("/manual.pdf"),
    }
    assert all(link.via is Via.LINK and link.depth == 1 for link in links.values())
    user_agent = site.requests[-1].headers["User-Agent"]
    assert user_agent.startswith("Parley/")


def test_a_second_fetch_with_the_validators_is_not_modified(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/a/"] = Page(body=html("A", "<h1>A</h1>" + prose("a")), headers={"ETag": '"abc"'})
    kind = _kind(make_kind, site)
    first = _fetch(kind, site.url("/a/"))

    again = _fetch(kind, site.url("/a/"), first.validators)

    assert again.outcome is Outcome.NOT_MODIFIED and again.validators.etag == '"abc"'
    assert site.requests[-1].headers["If-None-Match"] == '"abc"'
    site.pages["/a/"] = Page(body=html("A", "<h1>A2</h1>" + prose("b")), headers={"ETag": '"def"'})
    changed = _fetch(kind, site.url("/a/"), first.validators)
    assert changed.outcome is Outcome.FETCHED and changed.validators.etag == '"def"'


@pytest.mark.parametrize(
    ("status", "outcome", "reason"),
    [
        (404, Outcome.GONE, ""),
        (410, Outcome.GONE, ""),
        (500, Outcome.FAILED, "http_5xx"),
        (503, Outcome.FAILED, "http_5xx"),
        (403, Outcome.FAILED, "http_4xx"),
    ],
)
def test_statuses_become_outcomes(
    site: TestSite, allowed: Any, make_kind: Make, status: int, outcome: Outcome, reason: str
) -> None:
    site.pages["/p/"] = Page(status=status, body=b"no")
    fetched = _fetch(_kind(make_kind, site), site.url("/p/"))
    assert (fetched.outcome, fetched.reason, fetched.status) == (outcome, reason, status)


def test_a_timeout_fails_the_page_and_a_refused_connection_too(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    allowed.PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = 0.3
    site.pages["/slow/"] = Page(body=html("S", prose("s")), delay=1.0)
    kind = _kind(make_kind, site)
    fetched = _fetch(kind, site.url("/slow/"))
    assert (fetched.outcome, fetched.reason) == (Outcome.FAILED, "timeout")

    closed = TestSite()
    port = closed.port
    closed.server.server_close()  # bound once, now nothing listens there
    kind = make_kind({"start_urls": [f"http://docs.example.test:{port}/"]})
    refused = _fetch(kind, f"http://docs.example.test:{port}/x/")
    assert (refused.outcome, refused.reason) == (Outcome.FAILED, "refused")


def test_an_unknown_host_is_a_dns_failure(site: TestSite, allowed: Any, make_kind: Make) -> None:
    kind = make_kind({"start_urls": ["http://nowhere.example.test/"]})
    fetched = _fetch(kind, "http://nowhere.example.test/")
    assert (fetched.outcome, fetched.reason) == (Outcome.FAILED, "dns")


def test_redirects_and_meta_refresh_are_followed_to_the_canonical_page(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/"] = Page(
        body=b'<html><head><meta http-equiv="refresh" content="0; url=/en/"></head></html>'
    )
    site.pages["/en/"] = Page(status=301, headers={"Location": "/en/home/"})
    site.pages["/en/home/"] = Page(
        body=html(
            "Home", "<h1>Welcome</h1>" + prose("welcome"), head="<link rel='canonical' href='/en/'>"
        ),
    )
    kind = _kind(make_kind, site)

    fetched = _fetch(kind, site.url("/"))

    assert fetched.outcome is Outcome.FETCHED
    assert fetched.url == site.url("/en/")  # rel=canonical names the page's key
    assert "welcome works" in fetched.text


def test_a_canonical_on_another_site_is_ignored(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/copy/"] = Page(
        body=html(
            "C",
            "<h1>C</h1>" + prose("copy"),
            head="<link rel='canonical' href='https://origin.test/x'>",
        )
    )
    fetched = _fetch(_kind(make_kind, site), site.url("/copy/"))
    assert fetched.url == site.url("/copy/")


def test_a_redirect_loop_and_an_endless_chain_fail(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/a"] = Page(status=302, headers={"Location": "/b"})
    site.pages["/b"] = Page(status=302, headers={"Location": "/a"})
    for n in range(20):
        site.pages[f"/chain/{n}"] = Page(status=301, headers={"Location": f"/chain/{n + 1}"})
    kind = _kind(make_kind, site)

    assert _fetch(kind, site.url("/a")).reason == "redirect_loop"
    chain = _fetch(kind, site.url("/chain/0"))
    assert (chain.outcome, chain.reason) == (Outcome.FAILED, "too_many_redirects")
    assert sum(path.startswith("/chain/") for path in site.paths()) == 11


def test_a_redirect_off_the_site_is_skipped(site: TestSite, allowed: Any, make_kind: Make) -> None:
    site.pages["/login-elsewhere"] = Page(
        status=302, headers={"Location": "https://sso.other.test/login"}
    )
    fetched = _fetch(_kind(make_kind, site), site.url("/login-elsewhere"))
    assert (fetched.outcome, fetched.reason) == (Outcome.SKIPPED, "off_site_redirect")


def test_a_50_mb_page_is_skipped_without_being_read_whole(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    allowed.PARLEY_SOURCES_MAX_PAGE_BYTES = 1024 * 1024
    allowed.PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = 10.0
    chunk = b"<p>" + b"x" * 65530 + b"</p>"

    def fifty_megabytes() -> Iterator[bytes]:
        for _ in range(50 * 16):
            yield chunk

    site.pages["/huge-streamed/"] = Page(body=fifty_megabytes, length=False)
    site.pages["/huge-declared/"] = Page(body=b"x" * (2 * 1024 * 1024))
    kind = _kind(make_kind, site)

    tracemalloc.start()
    try:
        streamed = _fetch(kind, site.url("/huge-streamed/"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    declared = _fetch(kind, site.url("/huge-declared/"))

    assert (streamed.outcome, streamed.reason, streamed.content) == (
        Outcome.SKIPPED,
        "too_large",
        b"",
    )
    assert peak < 16 * 1024 * 1024  # the limit's worth of chunks and buffers, never 50 MB
    assert (declared.outcome, declared.reason) == (Outcome.SKIPPED, "too_large")


def test_a_content_type_that_is_no_document_is_skipped(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/feed"] = Page(body=b"\x00\x01binary", content_type="application/zip")
    fetched = _fetch(_kind(make_kind, site), site.url("/feed"))
    assert (fetched.outcome, fetched.reason) == (Outcome.SKIPPED, "content_type")


def test_a_linked_pdf_comes_back_as_a_file_for_the_parsers(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    import io

    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer)
    pdf.drawString(72, 720, "The warranty covers the battery for two years after purchase.")
    pdf.save()
    site.pages["/files/warranty.pdf"] = Page(body=buffer.getvalue(), content_type="application/pdf")

    fetched = _fetch(_kind(make_kind, site), site.url("/files/warranty.pdf"))

    assert fetched.outcome is Outcome.FETCHED, fetched.reason
    assert (fetched.filename, fetched.content_type) == ("warranty.pdf", "application/pdf")
    assert fetched.content.startswith(b"%PDF") and "battery for two years" in fetched.text


@pytest.mark.parametrize(
    ("content_type", "declared", "exact"),
    [
        ("text/html; charset=iso-8859-1", "", True),  # declared rightly: read exactly
        ("text/html; charset=x-klingon", "", False),  # an unknown label in the header: guessed
        (
            "text/html",
            "<meta charset='utf-8'>",
            False,
        ),  # a page that lies: Latin-1 bytes declared UTF-8
        ("text/html", "", False),  # no label at all: guessed
    ],
)
def test_an_unknown_or_wrong_encoding_never_breaks_the_fetch(
    site: TestSite, allowed: Any, make_kind: Make, content_type: str, declared: str, exact: bool
) -> None:
    text = "<h1>Café crème</h1>" + prose("the crème brûlée recipe")
    body = f"<html><head>{declared}<title>t</title></head><body>{text}</body></html>".encode(
        "latin-1"
    )
    site.pages["/fr/"] = Page(body=body, content_type=content_type)

    fetched = _fetch(_kind(make_kind, site), site.url("/fr/"))

    assert fetched.outcome is Outcome.FETCHED, fetched.reason
    assert "recipe works in step 3" in fetched.text
    if exact:
        assert "crème brûlée" in fetched.text
    assert fetched.content.decode("utf-8")  # handed on as UTF-8 whatever it came as


def test_a_429_waits_as_retry_after_says_then_fails_past_the_bound(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    calls = iter(
        [
            Page(status=429, headers={"Retry-After": "1"}),
            Page(body=html("R", "<h1>R</h1>" + prose("r"))),
        ]
    )
    site.pages["/busy/"] = next(calls)
    kind = _kind(make_kind, site)
    kind.fetch(Location(url=site.url("/")), Validators())  # robots and the probe out of the way

    def recover() -> None:
        time.sleep(0.3)
        site.pages["/busy/"] = next(calls)

    import threading

    threading.Thread(target=recover).start()
    started = time.monotonic()
    fetched = _fetch(kind, site.url("/busy/"))
    assert fetched.outcome is Outcome.FETCHED
    assert time.monotonic() - started >= 0.9

    site.pages["/long/"] = Page(status=429, headers={"Retry-After": "120"})
    started = time.monotonic()
    refused = _fetch(kind, site.url("/long/"))
    assert (refused.outcome, refused.reason, refused.retry_after_seconds) == (
        Outcome.FAILED,
        "rate_limited",
        120.0,
    )
    assert time.monotonic() - started < 1.0


def test_a_gzip_body_is_read_and_counted_uncompressed(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    allowed.PARLEY_SOURCES_MAX_PAGE_BYTES = 64 * 1024
    bomb = gzip.compress(b"<p>" + b"a " * (5 * 1024 * 1024) + b"</p>")
    site.pages["/bomb/"] = Page(body=bomb, headers={"Content-Encoding": "gzip"})
    fetched = _fetch(_kind(make_kind, site), site.url("/bomb/"))
    assert (fetched.outcome, fetched.reason) == (Outcome.SKIPPED, "too_large")
