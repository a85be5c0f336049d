"""The one interface every kind of source implements: discover its pages, fetch one page with what the
last sync remembered of it. The sync engine (`sources.sync`) owns the frontier, the comparison with the
stored pages, ingestion and retirement, so a new kind (Confluence, Notion, Drive) adds a module here
and touches neither the engine nor ingestion."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


class Via(enum.StrEnum):
    """How a location became known; a sitemap's listing counts when deciding that a page is gone."""

    START = "start"
    SITEMAP = "sitemap"
    LINK = "link"
    FILE = "file"  # a repository's file listing


@dataclass(frozen=True)
class Location:
    """One page or file to fetch. `url` is normalised (`normalise` of the kind): the key of its document."""

    url: str
    depth: int = 0
    via: Via = Via.START


@dataclass(frozen=True)
class Discovery:
    """What a kind knows before fetching: its seeds, and whether its listing (sitemaps, a repository's
    tree) was read whole. A page absent from a complete listing and from a clean crawl is gone."""

    locations: tuple[Location, ...]
    listing_complete: bool
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class Validators:
    """What the server said of the stored copy, sent back as If-None-Match / If-Modified-Since."""

    etag: str = ""
    last_modified: str = ""


class Outcome(enum.StrEnum):
    FETCHED = "fetched"  # content to compare and perhaps ingest
    NOT_MODIFIED = "not_modified"  # 304, or the repository's blob is unchanged
    GONE = "gone"  # 404 or 410: demonstrably absent (retired after two syncs in a row)
    FAILED = "failed"  # timeout, 5xx, DNS, refused, 429 past its wait: never retires a page
    SKIPPED = (
        "skipped"  # not knowledge, or not allowed: recorded with its reason, stored as no document
    )


@dataclass(frozen=True)
class Fetched:
    """The result of fetching one location.

    `url` is the canonical URL after redirects, `rel=canonical` and meta refresh (the key of the page);
    `content`/`filename`/`content_type` go to the existing parsers as an upload would; `text` is the
    extracted main text (boilerplate removed), what the engine hashes and compares across pages;
    `links` are new same-source locations found on the page (already normalised and filtered)."""

    location: Location
    outcome: Outcome
    url: str = ""
    status: int | None = None
    reason: str = ""  # a stable code for FAILED and SKIPPED: "timeout", "http_5xx", "soft_404", ...
    content: bytes = b""
    filename: str = ""
    content_type: str = ""
    title: str = ""
    text: str = ""
    validators: Validators = field(default_factory=Validators)
    links: tuple[Location, ...] = ()
    retry_after_seconds: float | None = None


class SourceKind(Protocol):
    """A kind of source, built from the source's stored configuration (plain data, secrets included)."""

    def discover(self) -> Discovery:
        """The seeds and listings: start URLs, sitemaps (robots.txt's too), a repository's files."""
        ...

    def fetch(self, location: Location, validators: Validators) -> Fetched:
        """One location, conditionally where validators allow. Never raises for the network or the
        page's content: every such failure is a FAILED or SKIPPED outcome with its reason."""
        ...

    def close(self) -> None:
        """Release connections, browsers and checkouts."""
        ...


KindConfig = Mapping[str, Any]
