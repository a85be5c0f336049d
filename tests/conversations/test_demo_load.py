"""The run command's demo: a bot with business rules and seven documents of mixed formats (one scanned,
one with a chart), loaded once."""

import pytest
from django.core.management import call_command

from bots.models import Bot
from rag.demo_content import DEMO_FILES
from rag.models import Document


@pytest.mark.django_db
def test_demo_load_creates_the_bot_and_its_documents_once() -> None:
    call_command("demo_load")
    call_command("demo_load")
    bot = Bot.objects.get()
    documents = Document.objects.filter(bots=bot)
    assert documents.count() == len(DEMO_FILES) == 7
    assert {d.filename.rsplit(".", 1)[1] for d in documents} == {"md", "html", "pdf", "csv", "vtt"}
