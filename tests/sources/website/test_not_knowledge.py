"""Pages that answer 200 but are not knowledge (soft 404s, login walls, empty shells, noindex) are skipped
with their reason; real pages of one template each keep their own title."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sources.kinds.base import Location, Outcome, Validators
from sources.website import WebsiteKind
from tests.sources.website.site import Page, TestSite, html, prose

Make = Callable[..., WebsiteKind]


def _fetch(kind: WebsiteKind, url: str) -> Any:
    return kind.fetch(Location(url=url), Validators())


def test_a_soft_404_is_recognised_by_what_a_made_up_url_gets(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    # The site answers every unknown path with 200 and a long, branded page that names no "404".
    sorry = html(
        "Acme",
        "<h2>Sorry!</h2><p>We looked everywhere for {path} but this address leads nowhere. "
        "Try the search box, browse the categories or write to support; our team answers within a day, "
        "and the catalogue has thousands of products in every colour and size you could want.</p>",
    )
    site.not_found = Page(status=200, body=sorry)
    site.pages["/real/"] = Page(body=html("Acme", "<h1>Returns</h1>" + prose("returns")))
    kind = make_kind({"start_urls": [site.url("/")]})

    gone = _fetch(kind, site.url("/old-product/"))
    real = _fetch(kind, site.url("/real/"))

    assert (gone.outcome, gone.reason) == (Outcome.SKIPPED, "soft_404")
    assert real.outcome is Outcome.FETCHED
    assert sum("parley-probe" in path for path in site.paths()) == 1  # one probe per host


@pytest.mark.parametrize(
    "heading",
    [
        "Page not found",
        "Oops! 404",
        "Page introuvable",
        "Seite nicht gefunden",
        "Página no encontrada",
        "ページが見つかりません",
    ],
)
def test_a_short_page_titled_not_found_is_a_soft_404(
    site: TestSite, allowed: Any, make_kind: Make, heading: str
) -> None:
    site.pages["/missing/"] = Page(
        body=html(
            "Docs",
            f"<h1>{heading}</h1><p>The page you asked for has moved or never existed here. Go back home.</p>",
        )
    )
    fetched = _fetch(make_kind({"start_urls": [site.url("/")]}), site.url("/missing/"))
    assert (fetched.outcome, fetched.reason) == (Outcome.SKIPPED, "soft_404")


def test_a_long_article_about_404_errors_is_knowledge(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/kb/404/"] = Page(
        body=html("KB", "<h1>Fixing 404 Not Found errors</h1>" + prose("the 404 handler", 20))
    )
    fetched = _fetch(make_kind({"start_urls": [site.url("/")]}), site.url("/kb/404/"))
    assert fetched.outcome is Outcome.FETCHED


def test_a_login_wall_is_skipped(site: TestSite, allowed: Any, make_kind: Make) -> None:
    form = (
        "<h1>Sign in</h1><form method='post'><label>E-mail <input name='email'></label>"
        "<label>Password <input type='password' name='pw'></label><button>Sign in</button></form>"
        "<p>Forgot your password? Create an account to read our member knowledge base.</p>"
    )
    site.pages["/members/"] = Page(body=html("Members", form))
    fetched = _fetch(make_kind({"start_urls": [site.url("/")]}), site.url("/members/"))
    assert (fetched.outcome, fetched.reason) == (Outcome.SKIPPED, "login_wall")


def test_an_app_shell_without_rendering_is_an_empty_shell(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    shell = (
        b"<!doctype html><html><head><title>Acme Help</title><script src='/app.js'></script></head><body>"
        b"<noscript>You need to enable JavaScript to run this app.</noscript><div id='root'></div></body></html>"
    )
    site.pages["/app/"] = Page(body=shell)
    fetched = _fetch(make_kind({"start_urls": [site.url("/")]}), site.url("/app/"))
    assert (fetched.outcome, fetched.reason) == (Outcome.SKIPPED, "empty_shell")


def test_noindex_pages_are_skipped_and_nofollow_pages_give_no_links(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/draft/"] = Page(
        body=html(
            "D", "<h1>Draft</h1>" + prose("draft"), head="<meta name='robots' content='noindex'>"
        )
    )
    site.pages["/index/"] = Page(
        body=html(
            "I",
            "<h1>Index</h1>" + prose("index") + "<a href='/x/'>x</a>",
            head="<meta name='robots' content='nofollow'>",
        )
    )
    kind = make_kind({"start_urls": [site.url("/")]})
    assert _fetch(kind, site.url("/draft/")).reason == "noindex"
    followed = _fetch(kind, site.url("/index/"))
    assert followed.outcome is Outcome.FETCHED and followed.links == ()


def test_pages_of_one_template_each_get_their_own_title(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    for slug, heading in (("billing", "Billing questions"), ("shipping", "Shipping times")):
        site.pages[f"/{slug}/"] = Page(
            body=html("Acme Help Center", f"<h1>{heading}</h1>" + prose(slug))
        )
    site.pages["/release-notes/"] = Page(
        body=b"<html><body><main>" + prose("untitled notes").encode() + b"</main></body></html>"
    )
    kind = make_kind({"start_urls": [site.url("/")]})
    titles = [
        _fetch(kind, site.url(f"/{slug}/")).title
        for slug in ("billing", "shipping", "release-notes")
    ]
    assert titles == [
        "Billing questions",
        "Shipping times",
        "release notes",
    ]  # heading, heading, then the URL


def test_links_respect_depth_and_patterns(site: TestSite, allowed: Any, make_kind: Make) -> None:
    site.pages["/docs/"] = Page(
        body=html(
            "D",
            "<h1>Docs</h1>" + prose("docs") + "<a href='/docs/a/'>a</a><a href='/blog/b/'>b</a>",
        )
    )
    kind = make_kind(
        {"start_urls": [site.url("/docs/")], "include_patterns": ["/docs/*"], "max_depth": 1}
    )
    top = kind.fetch(Location(url=site.url("/docs/")), Validators())
    assert [link.url for link in top.links] == [site.url("/docs/a/")]
    deep = kind.fetch(Location(url=site.url("/docs/"), depth=1), Validators())
    assert deep.links == ()


def test_a_page_with_nothing_but_the_site_template_is_empty_and_the_not_found_page_a_soft_404(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    # A documentation theme: a long navigation on every page. A page with no text of its own makes the
    # extractor fall back to that navigation, which is also all the not-found page has.
    nav = (
        "<ul>"
        + "".join(f"<li><a href='/s{n}/'>Section {n} of the manual</a></li>" for n in range(60))
        + "</ul>"
    )
    not_found = html("Manual", "<h1>404 - Not found</h1>", nav=nav)
    site.not_found = Page(status=404, body=not_found)
    site.pages["/404.html"] = Page(body=not_found)  # the error page itself, served as a file
    site.pages["/abbreviations/"] = Page(
        body=html("Abbreviations - Manual", "<h1>Abbreviations</h1>", nav=nav)
    )
    site.pages["/guide/"] = Page(
        body=html("Guide - Manual", "<h1>Guide</h1>" + prose("the guide"), nav=nav)
    )
    kind = make_kind({"start_urls": [site.url("/")]})

    results = {
        path: _fetch(kind, site.url(path)) for path in ("/404.html", "/abbreviations/", "/guide/")
    }

    assert (results["/404.html"].outcome, results["/404.html"].reason) == (
        Outcome.SKIPPED,
        "soft_404",
    )
    assert (results["/abbreviations/"].outcome, results["/abbreviations/"].reason) == (
        Outcome.SKIPPED,
        "empty_shell",
    )
    assert results["/guide/"].outcome is Outcome.FETCHED
