"""Curated answers in the turn's path, through the real chat API (offline provider, real ingestion,
embeddings and retrieval): a close paraphrase gets the curated answer, cited as its source and
audited as curated, with the question embedded once; other questions go through retrieval; the
analytics count curated turns; an evaluation run answers curated questions too and adds no turn."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

import conversations.pipeline.run.context as pipeline_run
import rag.retrieval.service as retrieval_service
from bots.models import Bot
from conversations.models import Conversation, CuratedAnswer, CuratedAnswerPolicy, Turn
from conversations.pipeline.curated import CURATED_MODEL
from insights.models import EvaluationRun, EvaluationSet
from insights.services.cases_io import CaseData
from insights.services.rollups import turn_rollups_refresh
from insights.services.runs import evaluation_run_create, evaluation_run_execute
from insights.services.sets import evaluation_cases_add
from tests.api.factories import bot_make, server_key_make
from tests.insights.helpers import api_turn_ask, curated_answer_make, member_client
from tests.support.knowledge import document_ingested
from textmodels.embeddings import MULTI_MODEL_ID

pytestmark = pytest.mark.django_db

GUIDE = "# Rentals\n\nA day rental costs 25 euros and includes a helmet."
QUESTION = "Can I rent a tandem bike for two people?"
PARAPHRASE = "Can I rent a tandem for two?"
ANSWER = "Yes: tandems are rented at the Lyon shop only, for 40 euros a day."


@pytest.fixture
def shop() -> tuple[Bot, str, CuratedAnswer]:
    bot = bot_make(name="Rental bot")
    document_ingested(workspace=bot.workspace, text=GUIDE, bots=[bot], filename="guide.md")
    raw, _ = server_key_make(bot.workspace)
    return bot, raw, curated_answer_make(bot=bot, question=QUESTION, answer=ANSWER)


class _Calls:
    """Counts the calls of a real function for the workspace's own model (and still makes them): the
    multilingual side's question vector is another model's, embedded by retrieval when it searches."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
        self.n = 0
        real = getattr(module, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            if kwargs.get("model_id") != MULTI_MODEL_ID:
                self.n += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)


def test_a_close_question_gets_the_curated_answer_cited_and_audited_as_curated(
    shop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, raw, curated = shop
    ahead = _Calls(monkeypatch, pipeline_run, "embed_query")
    in_retrieval = _Calls(monkeypatch, retrieval_service, "embed_query")
    body = api_turn_ask(raw, bot, PARAPHRASE, "m-1")
    assert body["status"] == "found_in_context" and body["answer"] == ANSWER
    assert body["model"] == CURATED_MODEL
    [citation] = body["citations"]
    assert citation["chunk_id"] == f"curated:{curated.pk}"
    assert citation["title"] == f"Curated answer: {QUESTION}"
    assert citation["text_preview"] == ANSWER
    turn = Turn.objects.get(pk=body["turn_id"])
    assert turn.model == CURATED_MODEL and turn.route_action == "show_answer"
    assert [c["chunk_id"] for c in turn.retrieved_chunks] == [f"curated:{curated.pk}"]
    assert turn.confidence is not None and turn.confidence >= 0.85
    assert not turn.repairs and turn.prompt_tokens is None
    assert "curated" in turn.latencies
    assert (ahead.n, in_retrieval.n) == (
        1,
        0,
    )  # embedded once, ahead of retrieval, which is skipped

    # Another question: the same single embedding, handed to retrieval, which answers it.
    other = api_turn_ask(raw, bot, "How much is a day rental?", "m-2")
    assert other["model"] != CURATED_MODEL and "25 euros" in other["answer"]
    assert other["citations"][0]["title"] != f"Curated answer: {QUESTION}"
    assert (ahead.n, in_retrieval.n) == (2, 0)


def test_the_bot_threshold_and_an_inactive_answer_keep_retrieval_in_charge(shop: Any) -> None:
    bot, raw, curated = shop
    CuratedAnswerPolicy.objects.create(bot=bot, similarity_threshold=0.999)
    assert api_turn_ask(raw, bot, PARAPHRASE, "m-1")["model"] != CURATED_MODEL
    CuratedAnswerPolicy.objects.filter(bot=bot).update(similarity_threshold=0.85)
    assert api_turn_ask(raw, bot, PARAPHRASE, "m-2")["model"] == CURATED_MODEL
    CuratedAnswer.objects.filter(pk=curated.pk).update(is_active=False)
    assert api_turn_ask(raw, bot, PARAPHRASE, "m-3")["model"] != CURATED_MODEL


def test_a_bot_without_curated_answers_embeds_nothing_ahead(
    shop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, raw, _ = shop
    CuratedAnswer.objects.all().delete()
    ahead = _Calls(monkeypatch, pipeline_run, "embed_query")
    in_retrieval = _Calls(monkeypatch, retrieval_service, "embed_query")
    assert "25 euros" in api_turn_ask(raw, bot, "How much is a day rental?", "m-1")["answer"]
    assert (ahead.n, in_retrieval.n) == (0, 1)


def test_the_analytics_count_curated_turns_and_link_to_them(shop: Any) -> None:
    bot, raw, _ = shop
    api_turn_ask(raw, bot, PARAPHRASE, "m-1")
    api_turn_ask(raw, bot, "How much is a day rental?", "m-2")
    turn_rollups_refresh()
    client = member_client(bot)
    html = client.get(reverse("admin:insights_analytics", args=[bot.pk])).content.decode()
    assert 'id="curated-count" data-value="1"' in html
    href = html.split('id="curated-count"')[0].rsplit('href="', 1)[1].split('"')[0]
    listed = client.get(href.replace("&amp;", "&"))
    assert [t.user_text for t in listed.context["cl"].result_list] == [PARAPHRASE]


def test_an_evaluation_run_answers_curated_questions_and_records_no_turn(shop: Any) -> None:
    bot, _, _ = shop
    evaluation_set = EvaluationSet.objects.create(bot=bot, name="curated")
    evaluation_cases_add(
        set_id=evaluation_set.pk,
        cases=[
            CaseData(question=PARAPHRASE, expected_status="found_in_context"),
            CaseData(question="How much is a day rental?", expected_sources=["guide.md"]),
        ],
    )
    run = evaluation_run_create(set_id=evaluation_set.pk, enqueue=False)
    assert evaluation_run_execute(run_id=run.pk) == "completed"
    results = {r.question: r for r in EvaluationRun.objects.get(pk=run.pk).results.all()}
    curated = results[PARAPHRASE]
    assert curated.answer == ANSWER and curated.model == CURATED_MODEL and curated.passed
    assert results["How much is a day rental?"].source_recall == 1.0
    assert not Turn.objects.exists()


class _Recorder:
    """A PipelineEmitter that keeps what the pipeline reports (what streams.sse would send)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def search_preparation_started(self) -> None:
        self.events.append(("search_preparation", None))

    def retrieval_completed(self, *, retrieved_count: int) -> None:
        self.events.append(("retrieval", retrieved_count))

    def reranking_completed(
        self, *, initial_count: int, reranked_count: int, kept_count: int
    ) -> None:
        self.events.append(("reranking", kept_count))

    def compiling_results_started(self) -> None:
        self.events.append(("compiling", None))

    def partial(self, *, content: str, output_key: str = "response") -> None:
        self.events.append(("partial", content))


def test_a_streamed_turn_emits_the_curated_answer_like_any_answer(shop: Any) -> None:
    from conversations.pipeline import turn_answer

    bot, _, _ = shop
    conversation = Conversation.objects.create(bot=bot)
    recorder = _Recorder()
    result = turn_answer(
        conversation_id=conversation.pk,
        client_message_id="m-1",
        message=PARAPHRASE,
        emitter=recorder,
    )
    assert result.payload["answer"] == ANSWER
    names = [name for name, _ in recorder.events]
    assert names[:3] == ["search_preparation", "retrieval", "compiling"]
    assert recorder.events[1] == ("retrieval", 1)
    partials = [content for name, content in recorder.events if name == "partial"]
    assert len(partials) > 1 and "".join(partials) == ANSWER


def test_rag_search_keeps_to_the_documents_chunks(shop: Any) -> None:
    """A search tool's contexts are chunks of the documents in scope (fetchable by id), so a curated
    answer does not take over a rag_search, even one made for the bot."""
    from conversations.pipeline import rag_search_answer

    bot, _, _ = shop
    result = rag_search_answer(workspace_id=bot.workspace_id, bot_id=bot.pk, query=PARAPHRASE)
    assert result["model"] != CURATED_MODEL
    assert result["contexts"] and all(
        not c["chunk_id"].startswith("curated:") for c in result["contexts"]
    )


def test_try_it_and_the_turn_page_show_a_curated_answer(shop: Any) -> None:
    bot, raw, curated = shop
    client = member_client(bot)
    page = client.post(
        reverse("admin:conversations_turn_try", args=[bot.pk]),
        {"question": PARAPHRASE, "history": "", "provider": "offline"},
    ).content.decode()
    assert ANSWER in page and f"curated:{curated.pk}" in page
    turn = Turn.objects.get(pk=api_turn_ask(raw, bot, PARAPHRASE, "m-1")["turn_id"])
    change = client.get(reverse("admin:conversations_turn_change", args=[turn.pk]))
    assert change.status_code == 200 and ANSWER in change.content.decode()
