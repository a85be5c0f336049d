"""A website's seeds: its start URLs, then every page its sitemaps list (the configured ones, robots.txt's
`Sitemap:` lines, else /sitemap.xml when it exists), same-site and within the patterns, cut at max_pages.
The listing is complete only when every sitemap was read whole and nothing was cut."""

from __future__ import annotations

from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

from sources.kinds.base import Discovery, Location, Via
from sources.website.client import SafeClient
from sources.website.config import WebsiteConfig
from sources.website.robots import RobotsCache
from sources.website.sitemaps import sitemap_read
from sources.website.urls import same_site, url_normalise


class WebsiteKind(Protocol):
    """What discovery reads of the website kind (sources.website.kind), named here so that the kind,
    which calls discovery, is not imported back."""

    config: WebsiteConfig
    client: SafeClient
    robots: RobotsCache

    def url_wanted(self, url: str) -> bool: ...


SITEMAPS_MAX = 1000  # sitemaps read in one discovery (an index of indexes included)
INDEX_DEPTH_MAX = 3


def _origins(kind: WebsiteKind) -> list[str]:
    urls = (*kind.config.start_urls, *kind.config.sitemap_urls)
    return list(dict.fromkeys(f"{urlsplit(url).scheme}://{urlsplit(url).netloc}" for url in urls))


def _sitemap_seeds(kind: WebsiteKind) -> tuple[list[str], list[str]]:
    """The sitemaps to read, and the guessed ones (/sitemap.xml: absent is no error)."""
    listed = list(kind.config.sitemap_urls)
    for origin in _origins(kind):
        robots = kind.robots.for_url(origin + "/")
        for sitemap in robots.sitemaps():
            url = url_normalise(sitemap)
            if url is not None and same_site(url, kind.config.hosts):
                listed.append(url)
    listed = list(dict.fromkeys(listed))
    if listed:
        return listed, []
    guessed = [
        urlunsplit((urlsplit(origin).scheme, urlsplit(origin).netloc, "/sitemap.xml", "", ""))
        for origin in dict.fromkeys(_origins(kind))
    ]
    return guessed, guessed


def website_discover(*, kind: WebsiteKind) -> Discovery:
    cap = kind.config.max_pages
    locations: dict[str, Location] = {}
    for url in kind.config.start_urls:
        locations.setdefault(url, Location(url=url, depth=0, via=Via.START))
    errors: list[str] = []
    complete = True
    listed = 0
    pending, guessed = _sitemap_seeds(kind)
    queue = [(url, 0) for url in pending]
    read: set[str] = set()
    while queue:
        sitemap_url, level = queue.pop(0)
        if sitemap_url in read:
            continue
        if len(read) >= SITEMAPS_MAX:
            errors.append(f"more than {SITEMAPS_MAX} sitemaps: the rest were not read")
            complete = False
            break
        read.add(sitemap_url)
        if not kind.robots.allowed(sitemap_url) and sitemap_url not in kind.config.sitemap_urls:
            continue
        sitemap = sitemap_read(kind.client, sitemap_url)
        if sitemap.error:
            if not (sitemap.missing and sitemap_url in guessed):
                errors.append(sitemap.error)
                complete = False
            continue
        for child in sitemap.sitemaps:
            child_url = url_normalise(child)
            if child_url is None or not same_site(child_url, kind.config.hosts):
                continue
            if level + 1 > INDEX_DEPTH_MAX:
                errors.append(f"sitemap {child_url}: nested deeper than {INDEX_DEPTH_MAX} indexes")
                complete = False
                continue
            queue.append((child_url, level + 1))
        for page in sitemap.urls:
            page_url = url_normalise(page)
            if page_url is None or not kind.url_wanted(page_url) or page_url in locations:
                continue
            listed += 1
            if len(locations) >= cap:
                continue
            locations[page_url] = Location(url=page_url, depth=0, via=Via.SITEMAP)
    kept = sum(1 for location in locations.values() if location.via is Via.SITEMAP)
    if kept < listed:
        errors.append(
            f"the sitemaps list {listed} pages of this site; only the first {kept} were kept"
            f" (max_pages is {cap})"
        )
        complete = False
    return Discovery(
        locations=tuple(locations.values()), listing_complete=complete, errors=tuple(errors)
    )
