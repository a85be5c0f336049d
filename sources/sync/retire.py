"""The end of a sync: which pages are demonstrably gone, and retiring them.

A page is retired when it answered 404/410 on two syncs in a row, or when it is absent from a crawl
that completed (no cap or budget cut it) with no failed fetch AND from a complete listing (the
sitemaps read whole, a repository's tree). A failure (timeout, 5xx, DNS, refused) never retires a
page, and a sync whose share of failures passes PARLEY_SOURCES_MAX_FAILURE_SHARE retires nothing at
all: a bad network day never empties the knowledge. Each retirement deletes the page's document and
chunks in one transaction with the page's new state."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from sources.models import Source, SourcePage
from sources.sync.documents import page_document_delete
from sources.sync.frontier import Frontier
from sources.sync.outcomes import SyncCounts


def pages_retire(*, source: Source, frontier: Frontier, counts: SyncCounts) -> str:
    """Retire what is demonstrably gone; returns why pages were, or were not, retired."""
    failed, attempted = counts.total("failed"), frontier.fetched
    threshold = settings.PARLEY_SOURCES_MAX_FAILURE_SHARE
    if attempted and failed / attempted > threshold:
        return (
            f"Nothing retired: {failed} of {attempted} fetches failed ({failed / attempted:.0%}),"
            f" over the {threshold:.0%} allowed (PARLEY_SOURCES_MAX_FAILURE_SHARE)."
        )
    live = SourcePage.objects.filter(source=source).exclude(state=SourcePage.State.RETIRED)
    gone = list(live.filter(gone_count__gte=2))
    notes = []
    complete = not frontier.pending and frontier.cut == 0
    if complete and failed == 0 and frontier.listing_complete:
        absent = [page for page in live if page.url not in frontier.seen and page not in gone]
    else:
        absent = []
        why = [
            *(["the crawl did not complete"] if not complete else []),
            *([f"{failed} fetches failed"] if failed else []),
            *(["the listing was not read whole"] if not frontier.listing_complete else []),
        ]
        notes.append("absent pages kept: " + ", ".join(why))
    retired = 0
    for page, reason in [
        *((p, "gone twice (404/410)") for p in gone),
        *((p, "absent") for p in absent),
    ]:
        retired += page_retire(page=page, reason=reason)
    counts.values["retired"] = retired
    return "; ".join([f"{retired} retired", *notes])


def page_retire(*, page: SourcePage, reason: str) -> int:
    """Retire one page: its document and chunks go, in the transaction that records it. 1 when the
    page held knowledge (was active), else 0."""
    with transaction.atomic():
        locked = SourcePage.objects.select_for_update().filter(pk=page.pk).first()
        if locked is None or locked.state == SourcePage.State.RETIRED:
            return 0
        was_active = locked.state == SourcePage.State.ACTIVE
        document_id = locked.document_id
        locked.state = SourcePage.State.RETIRED
        locked.reason = reason
        locked.document = None
        locked.text_hash, locked.sketch, locked.etag, locked.last_modified = "", [], "", ""
        locked.save()
        if document_id is not None:
            page_document_delete(document_id=document_id)
    return int(was_active)
