"""The crawl's frontier: the locations still to fetch, every URL seen (deduplicated by canonical URL),
the listing's URLs, and the caps (pages, depth). Stored as JSON on the sync with each page's outcome,
so a redelivered task resumes where the killed one stopped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sources.kinds.base import Location, Via


@dataclass
class Frontier:
    max_pages: int
    max_depth: int
    pending: list[Location] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # every URL queued or reached (canonical ones too)
    listed: set[str] = field(default_factory=set)  # the URLs of the complete listing, when it is
    done_urls: set[str] = field(default_factory=set)  # canonical URLs whose outcome is recorded
    listing_complete: bool = False
    discovered: bool = False  # the kind's discovery ran (a resumed sync still runs it again)
    cut: int = 0  # locations left out by max_pages: the crawl is then incomplete
    fetched: int = 0  # outcomes recorded, the progress bar's numerator

    def add(self, location: Location) -> bool:
        """Queue a location unless its URL was seen, it is too deep, or the page cap is reached."""
        if location.url in self.seen or location.depth > self.max_depth:
            return False
        if len(self.seen) >= self.max_pages:
            self.cut += 1
            return False
        self.seen.add(location.url)
        self.pending.append(location)
        return True

    def next(self) -> Location | None:
        return self.pending[0] if self.pending else None

    def done(self, *, location: Location, canonical: str) -> None:
        """The location's outcome is recorded: take it off, and remember its canonical URL."""
        if self.pending and self.pending[0] == location:
            self.pending.pop(0)
        else:
            self.pending = [queued for queued in self.pending if queued != location]
        self.seen.add(canonical)
        self.done_urls.add(canonical)
        self.fetched += 1

    def to_json(self) -> dict[str, Any]:
        return {
            "max_pages": self.max_pages,
            "max_depth": self.max_depth,
            "pending": [[loc.url, loc.depth, loc.via.value] for loc in self.pending],
            "seen": sorted(self.seen),
            "listed": sorted(self.listed),
            "done": sorted(self.done_urls),
            "listing_complete": self.listing_complete,
            "discovered": self.discovered,
            "cut": self.cut,
            "fetched": self.fetched,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, max_pages: int, max_depth: int) -> Frontier:
        if not data:
            return cls(max_pages=max_pages, max_depth=max_depth)
        return cls(
            max_pages=int(data.get("max_pages", max_pages)),
            max_depth=int(data.get("max_depth", max_depth)),
            pending=[Location(url=u, depth=int(d), via=Via(v)) for u, d, v in data["pending"]],
            seen=set(data.get("seen", [])),
            listed=set(data.get("listed", [])),
            done_urls=set(data.get("done", [])),
            listing_complete=bool(data.get("listing_complete")),
            discovered=bool(data.get("discovered")),
            cut=int(data.get("cut", 0)),
            fetched=int(data.get("fetched", 0)),
        )
