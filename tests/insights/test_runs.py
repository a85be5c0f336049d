"""Evaluation runs through the real pipeline (ingested documents, hybrid retrieval, the offline
provider or the scripted LLM server): metrics, idempotence, refusals, overrides, nothing recorded
as a turn, and two template versions compared case by case."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from conversations.models import Conversation, Turn
from core.models import Workspace
from insights.models import EvaluationResult, EvaluationRun, EvaluationSet
from insights.selectors.runs import runs_compare
from insights.services.cases_io import CaseData
from insights.services.runs import RunRefused, evaluation_run_create, evaluation_run_execute
from insights.services.sets import evaluation_cases_add
from prompts.engine.environment import ANSWER_TEMPLATE, template_default_source
from prompts.services.templates import template_version_save
from rag.models import Chunk, Document
from tests.insights.helpers import day_price_reply
from tests.support.factories import UserFactory
from tests.support.knowledge import document_ingested
from tests.support.llm_server import ScriptedLLMServer

pytestmark = pytest.mark.django_db

GUIDE = (
    "# Rentals\n\nA day rental costs 25 euros and includes a helmet. Children's bikes are half"
    " price.\n\n# Repairs\n\nFlat tyres are repaired while you wait. A full service takes two"
    " working days."
)
CASES = [
    CaseData(
        question="How much is a day rental?",
        expected_status="found_in_context",
        expected_sources=["Shop guide"],
        expected_snippet="25 euros",
    ),
    CaseData(question="How long does a full service take?", expected_sources=["shop-guide.md"]),
    CaseData(question="Do you rent kayaks on the lake?", expect_no_answer=True),
    CaseData(question="hello!", expected_status="small_talk"),
]


@pytest.fixture
def shop(db: None) -> tuple[Bot, EvaluationSet]:
    workspace = Workspace.objects.create(name="Shop", slug="shop")
    bot = Bot.objects.create(workspace=workspace, name="Shop bot")
    document = document_ingested(
        workspace=workspace, text=GUIDE, bots=[bot], filename="shop-guide.md"
    )
    Document.objects.filter(pk=document.pk).update(title="Shop guide")
    evaluation_set = EvaluationSet.objects.create(bot=bot, name="smoke")
    evaluation_cases_add(set_id=evaluation_set.pk, cases=CASES)
    return bot, evaluation_set


def test_a_run_answers_every_case_records_no_turn_and_measures_it(shop: Any) -> None:
    bot, evaluation_set = shop
    run = evaluation_run_create(set_id=evaluation_set.pk)
    assert run.status == "queued" and run.total == 4
    assert evaluation_run_execute(run_id=run.pk) == "completed"
    run.refresh_from_db()
    assert (run.done, run.total) == (4, 4)
    assert not Turn.objects.exists() and not Conversation.objects.exists()
    results = {r.question: r for r in run.results.all()}
    price = results["How much is a day rental?"]
    assert price.retrieved and price.retrieved[0]["title"] == "Shop guide"
    assert price.source_recall == 1.0  # the document and the snippet are both retrieved
    assert results["How long does a full service take?"].source_recall == 1.0  # by file name
    metrics = run.metrics
    assert metrics["cases"] == 4
    assert metrics["passed"] == sum(r.passed for r in results.values())
    assert metrics["top_k"] == bot.retrieval_top_k
    # Every case has its row: the two naming a status, "no answer expected", "no status expected".
    assert sum(sum(row.values()) for row in metrics["confusion"].values()) == 4
    assert set(metrics["confusion"]) == {
        "found_in_context",
        "small_talk",
        "no answer expected",
        "no status expected",
    }
    assert metrics["source_recall_at_k"] == 1.0
    no_answer = results["Do you rent kayaks on the lake?"]
    expected_recall = 1.0 if no_answer.status in ("not_found_in_context", "out_of_scope") else 0.0
    assert metrics["no_answer_recall"] == expected_recall
    assert metrics["latency_ms_p95"] >= metrics["latency_ms_p50"] >= 0
    for result in results.values():
        assert result.passed == (not result.failures)


def test_a_redelivered_run_resumes_and_never_answers_a_case_twice(shop: Any) -> None:
    _, evaluation_set = shop
    run = evaluation_run_create(set_id=evaluation_set.pk)
    evaluation_run_execute(run_id=run.pk)
    first = EvaluationResult.objects.filter(run=run).order_by("position").first()
    assert first is not None
    first.delete()
    EvaluationRun.objects.filter(pk=run.pk).update(status="running", done=3)
    assert evaluation_run_execute(run_id=run.pk) == "completed"
    assert run.results.count() == 4
    assert evaluation_run_execute(run_id=run.pk) == "completed"  # finished: nothing redone
    assert run.results.count() == 4


def test_an_empty_set_or_a_bot_without_documents_is_refused_clearly(shop: Any) -> None:
    bot, evaluation_set = shop
    empty = EvaluationSet.objects.create(bot=bot, name="empty")
    with pytest.raises(RunRefused, match="no case") as refused:
        evaluation_run_create(set_id=empty.pk)
    assert refused.value.code == "set_empty"
    lonely = Bot.objects.create(workspace=bot.workspace, name="No docs")
    lonely_set = EvaluationSet.objects.create(bot=lonely, name="s")
    evaluation_cases_add(set_id=lonely_set.pk, cases=CASES[:1])
    with pytest.raises(RunRefused, match="has no document") as refused:
        evaluation_run_create(set_id=lonely_set.pk)
    assert refused.value.code == "bot_has_no_documents"
    # Documents removed after the run was queued: the run fails with the same reason.
    run = evaluation_run_create(set_id=evaluation_set.pk)
    Document.objects.filter(bots=bot).delete()
    assert evaluation_run_execute(run_id=run.pk) == "failed"
    run.refresh_from_db()
    assert run.error_code == "bot_has_no_documents" and "Add documents" in run.error_message


def test_overrides_change_the_run_not_the_bot(shop: Any) -> None:
    bot, evaluation_set = shop
    with pytest.raises(RunRefused, match="v9"):
        evaluation_run_create(set_id=evaluation_set.pk, overrides={"template_version": 9})
    with pytest.raises(RunRefused):
        evaluation_run_create(set_id=evaluation_set.pk, overrides={"top_k": 0})
    run = evaluation_run_create(
        set_id=evaluation_set.pk,
        overrides={"top_k": 1, "hybrid": False, "rag_strictness": "relaxed"},
    )
    evaluation_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.metrics["top_k"] == 1
    assert all(len(result.retrieved) <= 1 for result in run.results.all())
    bot.refresh_from_db()
    assert bot.retrieval_top_k == 6 and bot.retrieval_hybrid and bot.rag_strictness == "strict"


def test_two_template_versions_compared_with_the_differences_first(
    shop: Any, llm: ScriptedLLMServer, settings: Any
) -> None:
    settings.LLM_BASE_URL, settings.LLM_API_KEY, settings.LLM_MODEL = llm.base_url, "k", "m"
    bot, _ = shop
    Bot.objects.filter(pk=bot.pk).update(llm_provider="openai")
    two = EvaluationSet.objects.create(bot=bot, name="two")
    evaluation_cases_add(
        set_id=two.pk,
        cases=[
            CaseData(question="How much is a day rental?", expected_status="found_in_context"),
            CaseData(question="Do you repair flat tyres?", expected_status="found_in_context"),
        ],
    )
    default = template_default_source(ANSWER_TEMPLATE)
    v1 = template_version_save(bot_id=bot.pk, kind="answer", source=default, note="as shipped")
    v2 = template_version_save(
        bot_id=bot.pk,
        kind="answer",
        source=default + "\nAnswer tersely, in one sentence.",
        note="terse",
    )
    chunk = Chunk.objects.get(text__contains="25 euros")
    # The second question's prompt holds the repairs chunk alone (the rentals one is below the
    # relevance estimate's threshold for it), so its answers cite that one.
    repairs = Chunk.objects.get(text__contains="Flat tyres")
    llm.enqueue(
        day_price_reply(chunk, "not_found_in_context"), day_price_reply(repairs, "found_in_context")
    )
    left = evaluation_run_create(set_id=two.pk, overrides={"template_version": v1.number})
    evaluation_run_execute(run_id=left.pk)
    llm.enqueue(
        day_price_reply(chunk, "found_in_context"), day_price_reply(repairs, "found_in_context")
    )
    right = evaluation_run_create(set_id=two.pk, overrides={"template_version": v2.number})
    evaluation_run_execute(run_id=right.pk)
    prompts = ["\n".join(m["content"] for m in r.messages) for r in llm.chat_requests()]
    assert ["Answer tersely" in prompt for prompt in prompts] == [False, False, True, True]
    left.refresh_from_db()
    right.refresh_from_db()
    assert left.metrics["status_accuracy"] == 0.5 and right.metrics["status_accuracy"] == 1.0
    metrics, rows = runs_compare(left=left, right=right)
    assert [row.differs for row in rows] == [True, False]
    assert rows[0].question == "How much is a day rental?"
    accuracy = next(m for m in metrics if m.name == "status_accuracy")
    assert accuracy.change == "better"
    assert not Turn.objects.exists()


def test_cases_naming_sources_become_retrieval_pairs_for_calibration(shop: Any) -> None:
    from insights.selectors.calibration import evaluation_retrieval_pairs

    bot, _ = shop
    document = Document.objects.get(bots=bot)
    pairs = evaluation_retrieval_pairs(bot_id=bot.pk)
    assert [(p.question, p.document_ids) for p in pairs] == [
        ("How much is a day rental?", (str(document.pk),)),
        ("How long does a full service take?", (str(document.pk),)),
    ]


def test_the_run_page_accounts_for_every_case_in_its_confusion_matrix(shop: Any) -> None:
    """Issue 51: the matrix covered 26 of 29 cases, the "expect no answer" ones left out unsaid."""
    _, evaluation_set = shop
    run = evaluation_run_create(set_id=evaluation_set.pk)
    assert evaluation_run_execute(run_id=run.pk) == "completed"
    # A run measured before the matrix had its no-answer row: the page reads the results.
    EvaluationRun.objects.filter(pk=run.pk).update(
        metrics={**run.__class__.objects.get(pk=run.pk).metrics, "confusion": {}}
    )
    kayaks = EvaluationResult.objects.get(run=run, question="Do you rent kayaks on the lake?")
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = client.get(
        reverse("admin:insights_evaluationrun_change", args=[run.pk])
    ).content.decode()

    matrix = re.search(r'<table id="run-confusion">(.*?)</table>', page, re.S)
    assert matrix
    columns = re.findall(r"<th>([a-z_]+)</th>", matrix.group(1).split("</thead>")[0])
    rows = {
        expected: [int(n) for n in counts]
        for expected, counts in (
            (m.group(1), re.findall(r"<td>(\d+)</td>", m.group(2)))
            for m in re.finditer(
                r"<tr><th>([^<]+)</th>(.*?)</tr>", matrix.group(1).split("<tfoot>")[0]
            )
        )
    }
    assert set(rows) == {
        "found_in_context",
        "small_talk",
        "no answer expected",
        "no status expected",
    }
    assert rows["no answer expected"][columns.index(kayaks.status)] == 1
    assert all(counts[-1] == sum(counts[:-1]) for counts in rows.values())  # each row's total
    assert sum(counts[-1] for counts in rows.values()) == run.total == 4
    assert re.search(r'id="run-confusion-cases">4<', page)
    assert "Every case of the run is in a row." in page
