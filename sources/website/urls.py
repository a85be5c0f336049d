"""URL normalisation (the key of a page) and the site's boundaries: w3lib canonicalises (percent-encoding,
sorted query, no fragment); here the host is lowercased, the default port and tracking parameters dropped."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import PurePosixPath
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, url_query_cleaner

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Parameters that say where a visitor came from, never what the page is.
_TRACKING = frozenset(
    {
        "gclid", "gclsrc", "dclid", "fbclid", "msclkid", "yclid", "twclid", "ttclid", "igshid",
        "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "ref_src", "si",
    }
)  # fmt: skip
_TRACKING_PREFIXES = ("utm_", "pk_", "hsa_")
# Links to these are never pages or documents the parsers read: not worth a request.
_NOT_DOCUMENTS = frozenset(
    {
        ".css", ".js", ".mjs", ".json", ".map", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp",
        ".ico", ".bmp", ".tif", ".tiff", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".zip", ".gz",
        ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".exe", ".dmg", ".iso", ".deb", ".rpm", ".apk",
        ".mp3", ".mp4", ".m4a", ".wav", ".webm", ".avi", ".mov", ".ogg", ".xml", ".rss", ".atom",
    }
)  # fmt: skip


def _tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in _TRACKING or lowered.startswith(_TRACKING_PREFIXES)


def url_normalise(url: str, base: str = "") -> str | None:
    """The page's key: absolute, http(s) only, host lowercased, default port, fragment and tracking
    parameters dropped, query sorted. None for anything that is not an http(s) URL."""
    from urllib.parse import urljoin

    try:
        absolute = urljoin(base, url.strip()) if base else url.strip()
        parts = urlsplit(absolute)
        if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
            return None
        port = parts.port
    except ValueError:  # a port that is not a number, brackets that do not close
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    rebuilt = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
    tracking = [
        name for name, _ in parse_qsl(parts.query, keep_blank_values=True) if _tracking(name)
    ]
    if tracking:
        rebuilt = url_query_cleaner(rebuilt, tracking, remove=True, unique=False)
    return canonicalize_url(rebuilt)


def site_key(netloc: str) -> str:
    """Two hosts are the same site when they differ only by a leading `www.` (and have the same port)."""
    return netloc.lower().removeprefix("www.")


def same_site(url: str, hosts: Iterable[str]) -> bool:
    netloc = urlsplit(url).netloc
    return site_key(netloc) in {site_key(host) for host in hosts}


def path_allowed(url: str, *, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """The include/exclude glob patterns, on the path (and query, when there is one)."""
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    if include and not any(fnmatch.fnmatchcase(target, pattern) for pattern in include):
        return False
    return not any(fnmatch.fnmatchcase(target, pattern) for pattern in exclude)


def url_is_document_candidate(url: str) -> bool:
    """False for links to stylesheets, scripts, images, archives, media and feeds."""
    return PurePosixPath(urlsplit(url).path).suffix.lower() not in _NOT_DOCUMENTS


def url_filename(url: str, extension: str) -> str:
    """A file name for the parsers (they choose by extension): the last path segment, else `index`."""
    segment = PurePosixPath(urlsplit(url).path).name or "index"
    stem = PurePosixPath(segment)
    if stem.suffix.lower() == extension:
        return segment
    return f"{stem.stem if stem.suffix.lower() in {'.htm', '.html', '.php', '.asp', '.aspx'} else segment}{extension}"
