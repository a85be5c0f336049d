"""No server-side request forgery: metadata, loopback and private addresses are refused on the address
actually resolved (a public-looking name too), after every redirect, and inside rendered pages' requests;
the allow-list is the one way in. Nothing here connects to a refused address: the site records it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sources.kinds.base import Location, Outcome, Validators
from sources.website import WebsiteKind
from sources.website.addresses import AddressPolicy, address_is_public
from tests.sources.website.site import Page, TestSite, html, prose

Make = Callable[..., WebsiteKind]


@pytest.fixture
def closed(settings: Any) -> Any:
    settings.PARLEY_SOURCES_ALLOWED_NETWORKS = []
    settings.PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = 2.0
    return settings


def test_metadata_loopback_and_a_name_resolving_to_a_private_address_are_refused(
    site: TestSite, closed: Any, make_kind: Make
) -> None:
    site.pages["/"] = Page(body=html("Home", "<h1>Home</h1>" + prose("home")))
    names = {"public-looking.example.com": "10.0.0.1", "rebind.example.com": "169.254.169.254"}
    for url in (
        "http://169.254.169.254/latest/meta-data/",
        f"http://127.0.0.1:{site.port}/",
        site.url("/"),  # docs.example.test resolves to 127.0.0.1: not allow-listed here
        "http://public-looking.example.com/",
        "http://rebind.example.com/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fd00:ec2::254]/",
        "http://0.0.0.0/",
    ):
        kind = make_kind({"start_urls": [url]}, names)
        fetched = kind.fetch(Location(url=url), Validators())
        assert (fetched.outcome, fetched.reason) == (Outcome.FAILED, "address_refused"), url
        assert kind.discover().locations  # discovery does not crash either
    assert site.requests == []  # nothing ever connected


def test_a_redirect_from_an_allowed_host_to_a_private_one_is_refused(
    site: TestSite, closed: Any, make_kind: Make
) -> None:
    closed.PARLEY_SOURCES_ALLOWED_NETWORKS = ["docs.example.test"]  # the site itself, by name
    site.pages["/go"] = Page(
        status=302, headers={"Location": f"http://127.0.0.1:{site.port}/secret"}
    )
    site.pages["/secret"] = Page(body=html("S", "<h1>Secret</h1>" + prose("secret")))
    # Both hosts are the source's own: the redirect is refused for the address, not as off-site.
    kind = make_kind({"start_urls": [site.url("/"), f"http://127.0.0.1:{site.port}/"]})

    fetched = kind.fetch(Location(url=site.url("/go")), Validators())

    assert (fetched.outcome, fetched.reason) == (Outcome.FAILED, "address_refused")
    assert "/secret" not in site.paths()
    assert "/go" in site.paths()  # the allowed host itself was reached


def test_the_allow_list_lets_the_named_network_in(
    site: TestSite, closed: Any, make_kind: Make
) -> None:
    closed.PARLEY_SOURCES_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    site.pages["/"] = Page(body=html("Home", "<h1>Home</h1>" + prose("home")))
    kind = make_kind({"start_urls": [site.url("/")]}, {"docs.example.test": "127.0.0.1"})
    assert kind.fetch(Location(url=site.url("/")), Validators()).outcome is Outcome.FETCHED


def test_the_address_rules() -> None:
    import ipaddress

    unspecified = "0.0.0.0"  # noqa: S104 - an address to refuse, not one to bind
    refused = [
        "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", unspecified,
        "224.0.0.1", "240.0.0.1", "::1", "fe80::1", "fd00:ec2::254", "::ffff:10.0.0.1", "::",
    ]  # fmt: skip
    for address in refused:
        assert not address_is_public(ipaddress.ip_address(address)), address
    assert address_is_public(ipaddress.ip_address("93.184.215.14"))
    assert address_is_public(ipaddress.ip_address("2606:4700::1111"))
    policy = AddressPolicy.from_entries(["10.1.0.0/16", "intranet.example"])
    assert policy.allowed("x", ipaddress.ip_address("10.1.9.9"))
    assert not policy.allowed("x", ipaddress.ip_address("10.2.9.9"))
    assert policy.allowed("intranet.example", ipaddress.ip_address("192.168.0.5"))
