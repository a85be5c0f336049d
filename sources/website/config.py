"""A website source's configuration: plain data in, checked once, the API and the admin calling the
same validation (`website_config_validate`) that the kind runs when it is built."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from sources.errors import SourceError
from sources.website.urls import url_normalise

MAX_PAGES_LIMIT = 100_000
MAX_DEPTH_LIMIT = 50


class WebsiteConfigError(SourceError):
    """The configuration cannot be used as it is; `extra.field` names the field."""

    code = "website_config_invalid"


@dataclass(frozen=True)
class Credentials:
    """A header (name and value) or basic auth (user and password), sent to the source's own hosts only."""

    header_name: str = ""
    header_value: str = ""
    username: str = ""
    password: str = ""

    def __repr__(self) -> str:  # never the secret, in a log line or a traceback
        return f"Credentials(header_name={self.header_name!r}, username={self.username!r}, ...)"


@dataclass(frozen=True)
class WebsiteConfig:
    start_urls: tuple[str, ...] = ()
    sitemap_urls: tuple[str, ...] = ()
    include_patterns: tuple[str, ...] = ()  # glob patterns on the URL's path ("/docs/*")
    exclude_patterns: tuple[str, ...] = ()
    max_pages: int = 500
    max_depth: int = 5
    render_javascript: bool = False
    credentials: Credentials | None = None
    max_page_bytes: int = 0  # 0: PARLEY_SOURCES_MAX_PAGE_BYTES
    min_text_words: int = 20  # fewer words of main text: an empty shell

    @property
    def hosts(self) -> frozenset[str]:
        """The source's own hosts (host[:port]): the site, where links are followed and credentials go."""
        from urllib.parse import urlsplit

        return frozenset(urlsplit(url).netloc for url in (*self.start_urls, *self.sitemap_urls))

    def page_bytes_limit(self) -> int:
        limit = int(settings.PARLEY_SOURCES_MAX_PAGE_BYTES)
        return min(self.max_page_bytes, limit) if self.max_page_bytes > 0 else limit


def _invalid(field: str, message: str) -> WebsiteConfigError:
    return WebsiteConfigError(message, extra={"field": field})


def _strings(config: Mapping[str, Any], field: str) -> tuple[str, ...]:
    value = config.get(field) or ()
    if isinstance(value, str):
        value = [line for line in value.splitlines() if line.strip()]
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise _invalid(field, f"{field} must be a list of strings.")
    return tuple(item.strip() for item in value if item.strip())


def _urls(config: Mapping[str, Any], field: str) -> tuple[str, ...]:
    urls = []
    for url in _strings(config, field):
        normalised = url_normalise(url)
        if normalised is None:
            raise _invalid(
                field, f"{url!r} is not an http(s) URL: a website source fetches only those."
            )
        urls.append(normalised)
    return tuple(dict.fromkeys(urls))


def _integer(config: Mapping[str, Any], field: str, default: int, maximum: int) -> int:
    value = config.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise _invalid(field, f"{field} must be a whole number from 0 to {maximum}.")
    return value


def _credentials(value: Any) -> Credentials | None:
    if not value:
        return None
    if not isinstance(value, Mapping):
        raise _invalid("credentials", "credentials must be an object.")
    fields = {
        key: str(value.get(key) or "")
        for key in ("header_name", "header_value", "username", "password")
    }
    credentials = Credentials(**fields)
    if credentials.header_name and credentials.username:
        raise _invalid("credentials", "Give either a header or a user name and password, not both.")
    if credentials.header_name and (
        ":" in credentials.header_name or "\n" in credentials.header_value
    ):
        raise _invalid("credentials", "The header name or value is not a valid HTTP header.")
    if not credentials.header_name and not credentials.username:
        raise _invalid("credentials", "Credentials need a header name or a user name.")
    return credentials


def _patterns(config: Mapping[str, Any], field: str) -> tuple[str, ...]:
    patterns = _strings(config, field)
    for pattern in patterns:
        if not pattern.startswith(("/", "*")):
            raise _invalid(field, f"{pattern!r}: a path pattern starts with / or * (e.g. /docs/*).")
        fnmatch.translate(pattern)  # every string is a valid glob; this documents the syntax
    return patterns


def website_config_validate(config: Mapping[str, Any]) -> WebsiteConfig:
    """The checked configuration, or WebsiteConfigError naming the field (a start URL that is not
    http(s), no URL at all, an unknown field, a bad number or pattern, half credentials)."""
    known = {field for field in WebsiteConfig.__dataclass_fields__}
    unknown = sorted(set(config) - known)
    if unknown:
        raise _invalid(unknown[0], f"Unknown website source settings: {', '.join(unknown)}.")
    start_urls = _urls(config, "start_urls")
    sitemap_urls = _urls(config, "sitemap_urls")
    if not start_urls and not sitemap_urls:
        raise _invalid("start_urls", "Give at least one start URL or sitemap URL.")
    render = config.get("render_javascript", False)
    if not isinstance(render, bool):
        raise _invalid("render_javascript", "render_javascript must be true or false.")
    return WebsiteConfig(
        start_urls=start_urls,
        sitemap_urls=sitemap_urls,
        include_patterns=_patterns(config, "include_patterns"),
        exclude_patterns=_patterns(config, "exclude_patterns"),
        max_pages=max(1, _integer(config, "max_pages", 500, MAX_PAGES_LIMIT)),
        max_depth=_integer(config, "max_depth", 5, MAX_DEPTH_LIMIT),
        render_javascript=render,
        credentials=_credentials(config.get("credentials")),
        max_page_bytes=_integer(config, "max_page_bytes", 0, 2**40),
        min_text_words=_integer(config, "min_text_words", 20, 10_000),
    )
