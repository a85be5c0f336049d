"""Fixtures of the website kind's tests: the local site, a resolver mapping the test names to its
address (this machine has no DNS), the allow-list naming 127.0.0.1, and kinds closed after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from sources.website import WebsiteKind
from tests.sources.website.site import HOST, TestSite

NAMES = {HOST: "127.0.0.1", "www.docs.example.test": "127.0.0.1", "other.example.test": "127.0.0.1"}


def resolver(names: dict[str, str] | None = None) -> Callable[[str, int], Sequence[str]]:
    table = {**NAMES, **(names or {})}

    def resolve(host: str, port: int) -> Sequence[str]:
        if host not in table:
            raise OSError(f"no such host: {host}")
        return [table[host]]

    return resolve


@pytest.fixture
def site() -> Iterator[TestSite]:
    running = TestSite().start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def allowed(settings: Any) -> Any:
    """The local site's address allow-listed, and short waits."""
    settings.PARLEY_SOURCES_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    settings.PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = 2.0
    settings.PARLEY_SOURCES_RETRY_AFTER_MAX_SECONDS = 2.0
    settings.PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS = 1.0
    return settings


@pytest.fixture
def make_kind() -> Iterator[Callable[..., WebsiteKind]]:
    made: list[WebsiteKind] = []

    def make(config: dict[str, Any], names: dict[str, str] | None = None) -> WebsiteKind:
        kind = WebsiteKind(config, resolver=resolver(names))
        made.append(kind)
        return kind

    yield make
    for kind in made:
        kind.close()
