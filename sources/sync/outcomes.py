"""One fetched location's outcome, decided against the stored page (`page_decide`: new, changed,
unchanged, a copy of another page, skipped, failed, gone) and then recorded (`page_apply`) in the
transaction that also advances the frontier.

Unchanged text costs nothing: its hash equals the stored one, so no document is touched and nothing is
embedded. A near-copy of another active page is skipped as `duplicate_of` that page; a skipped page
keeps no document. A failure (timeout, 5xx, DNS, refused) leaves the page and its document as they
were; a 404/410 only counts towards retirement (sources.sync.retire)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from sources.kinds.base import Fetched, Outcome
from sources.models import Source, SourcePage, SourceSync
from sources.sync.documents import page_document_create, page_document_delete
from sources.sync.duplicates import near_copy_of, text_hash, text_sketch


class Action(enum.StrEnum):
    NEW = "new"
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"  # not knowledge (the kind's reason), empty, or a copy of another page
    FAILED = "failed"
    GONE = "gone"


@dataclass
class SyncCounts:
    """The sync's counts as stored (`SourceSync.counts`)."""

    values: dict[str, object] = field(default_factory=dict)

    def add(self, key: str, reason: str = "") -> None:
        if reason:
            by_reason = self.values.setdefault(key, {})
            assert isinstance(by_reason, dict)
            by_reason[reason] = int(by_reason.get(reason, 0)) + 1
        else:
            self.values[key] = int(str(self.values.get(key, 0))) + 1

    def total(self, key: str) -> int:
        value = self.values.get(key, 0)
        return sum(value.values()) if isinstance(value, dict) else int(str(value))


@dataclass
class Known:
    """The source's active pages, kept in memory for the whole sync: text hash → URL, URL → sketch."""

    hashes: dict[str, str]
    sketches: dict[str, list[int]]

    @classmethod
    def load(cls, *, source: Source) -> Known:
        rows = SourcePage.objects.filter(source=source, state=SourcePage.State.ACTIVE).values_list(
            "url", "text_hash", "sketch"
        )
        return cls(
            hashes={digest: url for url, digest, _ in rows if digest},
            sketches={url: sketch for url, _, sketch in rows if sketch},
        )

    def forget(self, url: str) -> None:
        self.sketches.pop(url, None)
        for digest in [digest for digest, owner in self.hashes.items() if owner == url]:
            del self.hashes[digest]

    def remember(self, *, url: str, digest: str, sketch: list[int]) -> None:
        self.forget(url)
        self.hashes[digest] = url
        self.sketches[url] = sketch


@dataclass
class Decision:
    action: Action
    url: str
    page: SourcePage | None
    reason: str = ""  # a stable code for the counts
    detail: str = ""  # for people: the URL it copies, the failure's words
    digest: str = ""
    sketch: list[int] = field(default_factory=list)


def page_decide(
    *, source: Source, fetched: Fetched, known: Known, near_threshold: float
) -> Decision:
    url = fetched.url or fetched.location.url
    page = SourcePage.objects.filter(source=source, url=url).first()
    has_document = page is not None and page.document_id is not None
    if fetched.outcome == Outcome.FAILED:
        return Decision(action=Action.FAILED, url=url, page=page, reason=fetched.reason or "failed")
    if fetched.outcome == Outcome.GONE:
        return Decision(action=Action.GONE, url=url, page=page, reason="gone")
    if fetched.outcome == Outcome.SKIPPED:
        return Decision(
            action=Action.SKIPPED, url=url, page=page, reason=fetched.reason or "skipped"
        )
    if fetched.outcome == Outcome.NOT_MODIFIED:
        if page is not None and page.state == SourcePage.State.SKIPPED:
            return Decision(
                action=Action.SKIPPED, url=url, page=page, reason=page.reason.split(":", 1)[0]
            )
        return Decision(action=Action.UNCHANGED, url=url, page=page)
    text = fetched.text or fetched.content.decode("utf-8", "replace")
    digest = text_hash(text)
    if not text.strip():
        return Decision(action=Action.SKIPPED, url=url, page=page, reason="empty")
    if has_document and page is not None and page.text_hash == digest:
        return Decision(
            action=Action.UNCHANGED, url=url, page=page, digest=digest, sketch=page.sketch
        )
    sketch = text_sketch(text)
    holder = known.hashes.get(digest, "")
    if holder == url:
        holder = ""
    others = {other: value for other, value in known.sketches.items() if other != url}
    copied = holder or near_copy_of(sketch, others, threshold=near_threshold)
    if copied:
        return Decision(
            action=Action.SKIPPED, url=url, page=page, reason="duplicate_of", detail=copied
        )
    action = Action.CHANGED if has_document else Action.NEW
    return Decision(action=action, url=url, page=page, digest=digest, sketch=sketch)


def page_apply(
    *,
    source: Source,
    sync: SourceSync,
    fetched: Fetched,
    decision: Decision,
    known: Known,
    counts: SyncCounts,
) -> None:
    """Record the decision (inside the caller's transaction): the page row, its document, the counts."""
    page = decision.page or SourcePage(source=source, url=decision.url)
    action = decision.action
    if action == Action.FAILED:
        counts.add("failed", decision.reason)
        if page.pk is None:
            page.state = SourcePage.State.FAILED
        page.reason = f"fetch_failed: {decision.reason}"
        page.save()
        return
    page.last_seen_sync = sync
    if action == Action.GONE:
        counts.add("gone")
        page.gone_count += 1
        page.reason = f"gone: HTTP {fetched.status or 404}"
        if page.document_id is None:
            page.state = SourcePage.State.RETIRED
        page.save()
        return
    page.gone_count = 0
    if action == Action.SKIPPED:
        counts.add("skipped", decision.reason)
        _skip(page=page, decision=decision, known=known)
        return
    if action == Action.UNCHANGED:
        counts.add("unchanged")
        if fetched.outcome == Outcome.FETCHED:
            page.etag, page.last_modified = (
                fetched.validators.etag,
                fetched.validators.last_modified,
            )
        page.save()
        return
    if action == Action.NEW:
        counts.add("new")
        page.document = page_document_create(source=source, url=decision.url, fetched=fetched)
    else:
        counts.add("changed")  # its document was replaced before this transaction
    page.state = SourcePage.State.ACTIVE
    page.reason = ""
    page.title = fetched.title[:300]
    page.text_hash, page.sketch = decision.digest, decision.sketch
    page.etag, page.last_modified = fetched.validators.etag, fetched.validators.last_modified
    page.save()
    known.remember(url=decision.url, digest=decision.digest, sketch=decision.sketch)


def _skip(*, page: SourcePage, decision: Decision, known: Known) -> None:
    """Not knowledge: recorded with its reason, and no document (one it had is deleted with its chunks).
    No validators are kept, so the next sync looks at the page afresh."""
    document_id = page.document_id
    page.state = SourcePage.State.SKIPPED
    page.reason = f"{decision.reason}: {decision.detail}" if decision.detail else decision.reason
    page.document = None
    page.etag = page.last_modified = ""
    page.text_hash, page.sketch = "", []
    page.save()
    known.forget(page.url)
    if document_id is not None:
        page_document_delete(document_id=document_id)
