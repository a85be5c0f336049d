"""The demo bot as `./parley run` sets it up, for browser tests: its widget key for the live server's
origin and its documents ingested (here, or by the session's test worker that took the message first),
or just one of the demo's pages."""

from __future__ import annotations

import uuid

from bots.models import Bot
from prompts.services.demo import demo_bot_ensure
from rag.demo_content import DEMO_DIR, demo_documents_ensure
from rag.ingestion import document_ingest
from rag.models import Document
from tests.support.knowledge import document_ingested
from tests.support.processes import wait_for
from widget.services import demo_widget_ensure


def demo_bot_ingested(*, origin: str) -> Bot:
    """The demo bot with a widget key allowed from `origin`, once every demo document is ingested."""
    bot = demo_bot_ensure()
    demo_widget_ensure(bot=bot, origins=(origin,))
    documents = demo_documents_ensure(workspace=bot.workspace, bots=[bot])
    for document in documents:
        document_ingest(document_id=str(document.pk), claim_id=uuid.uuid4().hex)
    wait_for(
        lambda: (
            not Document.objects.filter(
                pk__in=[d.pk for d in documents], status__in=["pending", "processing"]
            ).exists()
        ),
        timeout=120,
        what="the demo documents to be ingested",
    )
    return bot


def demo_page_ingested(*, bot: Bot, filename: str) -> Document:
    """One of the demo's pages (``rag/demo_content``, by file name) ingested for the bot alone."""
    text = (DEMO_DIR / filename).read_text()
    return document_ingested(workspace=bot.workspace, text=text, bots=[bot], filename=filename)
