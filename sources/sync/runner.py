"""Run one sync under its claim: discover, then fetch the frontier page by page, each page's outcome,
its document and the frontier's advance committed together, then retire what is demonstrably gone.

The claim is the Celery task id in `SourceSync.claim_id`, taken by a conditional UPDATE: the same
message redelivered after its worker died takes it back and resumes from the stored frontier (a page
whose transaction committed is never fetched or stored again); a stale heartbeat lets another take it.
A changed page's document is replaced (embedded) before its transaction, never inside one."""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.errors import ParleyError
from rag.errors import IngestError
from sources.errors import SourceUnreachable
from sources.kinds import kind_build
from sources.kinds.base import Fetched, Location, Outcome, SourceKind, Validators, Via
from sources.models import Source, SourcePage, SourceSync
from sources.sync.documents import page_document_replace
from sources.sync.frontier import Frontier
from sources.sync.outcomes import Action, Decision, Known, SyncCounts, page_apply, page_decide
from sources.sync.retire import pages_retire
from textmodels.embeddings.errors import EmbeddingError

logger = logging.getLogger(__name__)

DEFAULT_DEPTH = 5


def sync_stuck_after() -> timedelta:
    """No page recorded for this long: the sync's worker is gone (PARLEY_SOURCES_STUCK_AFTER_SECONDS)."""
    return timedelta(seconds=settings.PARLEY_SOURCES_STUCK_AFTER_SECONDS)


def sync_claim(*, sync_id: uuid.UUID | str, claim_id: str) -> bool:
    now = timezone.now()
    claimable = (
        Q(status=SourceSync.Status.QUEUED)
        | Q(status=SourceSync.Status.RUNNING, claim_id=claim_id)
        | Q(status=SourceSync.Status.RUNNING, heartbeat_at__lt=now - sync_stuck_after())
    )
    return bool(
        SourceSync.objects.filter(claimable, pk=sync_id).update(
            status=SourceSync.Status.RUNNING,
            claim_id=claim_id,
            started_at=Coalesce("started_at", now),
            heartbeat_at=now,
        )
    )


def sync_run(*, sync_id: uuid.UUID | str, claim_id: str, kind: SourceKind | None = None) -> str:
    """Run (or resume) the sync; returns done, failed, not_claimed or claim_lost. `kind` is built from
    the source's configuration unless given."""
    if not sync_claim(sync_id=sync_id, claim_id=claim_id):
        return "not_claimed"
    sync = SourceSync.objects.select_related("source__workspace").get(pk=sync_id)
    source = sync.source
    try:
        kind = kind or kind_build(
            kind=source.kind, config=source.config, credentials=source.credentials
        )
    except ParleyError as exc:  # a configuration the kind refuses (SourceError, WebsiteConfigError)
        _finish_failed(sync=sync, claim_id=claim_id, error=exc.message)
        return "failed"
    try:
        return _crawl(sync=sync, source=source, kind=kind, claim_id=claim_id)
    except SourceUnreachable as exc:
        _finish_failed(sync=sync, claim_id=claim_id, error=exc.message)
        return "failed"
    finally:
        kind.close()


def _crawl(*, sync: SourceSync, source: Source, kind: SourceKind, claim_id: str) -> str:
    config = source.config or {}
    frontier = Frontier.from_json(
        sync.frontier,
        max_pages=int(config.get("max_pages") or settings.PARLEY_SOURCES_MAX_PAGES),
        max_depth=int(config.get("max_depth") or DEFAULT_DEPTH),
    )
    counts = SyncCounts(dict(sync.counts or {}))
    errors = list(sync.errors or [])
    discovery = kind.discover()  # a resumed sync runs it again: the kind keeps what it learns
    if not frontier.discovered:
        frontier.listing_complete = discovery.listing_complete
        frontier.listed = {
            loc.url for loc in discovery.locations if loc.via in (Via.SITEMAP, Via.FILE)
        }
        for seed in discovery.locations:
            frontier.add(seed)
        frontier.discovered = True
        errors.extend(discovery.errors)
        if not _save(sync=sync, claim_id=claim_id, frontier=frontier, counts=counts, errors=errors):
            return "claim_lost"
    known = Known.load(source=source)
    deadline = (sync.started_at or timezone.now()) + timedelta(
        seconds=settings.PARLEY_SOURCES_SYNC_BUDGET_SECONDS
    )
    while (location := frontier.next()) is not None:
        if timezone.now() >= deadline:
            errors.append(
                f"Time budget of {settings.PARLEY_SOURCES_SYNC_BUDGET_SECONDS} s reached with"
                f" {len(frontier.pending)} pages left (PARLEY_SOURCES_SYNC_BUDGET_SECONDS)."
            )
            break
        if not _page_run(
            sync=sync,
            source=source,
            kind=kind,
            location=location,
            claim_id=claim_id,
            frontier=frontier,
            known=known,
            counts=counts,
            errors=errors,
        ):
            return "claim_lost"
    retirement = pages_retire(source=source, frontier=frontier, counts=counts)
    counts.values["discovered"] = len(frontier.seen)
    finished = SourceSync.objects.filter(pk=sync.pk, claim_id=claim_id).update(
        status=SourceSync.Status.DONE,
        finished_at=timezone.now(),
        complete=not frontier.pending and frontier.cut == 0,
        counts=counts.values,
        frontier=frontier.to_json(),
        errors=errors[-50:],
        retirement=retirement,
        claim_id="",
    )
    return "done" if finished else "claim_lost"


def _page_run(
    *,
    sync: SourceSync,
    source: Source,
    kind: SourceKind,
    location: Location,
    claim_id: str,
    frontier: Frontier,
    known: Known,
    counts: SyncCounts,
    errors: list[str],
) -> bool:
    """Fetch one location and record its outcome; False when the claim was lost. A location already
    recorded under its canonical URL (reached first through a redirect stub or a canonical link) is
    not fetched again."""
    if location.url in frontier.done_urls:
        with transaction.atomic():
            frontier.done(location=location, canonical=location.url)
            return _save(
                sync=sync, claim_id=claim_id, frontier=frontier, counts=counts, errors=errors
            )
    stored = SourcePage.objects.filter(source=source, url=location.url).first()
    validators = (
        Validators(etag=stored.etag, last_modified=stored.last_modified)
        # Only a page whose document exists may be answered "not modified": one whose document was
        # deleted meanwhile (in the admin) is fetched whole and stored again.
        if stored is not None
        and stored.state == SourcePage.State.ACTIVE
        and stored.document_id is not None
        else Validators()
    )
    try:
        fetched = kind.fetch(location, validators)
    except (
        Exception
    ) as exc:  # the interface says a kind never raises; a bug still fails one page only
        logger.error("fetching %s failed unexpectedly", location.url, exc_info=exc)
        fetched = Fetched(location=location, outcome=Outcome.FAILED, reason="error")
    canonical = fetched.url or location.url
    decision: Decision | None = None
    if canonical not in frontier.done_urls:
        decision = page_decide(
            source=source,
            fetched=fetched,
            known=known,
            near_threshold=settings.PARLEY_SOURCES_NEAR_DUPLICATE,
        )
        if decision.action == Action.CHANGED and decision.page is not None:
            decision = _replaced(decision=decision, fetched=fetched, errors=errors)
    with transaction.atomic():
        if (
            not SourceSync.objects.select_for_update()
            .filter(pk=sync.pk, claim_id=claim_id)
            .exists()
        ):
            return False
        if decision is not None:
            page_apply(
                source=source,
                sync=sync,
                fetched=fetched,
                decision=decision,
                known=known,
                counts=counts,
            )
        frontier.done(location=location, canonical=canonical)
        for link in fetched.links:
            frontier.add(Location(url=link.url, depth=location.depth + 1, via=Via.LINK))
        _save(sync=sync, claim_id=claim_id, frontier=frontier, counts=counts, errors=errors)
    return True


def _replaced(*, decision: Decision, fetched: Fetched, errors: list[str]) -> Decision:
    """Replace the changed page's document now (outside any transaction: it embeds); a failure keeps
    the old document and counts as the page's failure."""
    assert decision.page is not None and decision.page.document_id is not None
    try:
        page_document_replace(document_id=decision.page.document_id, fetched=fetched)
    except (IngestError, EmbeddingError, ParleyError) as exc:
        code = getattr(exc, "code", "") or "ingest_failed"
        errors.append(f"{decision.url}: the new version could not be ingested ({exc})")
        return Decision(
            action=Action.FAILED, url=decision.url, page=decision.page, reason=f"ingest_{code}"
        )
    except Exception as exc:  # a bug must not stop the sync on this page at every redelivery
        logger.error("replacing %s failed unexpectedly", decision.url, exc_info=exc)
        errors.append(
            f"{decision.url}: the new version could not be ingested ({type(exc).__name__})"
        )
        return Decision(
            action=Action.FAILED,
            url=decision.url,
            page=decision.page,
            reason="ingest_internal_error",
        )
    return decision


def _save(
    *,
    sync: SourceSync,
    claim_id: str,
    frontier: Frontier,
    counts: SyncCounts,
    errors: list[str],
) -> bool:
    counts.values["discovered"] = len(frontier.seen)
    return bool(
        SourceSync.objects.filter(pk=sync.pk, claim_id=claim_id).update(
            frontier=frontier.to_json(),
            counts=counts.values,
            errors=errors[-50:],
            heartbeat_at=timezone.now(),
        )
    )


def _finish_failed(*, sync: SourceSync, claim_id: str, error: str) -> None:
    """The source could not be read at all: the sync fails saying why, and nothing is retired."""
    logger.warning("sync %s of source %s failed: %s", sync.pk, sync.source_id, error)
    SourceSync.objects.filter(pk=sync.pk, claim_id=claim_id).update(
        status=SourceSync.Status.FAILED,
        finished_at=timezone.now(),
        errors=[*(sync.errors or []), error][-50:],
        retirement="Nothing retired: the source could not be read.",
        claim_id="",
    )
