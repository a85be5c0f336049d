"""Read-side queries of sources: a sync's progress, the last syncs of a source."""

from __future__ import annotations

from sources.models import SourceSync


def sync_progress(*, sync: SourceSync) -> dict[str, int]:
    """{done, total}: the pages whose outcome is recorded, of the pages known so far (the frontier
    grows as links are found, so a running bar may step back a little)."""
    frontier = sync.frontier or {}
    done = int(frontier.get("fetched", 0))
    total = done + len(frontier.get("pending", []))
    if sync.status in (SourceSync.Status.DONE, SourceSync.Status.FAILED):
        total = max(total, done)
        return {"done": total, "total": total}
    return {"done": done, "total": total}
