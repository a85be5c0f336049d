"""The website kind of source: discover (start URLs, sitemaps, robots.txt's sitemaps) and fetch one page
(redirects and meta refresh followed by hand, robots.txt, conditional GET, Retry-After, limits, what is
not knowledge), every request through the checked client. Safe to call from several threads."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from sources.kinds.base import Discovery, Fetched, Location, Outcome, Validators, Via
from sources.website.addresses import AddressPolicy, Resolver, system_resolver
from sources.website.client import FetchFailed, RawResponse, SafeClient
from sources.website.config import WebsiteConfig, website_config_validate
from sources.website.files import file_fetched
from sources.website.html import PageFacts, html_decode, page_extract, page_facts
from sources.website.judgement import NotFoundPage, fingerprint, page_judge
from sources.website.responses import (
    HTML_TYPES,
    media_type,
    response_validators,
    retry_after_seconds,
    status_outcome,
)
from sources.website.robots import RobotsCache
from sources.website.urls import (
    path_allowed,
    same_site,
    url_filename,
    url_is_document_candidate,
    url_normalise,
)

logger = logging.getLogger(__name__)

MAX_REDIRECTS = 10
RATE_LIMIT_ATTEMPTS = 3


class WebsiteKind:
    """A website source, built from its stored configuration (see `WebsiteConfig`)."""

    def __init__(
        self, config: Mapping[str, Any] | WebsiteConfig, *, resolver: Resolver | None = None
    ) -> None:
        self.config = (
            config if isinstance(config, WebsiteConfig) else website_config_validate(config)
        )
        self.client = SafeClient(
            resolver=resolver or system_resolver,
            policy=AddressPolicy.from_entries(settings.PARLEY_SOURCES_ALLOWED_NETWORKS),
            user_agent=settings.PARLEY_SOURCES_USER_AGENT,
            timeout=float(settings.PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS),
            own_hosts=self.config.hosts,
            credentials=self.config.credentials,
        )
        self.robots = RobotsCache(
            client=self.client,
            crawl_delay_max=float(settings.PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS),
        )
        self.retry_after_max = float(settings.PARLEY_SOURCES_RETRY_AFTER_MAX_SECONDS)
        self.page_limit = self.config.page_bytes_limit()
        self._probe_lock = threading.Lock()
        self._not_found: dict[str, NotFoundPage | None] = {}
        self._renderer: Any = None
        if self.config.render_javascript:
            from sources.website.render import Renderer

            self._renderer = Renderer(client=self.client, limit=self.page_limit)

    # -- the interface ------------------------------------------------------------------------

    def discover(self) -> Discovery:
        from sources.website.discovery import website_discover

        return website_discover(kind=self)

    def fetch(self, location: Location, validators: Validators) -> Fetched:
        try:
            return self._fetch(location, validators)
        except FetchFailed as exc:
            # address_refused too: a name that moved to a private address (or an allow-list narrowed)
            # must never delete a page's knowledge, as a skip would.
            return Fetched(
                location=location, outcome=Outcome.FAILED, url=location.url, reason=exc.code
            )
        except Exception:  # a page that breaks a parser must not break the sync
            logger.exception("website source: fetching %s failed unexpectedly", location.url)
            return Fetched(
                location=location, outcome=Outcome.FAILED, url=location.url, reason="error"
            )

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
        self.client.close()

    # -- helpers the discovery shares ---------------------------------------------------------

    def url_wanted(self, url: str) -> bool:
        return same_site(url, self.config.hosts) and path_allowed(
            url, include=self.config.include_patterns, exclude=self.config.exclude_patterns
        )

    # -- one location -------------------------------------------------------------------------

    def _result(
        self, location: Location, outcome: Outcome, url: str, reason: str = "", **fields: Any
    ) -> Fetched:
        return Fetched(location=location, outcome=outcome, url=url, reason=reason, **fields)

    def _fetch(self, location: Location, validators: Validators) -> Fetched:
        url = url_normalise(location.url)
        if url is None:
            return self._result(location, Outcome.SKIPPED, location.url, "not_http")
        seen: list[str] = []
        while True:
            if url in seen:
                return self._result(location, Outcome.FAILED, url, "redirect_loop")
            if len(seen) > MAX_REDIRECTS:
                return self._result(location, Outcome.FAILED, url, "too_many_redirects")
            if seen and not same_site(url, self.config.hosts):
                return self._result(location, Outcome.SKIPPED, url, "off_site_redirect")
            refused = self._robots_refusal(url)
            if refused is not None:
                return self._result(location, refused[0], url, refused[1])
            response = self._get(url, validators if not seen else Validators())
            seen.append(url)
            status = response.status
            target = response.headers.get("location")
            if status in (301, 302, 303, 307, 308) and target:
                next_url = url_normalise(target, base=url)
                if next_url is None:
                    return self._result(location, Outcome.SKIPPED, url, "not_http", status=status)
                url = next_url
                continue
            outcome = status_outcome(
                location=location, url=url, response=response, validators=validators
            )
            if outcome is not None:
                return outcome
            media = media_type(response)
            if media not in HTML_TYPES:
                return file_fetched(location=location, url=url, response=response, media=media)
            html = html_decode(response.body, response.headers.get("content-type", ""))
            facts = page_facts(html, url)
            refresh = url_normalise(facts.refresh_to) if facts.refresh_to else None
            if refresh is not None and refresh != url:
                url = refresh  # a redirect stub: followed before any rendering
                continue
            if self._renderer is not None:
                html = self._renderer.render(url=url, html=html)
                facts = page_facts(html, url)
            return self._page(location, url, response, html, facts)

    def _robots_refusal(self, url: str) -> tuple[Outcome, str] | None:
        robots = self.robots.for_url(url)
        if robots.error:
            return Outcome.FAILED, robots.error
        if not robots.allowed(url, self.robots.token()):
            return Outcome.SKIPPED, "robots"
        return None

    def _get(self, url: str, validators: Validators) -> RawResponse:
        """GET with the validators, waiting out a 429's Retry-After while it stays under the bound."""
        headers = {}
        if validators.etag:
            headers["If-None-Match"] = validators.etag
        if validators.last_modified:
            headers["If-Modified-Since"] = validators.last_modified
        response = self.client.get(url, limit=self.page_limit, headers=headers)
        for _ in range(RATE_LIMIT_ATTEMPTS - 1):
            if response.status != 429:
                break
            wait = retry_after_seconds(response.headers.get("retry-after"))
            wait = 1.0 if wait is None else wait
            if wait > self.retry_after_max:
                break
            self.client.gate.pause(
                urlsplit(url).netloc, wait
            )  # the whole host waits, not this page only
            response = self.client.get(url, limit=self.page_limit, headers=headers)
        return response

    def _page(
        self, location: Location, url: str, response: RawResponse, html: str, facts: PageFacts
    ) -> Fetched:
        if facts.noindex:
            return self._result(location, Outcome.SKIPPED, url, "noindex", status=response.status)
        canonical = url_normalise(facts.canonical) if facts.canonical else None
        key = (
            canonical if canonical is not None and same_site(canonical, self.config.hosts) else url
        )
        filename = url_filename(key, ".html")
        extracted = page_extract(html, key, filename)
        verdict = page_judge(
            text=extracted.text,
            title_candidates=(extracted.heading, extracted.own_title),
            password_fields=facts.password_fields,
            min_words=self.config.min_text_words,
            not_found=self._not_found_page(url),
        )
        if verdict.reason:
            return self._result(
                location,
                Outcome.SKIPPED,
                key,
                verdict.reason,
                status=response.status,
                title=extracted.title,
            )
        links = () if facts.nofollow else self._links(facts.links, location, key)
        return Fetched(
            location=location,
            outcome=Outcome.FETCHED,
            url=key,
            status=response.status,
            content=html.encode("utf-8"),
            filename=filename,
            content_type="text/html; charset=utf-8",
            title=extracted.title,
            text=extracted.text,
            validators=response_validators(response),
            links=links,
        )

    def _links(self, hrefs: tuple[str, ...], location: Location, key: str) -> tuple[Location, ...]:
        depth = location.depth + 1
        if depth > self.config.max_depth:
            return ()
        found: dict[str, Location] = {}
        for href in hrefs:
            url = url_normalise(href)
            if url is None or url == key or url in found:
                continue
            if self.url_wanted(url) and url_is_document_candidate(url):
                found[url] = Location(url=url, depth=depth, via=Via.LINK)
        return tuple(found.values())

    def _not_found_page(self, url: str) -> NotFoundPage | None:
        """What this host serves at a made-up URL (its text fingerprint and heading), fetched once per host."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        with self._probe_lock:
            if origin not in self._not_found:
                self._not_found[origin] = self._probe(f"{origin}/{uuid.uuid4().hex}-parley-probe")
            return self._not_found[origin]

    def _probe(self, url: str) -> NotFoundPage | None:
        if not self.robots.for_url(url).allowed(url, self.robots.token()):
            return None
        try:
            response = self.client.get(url, limit=self.page_limit)
        except FetchFailed:
            return None
        if (
            300 <= response.status < 400
            or response.truncated
            or media_type(response) not in HTML_TYPES
        ):
            return None  # a not-found page that redirects (to the home page, say) is no template to compare
        html = html_decode(response.body, response.headers.get("content-type", ""))
        if self._renderer is not None:
            html = self._renderer.render(url=url, html=html)
        extracted = page_extract(html, url, "probe.html")
        printed = fingerprint(extracted.text)
        titles = (extracted.heading, extracted.own_title)
        return NotFoundPage(print=printed, titles=titles) if printed else None


def website_kind(
    *, config: Mapping[str, Any], credentials: Mapping[str, Any], resolver: Resolver | None = None
) -> WebsiteKind:
    """The kind the sync engine builds (`sources.kinds.kind_build`): the stored configuration, and the
    credentials kept apart from it (header_name/header_value or username/password; blank: none)."""
    given = {key: value for key, value in credentials.items() if value}
    merged = {**config, "credentials": given} if given else dict(config)
    return WebsiteKind(merged, resolver=resolver)
