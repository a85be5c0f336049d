"""The one title rule for every document (uploads and web pages alike): its first heading (Markdown `#`,
HTML `<h1>`, a DOCX Title or Heading paragraph, a PDF's first larger line), else the format's own title
(HTML `<title>`, DOCX core title, PDF metadata title), else its file name, else its URL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any
from urllib.parse import unquote, urlsplit

MAX_TITLE = 300  # Document.title's length

# What a PDF or DOCX writer puts in its title field when nobody chose one.
_PLACEHOLDERS = {"untitled", "title", "document", "microsoft word", "no title", "sans titre"}


def title_clean(text: str | None) -> str:
    """One line, single spaces; "" for nothing or a writer's placeholder."""
    cleaned = " ".join((text or "").split())
    if cleaned.lower() in _PLACEHOLDERS or cleaned.lower().startswith("microsoft word - "):
        return ""
    return cleaned


def filename_title(filename: str) -> str:
    """A file's name as a title: its stem, with `_` and `-` read as spaces."""
    stem = PurePath(filename).stem if filename else ""
    return title_clean(stem.replace("_", " ").replace("-", " "))


def url_title(url: str) -> str:
    """A URL as a title: its last path segment, else its host."""
    parts = urlsplit(url or "")
    segment = unquote(parts.path.rstrip("/").rsplit("/", 1)[-1])
    return filename_title(segment) or title_clean(parts.hostname or "")


def document_title(
    *, heading: str = "", own_title: str = "", filename: str = "", url: str = ""
) -> str:
    """The rule itself: the first of heading, the format's own title, file name, URL that says something."""
    for candidate in (
        title_clean(heading),
        title_clean(own_title),
        filename_title(filename),
        url_title(url),
    ):
        if candidate:
            return candidate[:MAX_TITLE]
    return "document"


def title_after_ingestion(
    *,
    current: str,
    metadata: Mapping[str, Any] | None,
    heading: str,
    own_title: str,
    filename: str,
    url: str,
) -> tuple[str, str]:
    """The title a document carries once its file is read, and the automatic title to remember (in its
    metadata's `title_auto`). A title someone chose (at upload, or renamed since) is kept; a title the
    rule gave (from the file name at upload, or from the file at the last ingestion) follows the file."""
    automatic = document_title(heading=heading, own_title=own_title, filename=filename, url=url)
    given_by_rule = {document_title(filename=filename, url=url), (metadata or {}).get("title_auto")}
    return (automatic if current in given_by_rule else current), automatic
