"""The sync engine's rules over a kind the tests drive (tests/sources/kinds.py): new pages become
documents keyed by their canonical URL, unchanged ones cost no embedding, changed ones are replaced in
place, copies are stored once, and only demonstrably gone pages are retired."""

from __future__ import annotations

import uuid

import pytest

from rag.models import Chunk, Document
from sources.models import SourcePage, SourceSync
from sources.services import source_sync_request
from sources.sync.runner import sync_run
from tests.sources.conftest import ingest_pending, sync_once
from tests.sources.kinds import Page, PagesKind

WARRANTY = "Every Acme kettle carries a warranty of seven years from the date of purchase."
RETURNS = "Return an unopened kettle within forty days of delivery for a full refund."
DESCALE = "Descale the kettle every ninety days with the Acme citric tablets."


def _site() -> dict[str, Page]:
    return {
        "https://docs.example.com/warranty": Page(text=f"# Warranty\n\n{WARRANTY}"),
        "https://docs.example.com/returns": Page(text=f"# Returns\n\n{RETURNS}"),
        "https://docs.example.com/descaling": Page(text=f"# Descaling\n\n{DESCALE}"),
    }


class EmbeddingCalls:
    """Counts the texts the workspace's embedding models are asked to embed (the real models run)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID, embedding_provider_get

        self.texts = 0
        for model_id in (LOCAL_MODEL_ID, MULTI_MODEL_ID):
            provider = embedding_provider_get(model_id=model_id)
            real = provider.embed_texts

            def counted(texts, _real=real):  # type: ignore[no-untyped-def]
                self.texts += len(list(texts))
                return _real(texts)

            monkeypatch.setattr(provider, "embed_texts", counted)


def _texts(document: Document) -> str:
    return " ".join(Chunk.objects.filter(document=document).values_list("text", flat=True))


@pytest.mark.django_db
def test_new_pages_become_documents_of_the_source_keyed_by_url(make_source, bot) -> None:
    source = make_source()
    sync = sync_once(source, PagesKind(_site()))
    assert sync.status == SourceSync.Status.DONE and sync.complete
    assert sync.counts["new"] == 3 and sync.counts["discovered"] == 3
    pages = {page.url: page for page in SourcePage.objects.filter(source=source)}
    assert set(pages) == set(_site())
    document = pages["https://docs.example.com/warranty"].document
    assert document is not None and document.status == Document.Status.READY
    assert document.source_url == "https://docs.example.com/warranty"
    assert document.title == "Warranty"  # the one title rule: the first heading
    assert list(document.bots.all()) == [bot]
    assert "seven years" in _texts(document)


@pytest.mark.django_db
def test_an_unchanged_resync_embeds_nothing(make_source, monkeypatch) -> None:
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    calls = EmbeddingCalls(monkeypatch)
    chunk_ids = set(Chunk.objects.values_list("pk", flat=True))
    # One page answers 304 to its ETag; another comes back whole with the same text re-spaced.
    site["https://docs.example.com/returns"] = Page(text=f"#  Returns\n\n\n{RETURNS}  ")
    second = sync_once(source, PagesKind(site))
    assert second.counts["unchanged"] == 3 and "new" not in second.counts
    assert "changed" not in second.counts
    assert calls.texts == 0
    assert set(Chunk.objects.values_list("pk", flat=True)) == chunk_ids


@pytest.mark.django_db
def test_a_changed_page_is_replaced_in_its_document(make_source, monkeypatch) -> None:
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    page = SourcePage.objects.get(url="https://docs.example.com/warranty")
    document_id = page.document_id
    site["https://docs.example.com/warranty"] = Page(
        text="# Warranty\n\nEvery Acme kettle now carries a warranty of ten years, parts and labour."
    )
    calls = EmbeddingCalls(monkeypatch)
    sync = sync_once(source, PagesKind(site))
    assert sync.counts["changed"] == 1 and sync.counts["unchanged"] == 2
    page.refresh_from_db()
    assert page.document_id == document_id  # the same document, its content swapped
    document = Document.objects.get(pk=document_id)
    assert document.status == Document.Status.READY
    assert "ten years" in _texts(document) and "seven years" not in _texts(document)
    assert calls.texts > 0
    assert Document.objects.filter(workspace=source.workspace).count() == 3


@pytest.mark.django_db
def test_a_page_gone_twice_is_retired_with_its_chunks(make_source) -> None:
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    page = SourcePage.objects.get(url="https://docs.example.com/returns")
    document_id = page.document_id
    site["https://docs.example.com/returns"] = Page(text="", fault="gone")
    first = sync_once(source, PagesKind(site))
    page.refresh_from_db()
    assert first.counts["gone"] == 1 and first.counts["retired"] == 0
    assert page.state == SourcePage.State.ACTIVE and page.document_id == document_id
    second = sync_once(source, PagesKind(site))
    page.refresh_from_db()
    assert second.counts["retired"] == 1
    assert page.state == SourcePage.State.RETIRED and page.document_id is None
    assert not Document.objects.filter(pk=document_id).exists()
    assert not Chunk.objects.filter(document_id=document_id).exists()


@pytest.mark.django_db
def test_a_gone_page_that_comes_back_starts_counting_again(make_source) -> None:
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    url = "https://docs.example.com/returns"
    live = site[url]
    site[url] = Page(text="", fault="gone")
    sync_once(source, PagesKind(site))
    site[url] = live
    sync_once(source, PagesKind(site))
    site[url] = Page(text="", fault="gone")
    sync = sync_once(source, PagesKind(site))
    assert sync.counts["retired"] == 0
    assert SourcePage.objects.get(url=url).state == SourcePage.State.ACTIVE


@pytest.mark.django_db
def test_a_sync_with_30_percent_timeouts_retires_nothing(make_source, settings) -> None:
    settings.PARLEY_SOURCES_MAX_FAILURE_SHARE = 0.1
    source = make_source()
    site = {
        f"https://docs.example.com/page-{n}": Page(
            text=f"# Page {n}\n\nFact number {n} is {n * 7}."
        )
        for n in range(10)
    }
    sync_once(source, PagesKind(site))
    before = set(Document.objects.values_list("pk", flat=True))
    for n in range(3):
        site[f"https://docs.example.com/page-{n}"] = Page(text="", fault="timeout")
    # A page already gone once, and now gone again, would be retired on a healthy day.
    for _ in range(2):
        site["https://docs.example.com/page-9"] = Page(text="", fault="gone")
        sync = sync_once(source, PagesKind(site))
    assert sync.counts["failed"] == {"timeout": 3}
    assert sync.counts.get("retired", 0) == 0
    assert "Nothing retired: 3 of 10 fetches failed (30%)" in sync.retirement
    assert set(Document.objects.values_list("pk", flat=True)) == before
    assert SourcePage.objects.filter(state=SourcePage.State.RETIRED).count() == 0


@pytest.mark.django_db
def test_a_timeout_alone_never_retires_a_page(make_source, settings) -> None:
    settings.PARLEY_SOURCES_MAX_FAILURE_SHARE = 0.5
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    for fault in ("timeout", "http_5xx", "dns", "refused"):
        site["https://docs.example.com/returns"] = Page(text="", fault=fault)
        sync = sync_once(source, PagesKind(site))
        assert sync.counts["failed"] == {fault: 1}
    page = SourcePage.objects.get(url="https://docs.example.com/returns")
    assert page.state == SourcePage.State.ACTIVE and page.document is not None


@pytest.mark.django_db
def test_absent_pages_retire_only_after_a_clean_complete_crawl(make_source) -> None:
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    removed = site.pop("https://docs.example.com/descaling")
    # Listing incomplete (no sitemap read whole): the absent page is kept.
    kept = sync_once(source, PagesKind(site, listed=False))
    assert kept.counts["retired"] == 0 and "the listing was not read whole" in kept.retirement
    # A failure during the crawl: kept too.
    site["https://docs.example.com/returns"] = Page(text="", fault="timeout")
    with_failure = sync_once(source, PagesKind(site))
    assert with_failure.counts.get("retired", 0) == 0
    # Clean and complete: retired.
    site["https://docs.example.com/returns"] = Page(text=f"# Returns\n\n{RETURNS}")
    clean = sync_once(source, PagesKind(site))
    assert clean.counts["retired"] == 1
    page = SourcePage.objects.get(url="https://docs.example.com/descaling")
    assert page.state == SourcePage.State.RETIRED and removed.text


@pytest.mark.django_db
def test_copies_and_near_copies_are_stored_once(make_source) -> None:
    source = make_source()
    long_text = " ".join(
        f"Sentence {n} explains one detail of the kettle's heating plate." for n in range(60)
    )
    site = {
        "https://docs.example.com/guide": Page(text=f"# Guide\n\n{long_text}"),
        "https://docs.example.com/guide-print": Page(text=f"# Guide\n\n{long_text}"),
        "https://docs.example.com/guide-2024": Page(text=f"# Guide\n\n{long_text} Updated 2024."),
        "https://docs.example.com/warranty": Page(text=f"# Warranty\n\n{WARRANTY}"),
    }
    sync = sync_once(source, PagesKind(site))
    assert sync.counts["new"] == 2 and sync.counts["skipped"] == {"duplicate_of": 2}
    skipped = SourcePage.objects.filter(state=SourcePage.State.SKIPPED)
    assert {page.reason for page in skipped} == {"duplicate_of: https://docs.example.com/guide"}
    assert all(page.document_id is None for page in skipped)
    assert Document.objects.filter(workspace=source.workspace).count() == 2


@pytest.mark.django_db
def test_skipped_pages_are_recorded_with_their_reason_and_no_document(make_source) -> None:
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    site["https://docs.example.com/returns"] = Page(text="", fault="login_wall")
    site["https://docs.example.com/missing"] = Page(text="", fault="soft_404")
    site["https://docs.example.com/shell"] = Page(text="   ")
    sync = sync_once(source, PagesKind(site))
    assert sync.counts["skipped"] == {"login_wall": 1, "soft_404": 1, "empty": 1}
    reasons = dict(
        SourcePage.objects.filter(state=SourcePage.State.SKIPPED).values_list("url", "reason")
    )
    assert reasons == {
        "https://docs.example.com/returns": "login_wall",
        "https://docs.example.com/missing": "soft_404",
        "https://docs.example.com/shell": "empty",
    }
    assert Document.objects.filter(workspace=source.workspace).count() == 2


@pytest.mark.django_db
def test_links_are_followed_to_the_depth_and_the_page_cap(make_source) -> None:
    source = make_source(config={"max_pages": 3, "max_depth": 2})
    site = {
        "https://docs.example.com/": Page(
            text="# Home\n\nThe home page of the Acme docs.",
            links=("https://docs.example.com/a", "https://docs.example.com/b"),
        ),
        "https://docs.example.com/a": Page(
            text="# A\n\nPage A tells about filters.", links=("https://docs.example.com/deep",)
        ),
        "https://docs.example.com/b": Page(
            text="# B\n\nPage B tells about lids.", links=("https://docs.example.com/c",)
        ),
        "https://docs.example.com/deep": Page(text="# Deep\n\nToo deep to reach."),
        "https://docs.example.com/c": Page(text="# C\n\nPast the cap."),
    }
    kind = PagesKind({"https://docs.example.com/": site["https://docs.example.com/"]}, listed=False)
    kind.pages = site  # discovery knows the start page only; the rest are links
    kind.discover = lambda: PagesKind(  # type: ignore[method-assign]
        {"https://docs.example.com/": site["https://docs.example.com/"]}, listed=False
    ).discover()
    sync = sync_once(source, kind)
    assert sorted(kind.fetches) == sorted(
        ["https://docs.example.com/", "https://docs.example.com/a", "https://docs.example.com/b"]
    )
    assert not sync.complete  # the cap cut links off: absent pages may not be retired
    assert sync.frontier["cut"] == 2
    # Within the cap, a link past the depth is not followed, and the crawl is complete.
    shallow = make_source(config={"max_pages": 10, "max_depth": 1})
    kind.fetches = []
    sync = sync_once(shallow, kind)
    assert "https://docs.example.com/deep" not in kind.fetches and sync.complete


@pytest.mark.django_db
def test_one_active_sync_per_source(make_source) -> None:
    source = make_source()
    first, created = source_sync_request(source=source)
    again, created_again = source_sync_request(source=source)
    assert created and not created_again and again.pk == first.pk
    assert SourceSync.objects.filter(source=source).count() == 1


class _Killed(BaseException):
    """Stands for the worker's death: nothing after it runs, no handler catches it."""


@pytest.mark.django_db
def test_a_sync_killed_mid_crawl_resumes_without_duplicates(make_source) -> None:
    source = make_source()
    site = {
        f"https://docs.example.com/page-{n}": Page(
            text=f"# Page {n}\n\nFact number {n} is {n * 7}."
        )
        for n in range(8)
    }
    sync, _ = source_sync_request(source=source)
    claim = f"task-{uuid.uuid4().hex[:8]}"
    dying = PagesKind(site)

    def die_at_fifth(url: str) -> None:
        if len(dying.fetches) == 4:
            raise _Killed

    dying.before_fetch = die_at_fifth
    with pytest.raises(_Killed):
        sync_run(sync_id=sync.pk, claim_id=claim, kind=dying)
    sync.refresh_from_db()
    assert sync.status == SourceSync.Status.RUNNING and len(sync.frontier["pending"]) == 4
    assert SourcePage.objects.filter(source=source).count() == 4
    # The message is redelivered with the same id: the same claim resumes from the stored frontier.
    resumed = PagesKind(site)
    assert sync_run(sync_id=sync.pk, claim_id=claim, kind=resumed) == "done"
    ingest_pending(source)
    assert sorted(dying.fetches + resumed.fetches) == sorted(site)
    sync.refresh_from_db()
    assert sync.counts["new"] == 8 and sync.status == SourceSync.Status.DONE
    assert Document.objects.filter(workspace=source.workspace).count() == 8
    assert SourcePage.objects.filter(source=source).count() == 8


@pytest.mark.django_db
def test_another_worker_cannot_take_a_live_sync(make_source) -> None:
    source = make_source()
    sync, _ = source_sync_request(source=source)
    site = _site()
    thief = PagesKind(site)

    def steal(url: str) -> None:
        assert sync_run(sync_id=sync.pk, claim_id="another", kind=thief) == "not_claimed"

    owner = PagesKind(site, before_fetch=steal)
    assert sync_run(sync_id=sync.pk, claim_id="owner", kind=owner) == "done"
    assert thief.fetches == []


@pytest.mark.django_db
def test_beat_dispatches_scheduled_sources_when_due(make_source) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from sources.services import sources_due_dispatch

    scheduled = make_source()
    scheduled.schedule_minutes = 60
    scheduled.save()
    make_source()  # on demand only
    assert sources_due_dispatch() == 1
    assert sources_due_dispatch() == 0  # one is queued already
    sync = SourceSync.objects.get(source=scheduled)
    assert sync.trigger == "schedule"
    SourceSync.objects.filter(pk=sync.pk).update(
        status=SourceSync.Status.DONE, queued_at=timezone.now() - timedelta(minutes=30)
    )
    assert sources_due_dispatch() == 0  # not due for another half hour
    SourceSync.objects.filter(pk=sync.pk).update(queued_at=timezone.now() - timedelta(minutes=61))
    assert sources_due_dispatch() == 1


@pytest.mark.django_db
def test_a_page_whose_document_was_deleted_is_stored_again(make_source) -> None:
    from rag.services import document_delete

    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))
    page = SourcePage.objects.get(url="https://docs.example.com/returns")
    document_delete(document_id=page.document_id)  # an admin deleted it by hand
    sync = sync_once(source, PagesKind(site))
    page.refresh_from_db()
    assert sync.counts["new"] == 1 and sync.counts["unchanged"] == 2
    assert page.document is not None and page.document.status == Document.Status.READY


@pytest.mark.django_db
def test_a_kind_that_raises_fails_that_page_only(make_source) -> None:
    source = make_source()
    site = _site()
    sync_once(source, PagesKind(site))

    def broken(url: str) -> None:
        if url.endswith("/returns"):
            raise RuntimeError("a bug in the kind")

    sync = sync_once(source, PagesKind(site, before_fetch=broken))
    assert sync.status == SourceSync.Status.DONE
    assert sync.counts["failed"] == {"error": 1} and sync.counts["unchanged"] == 2
    page = SourcePage.objects.get(url="https://docs.example.com/returns")
    assert page.state == SourcePage.State.ACTIVE and page.document is not None


@pytest.mark.django_db
def test_a_page_reached_through_a_redirect_stub_is_fetched_and_counted_once(make_source) -> None:
    source = make_source()
    site = {
        # listed first: a stub whose canonical URL is the warranty page, listed after it
        "https://docs.example.com/old-warranty": Page(
            text=f"# Warranty\n\n{WARRANTY}", canonical="https://docs.example.com/warranty"
        ),
        **_site(),
    }
    kind = PagesKind(site)
    sync = sync_once(source, kind)
    assert sync.counts["new"] == 3 and "unchanged" not in sync.counts
    assert "https://docs.example.com/warranty" not in kind.fetches
    assert not SourcePage.objects.filter(url="https://docs.example.com/old-warranty").exists()
