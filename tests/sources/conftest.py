"""Sources' fixtures: a workspace and bot, a source, a sync run in this process with its new documents
ingested by the real ingestion service, and a local Git repository the test writes."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from bots.models import Bot
from core.models import Workspace
from rag.models import Document
from sources.kinds.base import SourceKind
from sources.models import Source, SourceSync
from sources.services import source_create, source_sync_request
from sources.sync.runner import sync_run
from tests.rag.conftest import bot as bot  # the same workspace and bot as ingestion's tests
from tests.rag.conftest import workspace as workspace
from tests.support.knowledge import document_ingested_ready


@pytest.fixture
def make_source(workspace: Workspace, bot: Bot) -> Callable[..., Source]:
    def make(kind: str = "website", config: dict | None = None) -> Source:
        config = config if config is not None else {}
        if kind == "website" and not ({"start_urls", "sitemap_urls"} & set(config)):
            # the test kind stands in for the site: a valid website's settings
            config = {"start_urls": ["https://docs.example.com/"], **config}
        return source_create(workspace=workspace, name="Docs", kind=kind, config=config, bots=[bot])

    return make


def sync_once(source: Source, kind: SourceKind | None = None) -> SourceSync:
    """One sync, run here under a claim of its own, then its new pages ingested as a worker would."""
    sync, created = source_sync_request(source=source)
    assert created
    outcome = sync_run(sync_id=sync.pk, claim_id=f"test-{uuid.uuid4().hex[:8]}", kind=kind)
    assert outcome in ("done", "failed"), outcome
    ingest_pending(source)
    sync.refresh_from_db()
    return sync


def ingest_pending(source: Source) -> None:
    """Every new page's document ends ready: ingested here, or waited for when a running session worker
    (a transactional test's commit queued the task) has claimed it first."""
    for document in Document.objects.filter(
        source_page__source=source,
        status__in=[Document.Status.PENDING, Document.Status.PROCESSING],
    ):
        document_ingested_ready(document)


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=Tests", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def docs_repo(tmp_path: Path) -> Path:
    """A docs-as-code repository: MkDocs-style Markdown under docs/, and a file outside it."""
    repo = tmp_path / "repo"
    (repo / "docs" / "guide").mkdir(parents=True)
    (repo / "docs" / "index.md").write_text("# Welcome\n\nThe Acme handbook for every new owner.\n")
    (repo / "docs" / "guide" / "warranty.md").write_text(
        "# Warranty\n\nEvery Acme kettle carries a warranty of seven years from the date of purchase.\n"
    )
    (repo / "docs" / "guide" / "returns.mdx").write_text(
        "# Returns\n\nReturn an unopened kettle within forty days for a full refund.\n"
    )
    (repo / "docs" / "api.rst").write_text(
        "API\n===\n\nThe descaling schedule is every ninety days.\n"
    )
    (repo / "README.md").write_text("# Repository\n\nNot part of the docs.\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "docs")
    return repo


@pytest.fixture
def checkouts(settings: pytest.FixtureRequest, tmp_path: Path) -> Path:
    settings.PARLEY_SOURCES_CHECKOUTS = tmp_path / "checkouts"  # type: ignore[attr-defined]
    return tmp_path / "checkouts"
