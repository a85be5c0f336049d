"""Discovery from a real local site: start URLs, sitemaps (an index, gzip-compressed, not XML, robots.txt's
Sitemap lines, /sitemap.xml when nothing names one), the patterns, and the max_pages cap said aloud."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from typing import Any

from sources.kinds.base import Via
from sources.website import WebsiteKind
from tests.sources.website.site import Page, TestSite

Make = Callable[..., WebsiteKind]


def _urlset(site: TestSite, paths: list[str]) -> bytes:
    entries = "".join(f"<url><loc>{site.url(path)}</loc></url>" for path in paths)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
    ).encode()


def test_a_sitemap_index_with_a_gzip_child_lists_the_site_pages(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    index = (
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{site.url('/sitemap-docs.xml.gz')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/sitemap-blog.xml')}</loc></sitemap>"
        "<sitemap><loc>https://cdn.elsewhere.test/sitemap.xml</loc></sitemap>"
        "</sitemapindex>"
    ).encode()
    site.pages["/robots.txt"] = Page(
        body=f"User-agent: *\nAllow: /\nSitemap: {site.url('/sitemap_index.xml')}\n".encode(),
        content_type="text/plain",
    )
    site.pages["/sitemap_index.xml"] = Page(body=index, content_type="application/xml")
    docs = _urlset(site, ["/docs/a/", "/docs/b/?utm_source=feed", "/private/x/"])
    site.pages["/sitemap-docs.xml.gz"] = Page(
        body=gzip.compress(docs), content_type="application/octet-stream"
    )
    site.pages["/sitemap-blog.xml"] = Page(
        body=_urlset(site, ["/blog/1/"]), content_type="text/xml"
    )
    kind = make_kind({"start_urls": [site.url("/")], "exclude_patterns": ["/private/*"]})

    discovery = kind.discover()

    by_url = {location.url: location for location in discovery.locations}
    assert set(by_url) == {
        site.url("/"),
        site.url("/docs/a/"),
        site.url("/docs/b/"),
        site.url("/blog/1/"),
    }
    assert by_url[site.url("/")].via is Via.START
    assert by_url[site.url("/docs/a/")].via is Via.SITEMAP
    assert discovery.listing_complete and discovery.errors == ()
    assert "/sitemap.xml" not in site.paths()  # robots.txt named the sitemap: no guess


def test_a_sitemap_that_is_not_xml_is_an_error_and_the_listing_incomplete(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/sitemap.xml"] = Page(body=b"<html><body>Oops, our CMS</body></html>")
    site.pages["/broken.xml"] = Page(
        body=b"this is not xml at all {", content_type="application/xml"
    )
    kind = make_kind(
        {
            "start_urls": [site.url("/")],
            "sitemap_urls": [site.url("/sitemap.xml"), site.url("/broken.xml")],
        }
    )

    discovery = kind.discover()

    assert not discovery.listing_complete
    assert len(discovery.errors) == 2
    assert "not a sitemap" in discovery.errors[0] and "not XML" in discovery.errors[1]
    assert [location.url for location in discovery.locations] == [site.url("/")]


def test_no_sitemap_anywhere_is_no_error(site: TestSite, allowed: Any, make_kind: Make) -> None:
    discovery = make_kind({"start_urls": [site.url("/")]}).discover()
    assert "/sitemap.xml" in site.paths()  # guessed once
    assert discovery.listing_complete and discovery.errors == ()


def test_ten_thousand_urls_are_cut_to_max_pages_and_it_says_so(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/sitemap.xml"] = Page(
        body=_urlset(site, [f"/p/{n}/" for n in range(10_000)]), content_type="application/xml"
    )
    kind = make_kind({"sitemap_urls": [site.url("/sitemap.xml")], "max_pages": 500})

    discovery = kind.discover()

    assert len(discovery.locations) == 500
    assert discovery.locations[0].url == site.url("/p/0/")
    assert not discovery.listing_complete
    assert any("10000 pages" in error and "first 500" in error for error in discovery.errors)


def test_include_patterns_keep_only_their_paths(
    site: TestSite, allowed: Any, make_kind: Make
) -> None:
    site.pages["/sitemap.xml"] = Page(
        body=_urlset(site, ["/docs/a/", "/shop/cart/", "/docs/old/x/"]), content_type="text/xml"
    )
    kind = make_kind(
        {
            "start_urls": [site.url("/docs/")],
            "include_patterns": ["/docs/*"],
            "exclude_patterns": ["/docs/old/*"],
        }
    )
    urls = {location.url for location in kind.discover().locations}
    assert urls == {site.url("/docs/"), site.url("/docs/a/")}
