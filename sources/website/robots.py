"""robots.txt, read once per host through protego (Crawl-delay and Sitemap lines included). A missing
robots.txt (4xx) allows everything; one that cannot be read (5xx, network) fails the host's pages
(with the network's reason, or robots_unavailable) rather than skipping them, so a bad day never
reads as "the site forbids us"."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from protego import Protego

from sources.website.client import FetchFailed, SafeClient

ROBOTS_MAX_BYTES = 512 * 1024  # Google reads the first 500 KiB


@dataclass(frozen=True)
class Robots:
    parser: Protego | None  # None: no robots.txt, everything allowed
    error: str = ""  # a reason code when it could not be read

    def allowed(self, url: str, user_agent: str) -> bool:
        return self.parser is None or bool(self.parser.can_fetch(url, user_agent))

    def crawl_delay(self, user_agent: str) -> float:
        if self.parser is None:
            return 0.0
        return float(self.parser.crawl_delay(user_agent) or 0.0)

    def sitemaps(self) -> list[str]:
        return [] if self.parser is None else list(self.parser.sitemaps)


class RobotsCache:
    def __init__(self, *, client: SafeClient, crawl_delay_max: float) -> None:
        self.client = client
        self.crawl_delay_max = crawl_delay_max
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._robots: dict[str, Robots] = {}

    def token(self) -> str:
        """The product token robots.txt groups name ("Parley" in "Parley/1.0 (...)")."""
        return self.client.user_agent.split("/", 1)[0].split()[0]

    def for_url(self, url: str) -> Robots:
        parts = urlsplit(url)
        key = f"{parts.scheme}://{parts.netloc}"
        with self._lock:
            host_lock = self._locks.setdefault(key, threading.Lock())
        with host_lock:  # one read per host, whichever thread asks first
            if key in self._robots:
                return self._robots[key]
            robots = self._read(urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", "")))
            if robots.error and robots.error != "address_refused":
                return robots  # read again for the next page: a bad minute must not last the sync
            self._robots[key] = robots
            delay = min(robots.crawl_delay(self.token()), self.crawl_delay_max)
            self.client.gate.delay_set(parts.netloc, delay)
            return robots

    def allowed(self, url: str) -> bool:
        return self.for_url(url).allowed(url, self.token())

    def _read(self, robots_url: str) -> Robots:
        try:
            response = self.client.get(
                robots_url, limit=ROBOTS_MAX_BYTES, headers={"Accept": "text/plain"}
            )
        except (
            FetchFailed
        ) as exc:  # the page's own reason: timeout, dns, refused, address_refused...
            return Robots(parser=None, error=exc.code)
        if response.status >= 500 or response.status == 429:
            return Robots(parser=None, error="robots_unavailable")
        if response.status != 200:  # 3xx unfollowed, 4xx: no rules (RFC 9309 2.3.1.3)
            return Robots(parser=None)
        text = response.body.decode("utf-8", errors="replace")
        return Robots(parser=Protego.parse(text))
