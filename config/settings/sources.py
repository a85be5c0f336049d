"""Knowledge sources (sources/, docs/sources.md): the sync engine's limits and the website kind's
fetcher (sources/website)."""

from __future__ import annotations

from config.env import env_float, env_int, env_list, env_str
from config.settings.base import VAR_DIR

# --- Knowledge sources (sources/, docs/sources.md) ----------------------------------------
# A sync whose share of failed fetches (timeouts, 5xx, DNS, refused) passes this retires nothing.
PARLEY_SOURCES_MAX_FAILURE_SHARE = env_float("PARLEY_SOURCES_MAX_FAILURE_SHARE", 0.1, minimum=0.0)
# A sync stops fetching after this long (its frontier is kept; an incomplete crawl retires no absent page).
PARLEY_SOURCES_SYNC_BUDGET_SECONDS = env_int("PARLEY_SOURCES_SYNC_BUDGET_SECONDS", 1800, minimum=10)
# Pages of one source at most, when its configuration names no max_pages.
PARLEY_SOURCES_MAX_PAGES = env_int("PARLEY_SOURCES_MAX_PAGES", 500, minimum=1)
# Two pages whose word-shingle sets are at least this similar (estimated Jaccard) are one text.
PARLEY_SOURCES_NEAR_DUPLICATE = env_float("PARLEY_SOURCES_NEAR_DUPLICATE", 0.9, minimum=0.0)
# A running sync whose worker recorded no page for this long is handed to another (sources_due_dispatch).
PARLEY_SOURCES_STUCK_AFTER_SECONDS = env_int("PARLEY_SOURCES_STUCK_AFTER_SECONDS", 600, minimum=1)
# Where Git sources are cloned.
PARLEY_SOURCES_CHECKOUTS = VAR_DIR / "sources"

# --- Knowledge sources: the website kind's fetcher (sources/website) -------------------------
# Networks or host names a source may fetch from although they are private, loopback or link-local
# (CIDRs like 10.1.0.0/16, addresses, or host names): empty by default, so no source reaches inside.
PARLEY_SOURCES_ALLOWED_NETWORKS = env_list("PARLEY_SOURCES_ALLOWED_NETWORKS", [])
PARLEY_SOURCES_USER_AGENT = (
    env_str("PARLEY_SOURCES_USER_AGENT", "Parley/1.0 (knowledge source sync)")
    or "Parley/1.0 (knowledge source sync)"
)
PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = env_float(
    "PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS", 20.0, minimum=0.1, maximum=600.0
)
# A page (or file) larger than this is skipped ("too_large"), read no further than the limit.
PARLEY_SOURCES_MAX_PAGE_BYTES = env_int(
    "PARLEY_SOURCES_MAX_PAGE_BYTES", 10 * 1024 * 1024, minimum=1024
)
# A 429's Retry-After is waited up to this long; beyond it the page fails ("rate_limited").
PARLEY_SOURCES_RETRY_AFTER_MAX_SECONDS = env_float(
    "PARLEY_SOURCES_RETRY_AFTER_MAX_SECONDS", 60.0, minimum=0.0, maximum=3600.0
)
# robots.txt's Crawl-delay is honoured up to this many seconds between two requests to a host.
PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS = env_float(
    "PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS", 30.0, minimum=0.0, maximum=3600.0
)
PARLEY_SOURCES_RENDER_TIMEOUT_SECONDS = env_float(
    "PARLEY_SOURCES_RENDER_TIMEOUT_SECONDS", 30.0, minimum=1.0, maximum=600.0
)
