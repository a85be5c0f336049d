"""A set's documents as an admin and an API user give them to a bot: one workspace per corpus, one bot with
the model's defaults, each document uploaded as a Markdown file (its title as the first heading, when the
set has one) and ingested by the product's own task, run in this process (Celery's eager mode).

A workspace is kept between runs while its documents are the same (a digest in its name), so a second run
does not ingest again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence

from django.core.files.base import ContentFile
from django.db.models import Count

from bench.answer.sets import Document as SetDocument
from bots.models import Bot
from core.models import Workspace
from rag.models import Document
from rag.services import NewFile, documents_create

UPLOAD_BATCH = 200


def _digest(documents: Sequence[SetDocument]) -> str:
    joined = "\x1e".join(f"{d.doc_id}\x1f{d.title}\x1f{d.text}" for d in documents)
    return hashlib.sha256(joined.encode()).hexdigest()[:12]


def _markdown(document: SetDocument) -> str:
    title = document.title.replace("_", " ").strip()
    if title and title != document.doc_id:
        return f"# {title}\n\n{document.text}\n"
    return f"{document.text}\n"


def corpus_workspace(corpus: str, documents: Sequence[SetDocument]) -> tuple[Workspace, Bot, float]:
    """The corpus's workspace and bot, ingested; the seconds ingestion took in this run (0 when kept)."""
    from config.celery import app

    slug = f"bench-answer-{corpus}"
    marker = f"{slug} ({len(documents)} documents, {_digest(documents)})"
    workspace, _ = Workspace.objects.get_or_create(slug=slug, defaults={"name": slug})
    bot, _ = Bot.objects.get_or_create(workspace=workspace, name="Bench answer bot")
    ready = Document.objects.filter(workspace=workspace, status=Document.Status.READY).count()
    if workspace.name == marker and ready == len(documents):
        return workspace, bot, 0.0
    Document.objects.filter(workspace=workspace).delete()
    started = time.monotonic()
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = (
        True  # the ingestion task runs here, on commit, as a worker runs it
    )
    try:
        for start in range(0, len(documents), UPLOAD_BATCH):
            batch = documents[start : start + UPLOAD_BATCH]
            files = [
                NewFile(
                    file=ContentFile(_markdown(d).encode(), name=f"{d.doc_id}.md"),
                    filename=f"{d.doc_id}.md",
                )
                for d in batch
            ]
            documents_create(workspace=workspace, files=files, bots=[bot])
    finally:
        app.conf.task_always_eager = eager
    states = dict(
        Document.objects.filter(workspace=workspace).values_list("status").annotate(n=Count("id"))
    )
    if states.get(Document.Status.READY, 0) != len(documents):
        raise SystemExit(f"{corpus}: ingestion left {states}")
    Workspace.objects.filter(pk=workspace.pk).update(name=marker)
    return workspace, bot, time.monotonic() - started


def document_ids_by_name(workspace: Workspace) -> dict[str, str]:
    """The set's document id (the file's stem) by the product's document id."""
    return {
        str(pk): filename.rsplit(".", 1)[0]
        for pk, filename in Document.objects.filter(workspace=workspace).values_list(
            "pk", "filename"
        )
    }
