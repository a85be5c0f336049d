"""The bench's measurements beside their baselines: chunks repeated across pages (against the lines of
the whole pages' text), pages per second (against plain GETs), the cost of rendering; and the report."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any


def _repeated_share(texts_by_page: dict[str, list[str]]) -> tuple[int, float]:
    """(pieces, share of pieces whose text is found on more than one page)."""
    pages_of: Counter[str] = Counter()
    for pieces in texts_by_page.values():
        pages_of.update({" ".join(piece.split()).lower() for piece in pieces if piece.strip()})
    total = sum(len([p for p in pieces if p.strip()]) for pieces in texts_by_page.values())
    repeated = sum(
        1
        for pieces in texts_by_page.values()
        for piece in pieces
        if piece.strip() and pages_of[" ".join(piece.split()).lower()] > 1
    )
    return total, (repeated / total if total else 0.0)


def chunk_figures(*, source: Any, root: Path, origin: str) -> dict[str, Any]:
    import lxml.html

    from rag.models import Chunk
    from sources.models import SourcePage
    from sources.website.html import page_extract

    by_document: dict[str, list[str]] = {}
    for document_id, text in Chunk.objects.filter(document__source_page__source=source).values_list(
        "document_id", "text"
    ):
        by_document.setdefault(str(document_id), []).append(text)
    chunks, chunk_share = _repeated_share(by_document)
    whole: dict[str, list[str]] = {}
    extracted: dict[str, list[str]] = {}
    for page in SourcePage.objects.filter(source=source, document__isnull=False):
        path = page.url.removeprefix(origin)
        file = (
            root / path.lstrip("/") / "index.html"
            if path.endswith("/")
            else root / path.lstrip("/")
        )
        if not file.is_file():
            continue
        html = file.read_text()
        body = lxml.html.fromstring(html.encode()).find("body")
        whole[path] = (body.text_content() if body is not None else "").splitlines()
        extracted[path] = page_extract(html, page.url, "page.html").text.splitlines()
    whole_lines, whole_share = _repeated_share(whole)
    kept_lines, kept_share = _repeated_share(extracted)
    return {
        "chunks": chunks,
        "chunk_repeated_share": chunk_share,
        "whole_lines": whole_lines,
        "whole_repeated_share": whole_share,
        "kept_lines": kept_lines,
        "kept_repeated_share": kept_share,
    }


def baseline_get_rate(urls: list[str]) -> float:
    """Pages per second of plain sequential GETs of the same pages (no robots, checks or parsing)."""
    import httpx

    started = time.monotonic()
    with httpx.Client(trust_env=False) as client:
        for url in urls:
            client.get(url)
    return len(urls) / (time.monotonic() - started)


def render_cost(*, urls: list[str], resolver: Any) -> dict[str, float]:
    from sources.kinds.base import Location, Validators
    from sources.website import WebsiteKind

    figures: dict[str, float] = {}
    for render in (False, True):
        kind = WebsiteKind({"start_urls": urls[:1], "render_javascript": render}, resolver=resolver)
        try:
            kind.fetch(
                Location(url=urls[0]), Validators()
            )  # robots, the probe, the browser's start
            started = time.monotonic()
            for url in urls[1:]:
                kind.fetch(Location(url=url), Validators())
            figures["rendered" if render else "plain"] = (time.monotonic() - started) / max(
                1, len(urls) - 1
            )
        finally:
            kind.close()
    return figures


def print_report(figures: dict[str, Any]) -> None:
    chunks = figures["chunks"]
    rate = figures["fetched"] / figures["crawl_seconds"]
    third = figures["third_counts"]
    lines = [
        f"sitemap pages: {figures['sitemap']}   found and stored as documents: {figures['sitemap_found']}"
        f"   documents of the source: {figures['documents']}",
        f"first sync: {figures['first_counts']}",
        f"  errors: {figures['first_errors'] or 'none'}",
        f"pages per second: {rate:.1f} (fetches {figures['fetched']} in {figures['crawl_seconds']:.1f} s,"
        f" parsing and politeness included)   baseline, plain GETs of the sitemap: {figures['baseline_rate']:.1f}",
        f"chunks: {chunks['chunks']}   repeated across pages: {chunks['chunk_repeated_share']:.1%}",
        f"  lines repeated across pages: extracted text {chunks['kept_repeated_share']:.1%} of {chunks['kept_lines']}"
        f"   baseline, the whole pages' text {chunks['whole_repeated_share']:.1%} of {chunks['whole_lines']}",
        f"first page searchable after {figures['first_searchable']:.1f} s (bar 30 s);"
        f" every page ready after {figures['all_ready_seconds']:.1f} s (bar 300 s)",
        f"second sync: {figures['second_counts']}   embedding calls: {figures['second_embedding_calls']} (bar 0)",
        f"third sync, after editing {len(figures['edited'])} pages and deleting {len(figures['deleted'])}"
        f" ({figures['links_removed']} links to them removed): {third}",
        f"  changed {third.get('changed', 0)} (bar 5), retired {third.get('retired', 0)} (bar 5),"
        f" embedding calls {figures['third_embedding_calls']}",
        f"redirect stubs stored as documents: {figures['stubs_as_documents']} of {figures['stubs']} (bar 0);"
        f" the 404 page: {figures['not_found_as_document']} (bar 0)",
    ]
    if "render" in figures:
        render = figures["render"]
        lines.append(
            f"rendering: {render['rendered']:.2f} s a page in Chromium, against {render['plain']:.2f} s without"
        )
    print("\n".join(lines))
