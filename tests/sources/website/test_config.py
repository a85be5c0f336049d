"""A website source's configuration and URLs: non-http start URLs and bad fields refused clearly (the
function the API and admin call), and URL normalisation."""

from __future__ import annotations

import pytest

from core.errors import ParleyError
from sources.website import WebsiteConfigError, WebsiteKind, website_config_validate
from sources.website.urls import url_normalise


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"start_urls": ["ftp://docs.example.com/"]}, "start_urls"),
        ({"start_urls": ["file:///etc/passwd"]}, "start_urls"),
        ({"start_urls": ["javascript:alert(1)"]}, "start_urls"),
        ({"sitemap_urls": ["gopher://x/"]}, "sitemap_urls"),
        ({}, "start_urls"),
        ({"start_urls": ["https://a.example/"], "max_pages": -1}, "max_pages"),
        ({"start_urls": ["https://a.example/"], "max_depth": "3"}, "max_depth"),
        (
            {"start_urls": ["https://a.example/"], "include_patterns": ["docs/*"]},
            "include_patterns",
        ),
        ({"start_urls": ["https://a.example/"], "render_javascript": "yes"}, "render_javascript"),
        (
            {"start_urls": ["https://a.example/"], "credentials": {"header_value": "x"}},
            "credentials",
        ),
        ({"start_urls": ["https://a.example/"], "follow_everything": True}, "follow_everything"),
    ],
)
def test_bad_configurations_are_refused_naming_the_field(
    config: dict[str, object], field: str
) -> None:
    with pytest.raises(WebsiteConfigError) as raised:
        website_config_validate(config)
    assert raised.value.extra["field"] == field
    assert isinstance(raised.value, ParleyError) and raised.value.code == "website_config_invalid"
    with pytest.raises(WebsiteConfigError):
        WebsiteKind(config)


def test_a_good_configuration_is_normalised() -> None:
    config = website_config_validate(
        {
            "start_urls": [
                "HTTPS://Docs.Example.com:443/Guide/#top",
                "https://docs.example.com/Guide/",
            ],
            "include_patterns": "/Guide/*\n/faq/*",
            "credentials": {"username": "u", "password": "p"},
        }
    )
    assert config.start_urls == ("https://docs.example.com/Guide/",)
    assert config.include_patterns == ("/Guide/*", "/faq/*")
    assert config.max_pages == 500 and config.render_javascript is False
    assert config.hosts == frozenset({"docs.example.com"})


@pytest.mark.parametrize(
    ("url", "normalised"),
    [
        (
            "HTTP://Docs.Example.TEST:80/a/b?z=1&utm_source=x&a=2#frag",
            "http://docs.example.test/a/b?a=2&z=1",
        ),
        (
            "https://docs.example.test:443/x?gclid=1&fbclid=2&mc_cid=3&id=7",
            "https://docs.example.test/x?id=7",
        ),
        ("https://docs.example.test:8443", "https://docs.example.test:8443/"),
        ("https://docs.example.test/a b/é", "https://docs.example.test/a%20b/%C3%A9"),
        ("https://docs.example.test/?b=2&a=1&a=0", "https://docs.example.test/?a=0&a=1&b=2"),
        ("mailto:someone@example.test", None),
        ("//cdn.example.test/x", None),
    ],
)
def test_urls_are_normalised(url: str, normalised: str | None) -> None:
    assert url_normalise(url) == normalised


def test_relative_links_resolve_against_the_page() -> None:
    assert (
        url_normalise("../c/?utm_medium=m", base="https://d.example/a/b/")
        == "https://d.example/a/c/"
    )


def test_the_engine_builds_the_kind_with_credentials_kept_apart() -> None:
    from sources.kinds import kind_build

    blank = {"header_name": "", "header_value": "", "username": "", "password": ""}
    config = {"start_urls": ["https://docs.example.com/"]}
    plain = kind_build(kind="website", config=config, credentials=blank)
    given = kind_build(
        kind="website",
        config=config,
        credentials={**blank, "header_name": "X-Key", "header_value": "k"},
    )
    try:
        assert isinstance(plain, WebsiteKind) and plain.config.credentials is None
        assert isinstance(given, WebsiteKind) and given.config.credentials is not None
        assert (given.config.credentials.header_name, given.config.credentials.header_value) == (
            "X-Key",
            "k",
        )
    finally:
        plain.close()
        given.close()
