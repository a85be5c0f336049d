"""A website source synced three times from a local copy of a real published site, through the product
(the website kind, the sync engine, ingestion with the real embedding models, in this process).

    .venv/bin/python manage.py migrate
    .venv/bin/python -m bench.sources /work/shared/sites/pi-hole-docs [--production https://docs.pi-hole.net]

The copy is served on 127.0.0.1 under a made-up name (the kind's resolver maps it; the allow-list names
127.0.0.1), with the production origin rewritten while serving. The source's start URLs are the home page,
every redirect stub and the 404 page (so the crawl meets them); the sitemap comes from /sitemap.xml.
Prints, with the load average: pages found against the sitemap, pages per second (beside plain GETs of the
same URLs), chunks and the share repeated across pages (beside the full pages' text), time to the first
searchable page and to every sitemap page, the second sync's embedding calls, the third sync's counts
after 5 edits and 5 deletions, the stubs and 404 page stored as no document, and the cost of rendering.
A temporary workspace holds everything and is deleted at the end."""

from __future__ import annotations

import argparse
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["PARLEY_SOURCES_ALLOWED_NETWORKS"] = "127.0.0.1/32"
    os.environ.setdefault("PARLEY_WARM_UP", "0")
    import django

    django.setup()
    from config.celery import app

    # The engine queues its tasks after commit; no worker reads this queue: this process does the work.
    app.conf.task_default_queue = "parley-bench-sources"
    app.conf.task_routes = {}


class Ingester(threading.Thread):
    """A worker's ingestion, in a thread: ingests the workspace's pending documents as they appear."""

    def __init__(self, workspace_id: Any) -> None:
        super().__init__(daemon=True)
        self.workspace_id = workspace_id
        self.stop = threading.Event()
        self.first_ready_at: float | None = None

    def run(self) -> None:
        from django.db import connection

        from rag.ingestion import document_ingest
        from rag.models import Document

        try:
            while not self.stop.is_set():
                pending = list(
                    Document.objects.filter(
                        workspace_id=self.workspace_id, status=Document.Status.PENDING
                    )
                    .order_by("created_at")
                    .values_list("pk", flat=True)[:8]
                )
                if not pending:
                    time.sleep(0.05)
                    continue
                for pk in pending:
                    outcome = document_ingest(
                        document_id=str(pk), claim_id=f"bench-{uuid.uuid4().hex[:8]}"
                    )
                    if outcome == "ready" and self.first_ready_at is None:
                        self.first_ready_at = time.monotonic()
        finally:
            connection.close()

    def idle(self, timeout: float = 600) -> None:
        from rag.models import Document

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            busy = Document.objects.filter(
                workspace_id=self.workspace_id,
                status__in=[Document.Status.PENDING, Document.Status.PROCESSING],
            ).exists()
            if not busy:
                return
            time.sleep(0.1)


class EmbeddingCalls:
    def __init__(self) -> None:
        from textmodels.embeddings import LOCAL_MODEL_ID, MULTI_MODEL_ID, embedding_provider_get

        self.calls = 0
        self.texts = 0
        for model_id in (LOCAL_MODEL_ID, MULTI_MODEL_ID):
            provider = embedding_provider_get(model_id=model_id)
            real = provider.embed_texts

            def counted(texts: Any, _real: Any = real) -> Any:
                batch = list(texts)
                self.calls += 1
                self.texts += len(batch)
                return _real(batch)

            provider.embed_texts = counted  # type: ignore[method-assign]


def _sync(source: Any, kind: Any, ingester: Ingester) -> tuple[Any, float, float]:
    """One sync through the engine; (the sync, crawl seconds, seconds until every document is ready)."""
    from sources.models import SourceSync
    from sources.services import source_sync_request
    from sources.sync.runner import sync_run

    sync, _ = source_sync_request(source=source)
    started = time.monotonic()
    sync_run(sync_id=sync.pk, claim_id=f"bench-{uuid.uuid4().hex[:8]}", kind=kind)
    crawled = time.monotonic() - started
    ingester.idle()
    return SourceSync.objects.get(pk=sync.pk), crawled, time.monotonic() - started


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "site", type=Path, help="A published static site's folder (sitemap.xml, 404.html)."
    )
    parser.add_argument(
        "--production", default="https://docs.pi-hole.net", help="The origin its files name."
    )
    parser.add_argument(
        "--host", default="docs.pi-hole.test", help="The made-up name it is served under."
    )
    parser.add_argument(
        "--render-pages", type=int, default=10, help="Pages rendered in Chromium (0: none)."
    )
    args = parser.parse_args()
    _setup()
    from bench.sources.figures import print_report
    from bench.sources.site import LocalSite

    # As a worker does before it takes tasks (worker_init): the models and the pipeline loaded, so the
    # time to the first searchable page is the sync's, not the first import's.
    from conversations.warmup import process_warm_up
    from rag.tasks import ingestion_preload

    ingestion_preload()
    process_warm_up()
    print(f"load average at start: {_load()}")
    site = LocalSite(source=args.site, production=args.production, host=args.host)
    try:
        print_report(run(site=site, args=args))
    finally:
        site.close()
    print(f"load average at end: {_load()}")


def run(*, site: Any, args: argparse.Namespace) -> dict[str, Any]:
    from bench.sources.edits import page_edit, pages_delete, redirect_stubs, sitemap_paths
    from bench.sources.figures import baseline_get_rate, chunk_figures, render_cost
    from bots.models import Bot
    from core.models import Workspace
    from sources.models import Source, SourcePage
    from sources.services import source_create, source_delete
    from sources.website import website_kind

    def resolve(host: str, port: int) -> list[str]:
        """The site's made-up name is the local copy; no other name resolves (this machine has no DNS)."""
        if host != args.host:
            raise OSError(f"{host}: not resolved in the bench")
        return ["127.0.0.1"]

    slug = f"bench-sources-{uuid.uuid4().hex[:8]}"
    workspace = Workspace.objects.create(name=slug, slug=slug)
    bot = Bot.objects.create(workspace=workspace, name="Docs bot")
    stubs, listed = redirect_stubs(site.root), sitemap_paths(site.root)
    starts = [site.origin + "/", *(site.origin + path for path in stubs), site.origin + "/404.html"]
    config = {"start_urls": starts, "max_pages": 1000, "max_depth": 10}
    source = source_create(
        workspace=workspace, name="Docs", kind=Source.Kind.WEBSITE, config=config, bots=[bot]
    )
    ingester = Ingester(workspace.pk)
    ingester.start()
    figures: dict[str, Any] = {"stubs": len(stubs), "sitemap": len(listed)}
    try:
        started = time.monotonic()
        ingester.first_ready_at = None
        first, crawled, all_ready = _sync(
            source, website_kind(config=config, credentials={}, resolver=resolve), ingester
        )
        documents = {
            page.url: page.document_id
            for page in SourcePage.objects.filter(source=source)
            if page.document_id
        }
        figures.update(
            first_counts=first.counts,
            first_errors=first.errors,
            crawl_seconds=crawled,
            all_ready_seconds=all_ready,
            first_searchable=(ingester.first_ready_at or time.monotonic()) - started,
            fetched=sum(
                v if isinstance(v, int) else sum(v.values())
                for k, v in first.counts.items()
                if k != "discovered" and k != "retired"
            ),
            documents=len(documents),
            sitemap_found=sum(1 for path in listed if site.origin + path in documents),
            stubs_as_documents=sum(1 for path in stubs if site.origin + path in documents),
            not_found_as_document=int(site.origin + "/404.html" in documents),
            baseline_rate=baseline_get_rate(
                [f"http://127.0.0.1:{site.port}{path}" for path in listed]
            ),
            chunks=chunk_figures(source=source, root=site.root, origin=site.origin),
        )
        calls = EmbeddingCalls()
        second, _, _ = _sync(
            source, website_kind(config=config, credentials={}, resolver=resolve), ingester
        )
        figures.update(second_counts=second.counts, second_embedding_calls=calls.calls)
        content = [path for path in listed if path != "/" and site.origin + path in documents]
        edited, deleted = content[1:6], content[-5:]
        for number, path in enumerate(edited, 1):
            page_edit(site.root, path, number)
        figures["links_removed"] = pages_delete(site.root, deleted, args.production)
        calls.calls = 0
        third, _, _ = _sync(
            source, website_kind(config=config, credentials={}, resolver=resolve), ingester
        )
        figures.update(
            third_counts=third.counts,
            third_embedding_calls=calls.calls,
            edited=edited,
            deleted=deleted,
        )
        if args.render_pages:
            figures["render"] = render_cost(
                urls=[site.origin + path for path in listed[: args.render_pages]], resolver=resolve
            )
    finally:
        ingester.stop.set()
        ingester.join(timeout=30)
        source_delete(source_id=source.pk)
        workspace.delete()
    return figures


if __name__ == "__main__":
    main()
