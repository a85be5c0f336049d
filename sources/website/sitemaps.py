"""Sitemaps (sitemaps.org): a URL set or an index of sitemaps, plain or gzip-compressed (by content, not
by name), parsed by lxml with entities and network access off. Anything else is an error the discovery
reports, never an exception."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from lxml import etree

from sources.website.client import FetchFailed, SafeClient

SITEMAP_MAX_BYTES = 50 * 1024 * 1024  # the protocol's own limit, uncompressed
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Sitemap:
    urls: tuple[str, ...] = ()  # pages (a URL set)
    sitemaps: tuple[str, ...] = ()  # child sitemaps (an index)
    error: str = ""
    missing: bool = False  # 404/410: no sitemap there (not an error when it was only a guess)


def _gunzip(data: bytes) -> bytes | None:
    """The decompressed bytes, at most SITEMAP_MAX_BYTES of them (None past that: a zip bomb)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = inflater.decompress(data, SITEMAP_MAX_BYTES + 1)
    return None if len(out) > SITEMAP_MAX_BYTES else out


def sitemap_parse(data: bytes, url: str) -> Sitemap:
    if data.startswith(_GZIP_MAGIC):
        try:
            inflated = _gunzip(data)
        except zlib.error as exc:
            return Sitemap(error=f"sitemap {url}: broken gzip ({exc})")
        if inflated is None:
            return Sitemap(
                error=f"sitemap {url}: larger than {SITEMAP_MAX_BYTES} bytes uncompressed"
            )
        data = inflated
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        return Sitemap(error=f"sitemap {url}: not XML ({exc.msg})")
    kind = etree.QName(root).localname
    locs = tuple(
        " ".join(str(loc.text or "").split())
        for loc in root.iter("{*}loc")
        if (loc.text or "").strip()
    )
    if kind == "urlset":
        return Sitemap(urls=locs)
    if kind == "sitemapindex":
        return Sitemap(sitemaps=locs)
    return Sitemap(error=f"sitemap {url}: not a sitemap (its root element is <{kind}>)")


def sitemap_read(client: SafeClient, url: str) -> Sitemap:
    try:
        response = client.get(
            url, limit=SITEMAP_MAX_BYTES, headers={"Accept": "application/xml,text/xml,*/*"}
        )
    except FetchFailed as exc:
        return Sitemap(error=f"sitemap {url}: {exc.code} ({exc.message})")
    if response.status in (404, 410):
        return Sitemap(error=f"sitemap {url}: HTTP {response.status}", missing=True)
    if response.status != 200:
        return Sitemap(error=f"sitemap {url}: HTTP {response.status}")
    if response.truncated:
        return Sitemap(error=f"sitemap {url}: larger than {SITEMAP_MAX_BYTES} bytes")
    return sitemap_parse(response.body, url)
