"""A source of knowledge (a website, a Git repository of docs), the pages it found with what the last
fetch said of each, and its syncs with their counts and their stored frontier.

A source owns its pages' documents: `SourcePage.document`, one page per canonical URL and source (the
unique constraint), one document per page. Invariants live in the database: one unique URL per source,
one queued or running sync per source (a partial unique constraint), a page with a document is active.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from bots.models import Bot
from core.models import Workspace
from rag.models import Document


class Source(models.Model):
    class Kind(models.TextChoices):
        WEBSITE = "website", "Website"
        GIT = "git", "Git repository of Markdown docs"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sources")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    config = models.JSONField(
        default=dict,
        blank=True,
        help_text="The kind's settings. Git: repository_url, branch, path, base_url. Website: "
        "start_urls, sitemap_urls, include, exclude, max_pages, max_depth, render_javascript.",
    )
    # A header or basic auth for a protected site, as the channels' secrets: write-only in the admin,
    # never logged, never in the API's answers.
    credentials = models.JSONField(default=dict, blank=True, editable=False)
    # The bots that know the source's pages, as a document's bots (its pages' documents get these).
    bots = models.ManyToManyField(Bot, blank=True, related_name="sources")
    schedule_minutes = models.PositiveIntegerField(
        default=0, help_text="Sync every this many minutes; 0 syncs only when asked."
    )
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["website", "git"]), name="source_kind_known"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class SourceSync(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="syncs")
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    trigger = models.CharField(max_length=20, default="manual")  # manual | schedule | api
    claim_id = models.CharField(max_length=64, blank=True, help_text="Celery task id running it.")
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # {discovered, new, changed, unchanged, retired, skipped: {reason: n}, failed: {reason: n}}
    counts = models.JSONField(default=dict, blank=True)
    # The crawl's state, written with each page's outcome in one transaction: a redelivered task
    # resumes here and never fetches a page twice (sources.sync.frontier).
    frontier = models.JSONField(default=dict, blank=True)
    complete = models.BooleanField(
        default=False, help_text="Every page of the frontier was fetched (no budget or cap cut it)."
    )
    errors = models.JSONField(default=list, blank=True)
    retirement = models.TextField(
        blank=True, help_text="Why pages were, or were not, retired at the end of the sync."
    )

    class Meta:
        ordering = ["-queued_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["source"],
                condition=Q(status__in=["queued", "running"]),
                name="source_sync_one_active",
            ),
            models.CheckConstraint(
                condition=~Q(status="running") | ~Q(claim_id=""), name="source_sync_running_claimed"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source} sync {self.queued_at:%Y-%m-%d %H:%M}"

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class SourcePage(models.Model):
    class State(models.TextChoices):
        ACTIVE = "active", "Active"
        SKIPPED = "skipped", "Skipped"
        FAILED = "failed", "Failed"
        RETIRED = "retired", "Retired"

    id = models.BigAutoField(primary_key=True)
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="pages")
    url = models.CharField(max_length=2000, help_text="The canonical URL: the page's key.")
    document = models.OneToOneField(
        Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="source_page"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.ACTIVE)
    reason = models.CharField(max_length=300, blank=True)
    title = models.CharField(max_length=300, blank=True)
    etag = models.CharField(max_length=300, blank=True)
    last_modified = models.CharField(max_length=100, blank=True)
    text_hash = models.CharField(max_length=64, blank=True)
    # The bottom-k MinHash of the text's word shingles (sources.sync.duplicates): near-copies.
    sketch = models.JSONField(default=list, blank=True)
    gone_count = models.PositiveSmallIntegerField(
        default=0, help_text="Syncs in a row that found it gone (404/410)."
    )
    last_seen_sync = models.ForeignKey(
        SourceSync, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["url"]
        constraints = [
            models.UniqueConstraint(fields=["source", "url"], name="source_page_unique_url"),
            models.CheckConstraint(
                condition=Q(document__isnull=True) | Q(state="active"),
                name="source_page_document_active",
            ),
        ]

    def __str__(self) -> str:
        return self.url
