"""The Git kind on a local repository the test makes: docs-as-code files become pages linked to their
published URLs, an unchanged re-sync reads no file and embeds nothing, an edited file is replaced and a
deleted one retired (the tree is a complete listing), and a repository that does not exist fails the
sync clearly without retiring anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.models import Chunk, Document
from sources.models import SourcePage, SourceSync
from tests.sources.conftest import git, sync_once
from tests.sources.test_sync import EmbeddingCalls


@pytest.mark.django_db
def test_a_repository_of_docs_syncs_to_its_published_pages(
    make_source, docs_repo: Path, checkouts: Path, monkeypatch
) -> None:
    source = make_source(
        kind="git",
        config={
            "repository_url": str(docs_repo),
            "branch": "main",
            "path": "docs",
            "base_url": "https://docs.acme.example/",
        },
    )
    first = sync_once(source)
    assert first.status == SourceSync.Status.DONE, first.errors
    urls = set(SourcePage.objects.filter(source=source).values_list("url", flat=True))
    assert urls == {
        "https://docs.acme.example/",
        "https://docs.acme.example/guide/warranty",
        "https://docs.acme.example/guide/returns",
        "https://docs.acme.example/api",
    }
    warranty = Document.objects.get(source_url="https://docs.acme.example/guide/warranty")
    assert warranty.title == "Warranty" and warranty.status == Document.Status.READY
    assert first.counts["new"] == 4

    calls = EmbeddingCalls(monkeypatch)
    second = sync_once(source)
    assert second.counts["unchanged"] == 4 and calls.texts == 0

    (docs_repo / "docs" / "guide" / "warranty.md").write_text(
        "# Warranty\n\nEvery Acme kettle now carries a warranty of ten years.\n"
    )
    (docs_repo / "docs" / "api.rst").unlink()
    git(docs_repo, "add", "-A")
    git(docs_repo, "commit", "-qm", "edit")
    third = sync_once(source)
    assert third.counts["changed"] == 1 and third.counts["retired"] == 1
    assert third.counts["unchanged"] == 2
    warranty.refresh_from_db()
    texts = " ".join(Chunk.objects.filter(document=warranty).values_list("text", flat=True))
    assert "ten years" in texts and "seven years" not in texts
    api = SourcePage.objects.get(url="https://docs.acme.example/api")
    assert api.state == SourcePage.State.RETIRED and api.document is None


@pytest.mark.django_db
def test_without_a_base_url_each_page_links_to_its_file(
    make_source, docs_repo: Path, checkouts: Path
) -> None:
    source = make_source(kind="git", config={"repository_url": str(docs_repo), "path": "docs"})
    sync_once(source)
    urls = set(SourcePage.objects.filter(source=source).values_list("url", flat=True))
    assert f"{docs_repo}/blob/main/docs/guide/warranty.md" in urls
    assert f"{docs_repo}/blob/main/docs/index.md" in urls


@pytest.mark.django_db
def test_a_repository_that_does_not_exist_fails_the_sync_and_retires_nothing(
    make_source, docs_repo: Path, checkouts: Path, tmp_path: Path
) -> None:
    source = make_source(kind="git", config={"repository_url": str(docs_repo), "path": "docs"})
    sync_once(source)
    source.config["repository_url"] = str(tmp_path / "no-such-repository")
    source.save()
    # A new checkout folder: the URL changed, so the kind clones afresh and finds nothing.
    failed = sync_once(source)
    assert failed.status == SourceSync.Status.FAILED
    assert "could not be fetched" in failed.errors[-1]
    assert "Nothing retired" in failed.retirement
    assert SourcePage.objects.filter(source=source, state=SourcePage.State.ACTIVE).count() == 4


@pytest.mark.django_db
def test_a_branch_that_does_not_exist_is_a_clear_error(
    make_source, docs_repo: Path, checkouts: Path
) -> None:
    source = make_source(
        kind="git", config={"repository_url": str(docs_repo), "branch": "gh-pages"}
    )
    failed = sync_once(source)
    assert failed.status == SourceSync.Status.FAILED
    assert "has no branch 'gh-pages'" in failed.errors[-1]
