"""What the bench does to its copy of the site between the second and third syncs: edit the main text
of some pages, and delete others with their sitemap entries (plain and gzip) and every link to them."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

_ANCHOR = re.compile(r"<a\b[^>]*\bhref=\"([^\"]*)\"[^>]*>.*?</a>", re.DOTALL | re.IGNORECASE)
_URL_ENTRY = re.compile(r"\s*<url>\s*<loc>([^<]+)</loc>.*?</url>", re.DOTALL)


def page_file(root: Path, path: str) -> Path:
    return root / path.lstrip("/") / "index.html" if path.endswith("/") else root / path.lstrip("/")


def page_edit(root: Path, path: str, number: int) -> None:
    """A new paragraph after the page's first heading: its extracted text changes, nothing else."""
    file = page_file(root, path)
    html = file.read_text()
    added = (
        f"<p>Bench edit {number}: this paragraph was added to the page to change its main text.</p>"
    )
    at = html.index("</h1>") + len("</h1>")
    file.write_text(html[:at] + added + html[at:])


def pages_delete(root: Path, paths: list[str], production: str) -> int:
    """Delete the pages' files, their sitemap entries and every link to them; returns links removed."""
    gone = set(paths)
    for path in paths:
        page_file(root, path).unlink()
    removed = 0
    for file in root.rglob("*.html"):
        base = "/" + str(file.relative_to(root)).removesuffix("index.html")
        html = file.read_text()

        def keep(match: re.Match[str], base: str = base) -> str:
            nonlocal removed
            target = urlsplit(urljoin(f"http://site{base}", match.group(1))).path
            if target in gone:
                removed += 1
                return ""
            return match.group(0)

        edited = _ANCHOR.sub(keep, html)
        if edited != html:
            file.write_text(edited)
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        file = root / name
        data = file.read_bytes()
        text = (gzip.decompress(data) if name.endswith(".gz") else data).decode()
        text = _URL_ENTRY.sub(
            lambda m: "" if urlsplit(m.group(1).strip()).path in gone else m.group(0), text
        )
        file.write_bytes(
            gzip.compress(text.encode(), mtime=0) if name.endswith(".gz") else text.encode()
        )
    return removed


def sitemap_paths(root: Path) -> list[str]:
    return [
        urlsplit(loc).path
        for loc in re.findall(r"<loc>([^<]+)</loc>", (root / "sitemap.xml").read_text())
    ]


def redirect_stubs(root: Path) -> list[str]:
    """The site's redirect stubs (a meta refresh page), as paths."""
    stubs = []
    for file in sorted(root.rglob("index.html")):
        head = file.read_text(errors="replace")[:2000]
        if 'http-equiv="refresh"' in head:
            stubs.append("/" + str(file.relative_to(root)).removesuffix("index.html"))
    return stubs
