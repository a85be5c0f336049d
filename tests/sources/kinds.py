"""A kind of source over the tests' own data: a dict of pages the test edits between syncs. It
implements the interface (discover, fetch with validators) for real; the engine cannot tell it from
a website, so every sync rule is exercised without a network."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from sources.kinds.base import (
    Discovery,
    Fetched,
    Location,
    Outcome,
    Validators,
    Via,
)


@dataclass
class Page:
    text: str
    title: str = ""
    links: tuple[str, ...] = ()
    # A fetch outcome other than a page: "gone", "timeout", "soft_404"...
    fault: str = ""
    canonical: str = ""


@dataclass
class PagesKind:
    pages: dict[str, Page]
    listed: bool = True  # the listing (a sitemap of every page) is complete
    fetches: list[str] = field(default_factory=list)
    before_fetch: Callable[[str], None] | None = None  # a test's hook: crash, search, edit

    def discover(self) -> Discovery:
        via = Via.SITEMAP if self.listed else Via.START
        urls = [url for url, page in self.pages.items() if page.fault != "unlisted"]
        return Discovery(
            locations=tuple(Location(url=url, via=via) for url in urls),
            listing_complete=self.listed,
        )

    def fetch(self, location: Location, validators: Validators) -> Fetched:
        if self.before_fetch is not None:
            self.before_fetch(location.url)
        self.fetches.append(location.url)
        page = self.pages.get(location.url)
        if page is None or page.fault == "gone":
            return Fetched(location=location, outcome=Outcome.GONE, url=location.url, status=404)
        if page.fault in ("timeout", "http_5xx", "dns", "refused"):
            return Fetched(location=location, outcome=Outcome.FAILED, reason=page.fault)
        if page.fault:
            return Fetched(location=location, outcome=Outcome.SKIPPED, reason=page.fault)
        etag = hashlib.sha256(page.text.encode()).hexdigest()[:16]
        if validators.etag == etag:
            return Fetched(
                location=location,
                outcome=Outcome.NOT_MODIFIED,
                url=location.url,
                status=304,
                validators=validators,
            )
        return Fetched(
            location=location,
            outcome=Outcome.FETCHED,
            url=page.canonical or location.url,
            status=200,
            content=page.text.encode(),
            filename="page.md",
            content_type="text/markdown",
            title=page.title,
            text=page.text,
            validators=Validators(etag=etag),
            links=tuple(Location(url=link, via=Via.LINK) for link in page.links),
        )

    def close(self) -> None:
        return None
