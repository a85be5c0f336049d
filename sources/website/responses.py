"""What a response's status and headers mean for the page: the outcome of a status that carries no page
(304, 404/410, 429, 5xx...), Retry-After, the media type (declared, else sniffed), the validators."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from sources.kinds.base import Fetched, Location, Outcome, Validators
from sources.website.client import RawResponse

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Files the existing parsers read, by the type the server declares, with the extension they choose by.
FILE_TYPES = {
    "application/pdf": ".pdf",
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/csv": ".csv",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
}


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After as seconds: a number, or an HTTP date (RFC 9110 10.2.3); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def media_type(response: RawResponse) -> str:
    declared = str(response.headers.get("content-type", "")).split(";", 1)[0].strip().lower()
    if declared and declared != "application/octet-stream":
        return declared
    head = response.body[:512].lstrip().lower()
    if head.startswith(b"%pdf"):
        return "application/pdf"
    if head.startswith((b"<!doctype html", b"<html")):
        return "text/html"
    return declared


def response_validators(response: RawResponse, previous: Validators | None = None) -> Validators:
    etag = str(response.headers.get("etag", ""))
    modified = str(response.headers.get("last-modified", ""))
    if previous is not None and not etag and not modified:
        return previous  # a 304 need not repeat them
    return Validators(etag=etag, last_modified=modified)


def _result(
    location: Location, outcome: Outcome, url: str, reason: str = "", **fields: Any
) -> Fetched:
    return Fetched(location=location, outcome=outcome, url=url, reason=reason, **fields)


def status_outcome(
    *, location: Location, url: str, response: RawResponse, validators: Validators
) -> Fetched | None:
    """The outcome of a final (not redirecting) response that carries no page, or None for a page to read."""
    status = response.status
    retry_after = retry_after_seconds(response.headers.get("retry-after"))
    if status == 304:
        return _result(
            location,
            Outcome.NOT_MODIFIED,
            url,
            status=status,
            validators=response_validators(response, validators),
        )
    if status in (404, 410):
        return _result(location, Outcome.GONE, url, status=status)
    if status == 429:
        return _result(
            location,
            Outcome.FAILED,
            url,
            "rate_limited",
            status=status,
            retry_after_seconds=retry_after,
        )
    if status >= 500:
        return _result(
            location,
            Outcome.FAILED,
            url,
            "http_5xx",
            status=status,
            retry_after_seconds=retry_after,
        )
    if status >= 400:
        return _result(location, Outcome.FAILED, url, "http_4xx", status=status)
    if status >= 300 or status in (204, 205):
        return _result(location, Outcome.SKIPPED, url, "no_content", status=status)
    if response.truncated:
        return _result(location, Outcome.SKIPPED, url, "too_large", status=status)
    return None
