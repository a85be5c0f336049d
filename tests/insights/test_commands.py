"""The `evaluate` command (exit codes for CI) and the demo's evaluation set (`demo_evaluation`)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bots.models import Bot
from core.models import Workspace
from insights.management.commands.demo_evaluation import DEMO_SET, DEMO_SET_NAME
from insights.models import EvaluationRun, EvaluationSet
from insights.services.cases_io import cases_parse
from insights.services.runs import DocumentsPending, evaluation_run_execute
from rag.demo_content import DEMO_FILES
from rag.ingestion import document_ingest
from rag.models import Document
from tests.support.knowledge import document_ingested

pytestmark = pytest.mark.django_db

GUIDE = "# Rentals\n\nA day rental costs 25 euros and includes a helmet."


@pytest.fixture
def shop(db: None, tmp_path: Path) -> tuple[Bot, Path]:
    workspace = Workspace.objects.create(name="Shop", slug="shop")
    bot = Bot.objects.create(workspace=workspace, name="Shop bot")
    document_ingested(workspace=workspace, text=GUIDE, bots=[bot], filename="guide.md")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"question": "How much is a day rental?", "expected_sources": ["guide.md"]})
        + "\n"
        + json.dumps({"question": "Do you sell kayaks?", "expect_no_answer": True})
        + "\n"
    )
    return bot, cases


def _evaluate(*args: str) -> tuple[str, int]:
    out = StringIO()
    try:
        call_command("evaluate", "--workspace", "shop", "--bot", "Shop bot", *args, stdout=out)
    except CommandError as error:
        return out.getvalue() + str(error), error.returncode
    return out.getvalue(), 0


def test_evaluate_passes_then_fails_a_threshold(shop: Any) -> None:
    _, cases = shop
    output, code = _evaluate("--set", "ci", "--file", str(cases), "--min-source-recall-at-k", "0.5")
    assert code == 0, output
    assert "source_recall_at_k" in output and "1.0" in output
    assert EvaluationRun.objects.get().status == "completed"
    output, code = _evaluate("--set", "ci", "--max-latency-ms-p95", "-1", "--json")
    assert code == 2 and "latency_ms_p95" in output
    assert json.loads(output[: output.rindex("}") + 1])["cases"] == 2


def test_evaluate_says_why_it_cannot_run(shop: Any, tmp_path: Path) -> None:
    output, code = _evaluate("--set", "nothing-in-it")
    assert code == 3 and "no case" in output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "ok?", "expect_no_answer": true}\n{"question": 3}\n')
    output, code = _evaluate("--set", "ci", "--file", str(bad))
    assert code == 3 and "line 2" in output
    assert not EvaluationSet.objects.get(name="ci").cases.exists()


def test_the_demo_set_covers_the_demo_documents_and_its_first_run_is_queued_once() -> None:
    cases = cases_parse(raw=DEMO_SET.read_bytes(), file_format="jsonl")
    assert len(cases) >= 20
    titles = set(DEMO_FILES.values())
    cited = {source for case in cases for source in case.expected_sources}
    assert cited == titles  # every demo document is asked about, and only those
    assert any(case.expect_no_answer for case in cases) and any(case.history for case in cases)
    call_command("demo_load", stdout=StringIO())  # the documents, queued for ingestion
    call_command("demo_evaluation", stdout=StringIO())
    call_command("demo_evaluation", stdout=StringIO())
    evaluation_set = EvaluationSet.objects.get(name=DEMO_SET_NAME)
    assert evaluation_set.cases.count() == len(cases)
    run = EvaluationRun.objects.get(evaluation_set=evaluation_set)
    assert call_command("demo_evaluation", "--summary", stdout=StringIO()) == ""
    assert run.status == "queued" and run.total == len(cases)


def test_a_finished_demo_run_is_summarised() -> None:
    call_command("demo_load", stdout=StringIO())
    call_command("demo_evaluation", stdout=StringIO())
    run = EvaluationRun.objects.get()
    documents = list(Document.objects.filter(bots=run.bot).order_by("filename"))
    assert len(documents) == len(DEMO_FILES)
    for n, document in enumerate(documents):
        # While any demo document is still being ingested the task waits (and retries later).
        with pytest.raises(DocumentsPending):
            evaluation_run_execute(run_id=run.pk)
        assert document_ingest(document_id=str(document.pk), claim_id=f"demo-{n}") == "ready"
    assert evaluation_run_execute(run_id=run.pk) == "completed"
    summary = call_command("demo_evaluation", "--summary", stdout=StringIO())
    assert summary.startswith(f"demo evaluation ({run.total} cases)")
    assert f"/admin/insights/evaluationrun/{run.pk}/change/" in summary
    run.refresh_from_db()
    # The demo's own set over the demo's documents (offline provider): most sources are retrieved.
    assert run.metrics["source_recall_at_k"] >= 0.5, run.metrics


def test_analytics_rebuild_counts_every_day_of_a_bot() -> None:
    from django.utils import timezone

    from conversations.models import Conversation, Turn
    from insights.models import TurnRollup

    bot = Bot.objects.create(workspace=Workspace.objects.create(name="W", slug="w"), name="B")
    conversation = Conversation.objects.create(bot=bot)
    Turn.objects.create(
        conversation=conversation,
        client_message_id="m",
        user_text="q",
        status="small_talk",
        completed_at=timezone.now(),
    )
    out = StringIO()
    call_command("analytics_rebuild", "--bot", str(bot.pk), stdout=out)
    assert "B: 1 days recomputed" in out.getvalue()
    assert TurnRollup.objects.get(bot=bot, dimension="status").key == "small_talk"
