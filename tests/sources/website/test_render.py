"""render_javascript: a page that builds its content in JavaScript is rendered in Chromium, each of the
page's own requests answered through the checked client (a request to a private address is refused),
and the browser closed with the kind."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest

from sources.kinds.base import Location, Outcome, Validators
from sources.website import WebsiteKind
from tests.sources.website.site import Page, TestSite

Make = Callable[..., WebsiteKind]

SHELL = b"""<!doctype html><html><head><title>Acme Help</title></head><body><div id="root"></div>
<script src="/app.js"></script></body></html>"""
APP = b"""
fetch('/api/article.json').then(r => r.json()).then(article => {
  document.getElementById('root').innerHTML = '<main><h1>' + article.title + '</h1><p>' + article.body + '</p></main>';
  fetch('http://metadata.example.test/latest/meta-data/').catch(() => {});
});
"""
ARTICLE = (
    b'{"title": "Resetting your router", "body": "'
    + b" ".join(
        b"Hold the reset button for ten seconds, step %d, until the light blinks twice." % n
        for n in range(8)
    )
    + b'"}'
)


def test_a_page_built_by_javascript_is_rendered_and_its_requests_checked(
    site: TestSite, allowed: Any, make_kind: Make, caplog: pytest.LogCaptureFixture
) -> None:
    site.pages["/help/router/"] = Page(body=SHELL)
    site.pages["/app.js"] = Page(body=APP, content_type="application/javascript")
    site.pages["/api/article.json"] = Page(body=ARTICLE, content_type="application/json")
    names = {"metadata.example.test": "169.254.169.254"}

    unrendered = make_kind({"start_urls": [site.url("/")]}).fetch(
        Location(url=site.url("/help/router/")), Validators()
    )
    kind = make_kind({"start_urls": [site.url("/")], "render_javascript": True}, names)
    with caplog.at_level(logging.INFO, logger="sources.website.render"):
        rendered = kind.fetch(Location(url=site.url("/help/router/")), Validators())

    assert (unrendered.outcome, unrendered.reason) == (Outcome.SKIPPED, "empty_shell")
    assert rendered.outcome is Outcome.FETCHED, rendered.reason
    assert rendered.title == "Resetting your router"  # its own heading, not the app's <title>
    assert "Hold the reset button for ten seconds" in rendered.text
    assert b"Resetting your router" in rendered.content
    assert (
        site.paths().count("/help/router/") == 2
    )  # once by each kind: the render reuses the fetch
    assert "/api/article.json" in site.paths()
    assert "http://metadata.example.test/latest/meta-data/ refused (address_refused)" in caplog.text
    kind.close()
    assert not any(
        thread.name == "parley-source-render" and thread.is_alive()
        for thread in threading.enumerate()
    )
