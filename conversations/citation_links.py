"""The link a citation opens: the cited web page, scrolled to the quoted sentence by a URL text
fragment (`#:~:text=`, WICG's scroll-to-text, in Chromium, Edge and Safari; other browsers open the page)."""

from __future__ import annotations

from urllib.parse import quote, urlsplit, urlunsplit

# A long sentence is matched by its first and last words (`text=start,end`): a fragment of a whole
# paragraph fails on any difference of whitespace or punctuation the page renders.
_EDGE_WORDS = 5
_WHOLE_UP_TO_WORDS = 12


def citation_link(*, url: str, quoted: str) -> str:
    """`url` (http or https only; anything else gives "") with a text fragment for `quoted`, or the
    bare page when nothing was quoted. An existing fragment of the page is replaced."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        return ""
    page = urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))
    words = quoted.split()
    if not words:
        return page
    if len(words) <= _WHOLE_UP_TO_WORDS:
        directive = _encoded(" ".join(words))
    else:
        start = " ".join(words[:_EDGE_WORDS])
        end = " ".join(words[-_EDGE_WORDS:])
        directive = f"{_encoded(start)},{_encoded(end)}"
    return f"{page}#:~:text={directive}"


def _encoded(text: str) -> str:
    """Percent-encoded for a text directive, where `-`, `,` and `&` are syntax (quote leaves `-` as is)."""
    return quote(text, safe="").replace("-", "%2D")
