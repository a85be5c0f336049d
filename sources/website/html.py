"""What a fetched HTML page says about itself: its text decoded whatever its declared or guessed encoding,
meta refresh, rel=canonical, meta robots, links, password fields; and its main text and title as the
upload path reads them (rag.parsing's trafilatura extraction and the one title rule)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html
from charset_normalizer import from_bytes
from lxml import etree
from w3lib.encoding import html_to_unicode
from w3lib.html import get_meta_refresh

from rag.errors import IngestError
from rag.parsing.text import parse_html
from rag.parsing.titles import document_title

REFRESH_FOLLOWED_SECONDS = 10  # a longer refresh reloads a live page; it does not move it


def _guess(data: bytes) -> str | None:
    best = from_bytes(data[:65536]).best()
    return best.encoding if best is not None else None


def html_decode(body: bytes, content_type: str) -> str:
    """The page's text: BOM, then the header's charset, then <meta charset>, then charset-normalizer's
    guess, then UTF-8 with replacement characters. An unknown or lying label never raises."""
    try:
        _, text = html_to_unicode(content_type or None, body, auto_detect_fun=_guess)
    except (LookupError, ValueError):
        text = body.decode("utf-8", errors="replace")
    return text.replace("\x00", "")


@dataclass(frozen=True)
class PageFacts:
    refresh_to: str = ""  # a meta refresh target (absolute), when it moves the page soon
    canonical: str = ""
    noindex: bool = False
    nofollow: bool = False
    links: tuple[str, ...] = ()
    password_fields: int = 0


def page_facts(html: str, url: str) -> PageFacts:
    try:
        root = lxml.html.fromstring(
            html.encode("utf-8"), parser=lxml.html.HTMLParser(encoding="utf-8")
        )
    except (etree.ParserError, ValueError):
        return PageFacts()
    base = url
    for href in root.xpath("//head/base/@href")[:1]:
        base = str(href).strip() or url
    interval, target = get_meta_refresh(html[:65536], base)
    refresh_to = (
        str(target)
        if target and interval is not None and interval <= REFRESH_FOLLOWED_SECONDS
        else ""
    )
    canonical = ""
    for link in root.xpath("//link[@href]"):
        if "canonical" in (link.get("rel") or "").lower().split():
            canonical = str(link.get("href") or "").strip()
            break
    robots = " ".join(
        str(meta.get("content") or "").lower()
        for meta in root.xpath("//meta[@name]")
        if str(meta.get("name") or "").lower() in {"robots", "parley"}
    )
    links = tuple(
        str(href).strip()
        for href in root.xpath("//a/@href | //area/@href")
        if str(href).strip()
        and not str(href).strip().lower().startswith(("javascript:", "mailto:", "tel:", "data:"))
    )
    passwords = len(root.xpath("//input[translate(@type, 'PASSWORD', 'password')='password']"))
    from urllib.parse import urljoin

    return PageFacts(
        refresh_to=refresh_to,
        canonical=urljoin(base, canonical) if canonical else "",
        noindex="noindex" in robots or "none" in re.split(r"[\s,]+", robots),
        nofollow="nofollow" in robots or "none" in re.split(r"[\s,]+", robots),
        links=tuple(urljoin(base, link) for link in links),
        password_fields=passwords,
    )


@dataclass(frozen=True)
class Extracted:
    text: str  # the main text, as ingestion will chunk it ("" when none was found)
    title: str
    heading: str
    own_title: str = ""


def page_extract(html: str, url: str, filename: str) -> Extracted:
    """The main text without navigation, footers or cookie banners, and the title by the one rule."""
    try:
        parsed = parse_html(html.encode("utf-8"), filename)
    except IngestError:
        return Extracted(text="", title=document_title(url=url), heading="")
    text = "\n\n".join(block.text for block in parsed.blocks if block.text.strip())
    title = document_title(heading=parsed.heading, own_title=parsed.own_title, url=url)
    return Extracted(text=text, title=title, heading=parsed.heading, own_title=parsed.own_title)
