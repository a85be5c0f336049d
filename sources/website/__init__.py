"""The website kind of source: `WebsiteKind` (discover, fetch, close) built from a plain configuration
checked by `website_config_validate`, with an optional resolver (host, port) -> addresses;
`website_kind(config=, credentials=)` is what the sync engine calls.

Reason codes of a page's FAILED outcome (the engine never retires a page for them):
- address_refused: the host resolves to a loopback, private, link-local, metadata... address outside
  PARLEY_SOURCES_ALLOWED_NETWORKS (failed rather than skipped: a name that moves never deletes a page);
- timeout, dns, refused, network: the request (or robots.txt's, which is read first) got no response;
- http_5xx, http_4xx (401, 403...), rate_limited (429 past PARLEY_SOURCES_RETRY_AFTER_MAX_SECONDS,
  with retry_after_seconds), robots_unavailable (robots.txt answered 5xx or 429);
- redirect_loop, too_many_redirects (more than 10), render_timeout, render_failed;
- error: an unexpected fault, logged with its traceback.
Of a SKIPPED outcome (not knowledge or not allowed: stored as no document): robots, noindex,
content_type, too_large, soft_404, login_wall, empty_shell, off_site_redirect, not_http, no_content,
unreadable:<ingestion code> (a linked file the parsers could not read)."""

from sources.website.config import (
    Credentials,
    WebsiteConfig,
    WebsiteConfigError,
    website_config_validate,
)
from sources.website.kind import WebsiteKind, website_kind

__all__ = [
    "Credentials",
    "WebsiteConfig",
    "WebsiteConfigError",
    "WebsiteKind",
    "website_config_validate",
    "website_kind",
]
